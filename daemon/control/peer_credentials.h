// Who is on the other end of a Unix socket, and what may they do. The OS part
// sits behind PeerAuthenticator so unit tests (which often run as root) can
// present any identity to the server; the real one uses SO_PEERCRED.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "daemon/control/command_handler.h"

namespace smsupd::control {

// Called once per accepted connection with its fd.
using PeerAuthenticator = std::function<Result<Caller>(int fd)>;

// SO_PEERCRED of a connected Unix socket.
struct PeerIdentity {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};
Result<PeerIdentity> ReadPeerIdentity(int fd);

// The supplementary groups the peer process had when it connected
// (SO_PEERGROUPS): the kernel's record of this connection, never a look-up
// by pid (a pid may be reused) or by user name.
Result<std::vector<gid_t>> ReadPeerGroups(int fd);

// The access rule in one place: uid 0 or `daemon_uid` -> kFull; primary or
// supplementary group == `control_gid` -> kReadOnly; else kNone.
AccessLevel DecideAccess(const PeerIdentity& peer, const std::vector<gid_t>& groups,
                         uid_t daemon_uid, std::optional<gid_t> control_gid);

// Looks up a group by name; nullopt if it does not exist.
std::optional<gid_t> LookupGroup(const std::string& name);

// The production authenticator: SO_PEERCRED + SO_PEERGROUPS + DecideAccess with
// the daemon's effective uid. The group is looked up per connection, so a
// group created after start-up takes effect.
PeerAuthenticator SystemPeerAuthenticator(std::string control_group);

}  // namespace smsupd::control
