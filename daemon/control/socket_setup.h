// File-system side of the control socket: the directory that only root and
// the control group may enter, stale-socket removal, and the socket's mode.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/result.h"

namespace smsupd::control {

// The longest path a sockaddr_un holds (sun_path minus the terminating NUL).
inline constexpr std::size_t kMaxSocketPathBytes = 107;

// Creates the socket's parent directory if it does not exist, with mode 0750,
// owner root and group `group` (when running as root), so only root and the
// control group can reach the socket. An existing directory must be owned by
// root or smsupd's user and writable by no one else (anyone who can write
// there could replace the socket): refused otherwise. A private one (no
// access for others, e.g. systemd's RuntimeDirectory=, root:root 0750) gets
// the control group and group search permission, or its members could never
// reach the socket; a shared one (others may enter, e.g. /run) is left as it
// is: the socket's own mode and group protect it.
Status PrepareSocketDirectory(const std::string& socket_path, std::optional<gid_t> group);

// Removes a socket file left by a daemon that died, but only if nothing
// accepts connections on it: a second daemon must not steal a live socket.
// A missing path is fine; a path that is not a socket is an error.
Status RemoveStaleSocket(const std::string& socket_path);

// Mode 0660 and, when running as root, owner root and group `group`:
// connecting to a Unix socket needs write permission on it.
Status SetSocketPermissions(const std::string& socket_path, std::optional<gid_t> group);

}  // namespace smsupd::control
