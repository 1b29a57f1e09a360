// One event as the hooks see it (docs/hooks.md): the fixed argv tail and the
// environment every hook of the directory runs with. MakeHookJob is pure:
// the event, and the daemon's picture at the moment the event happened.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/control_wire.h"
#include "common/guid.h"

namespace smsupd {

struct HookJob {
  std::string event;                 // argv[1]: the event kind, e.g. "master-changed"
  std::vector<std::string> environment;  // "SMSUPD_EVENT=master-changed", ... and PATH
  std::string directory;             // hooks.directory at the time of the event
  std::chrono::milliseconds timeout{10000};
};

// `status` is the daemon's status when the event was appended; `local` the
// local SM's port GUID.
HookJob MakeHookJob(const control::EventWire& event, const control::StatusWire& status, Guid local,
                    const std::string& directory, std::chrono::milliseconds timeout);

// The other SM an event concerns (SMSUPD_PEER_GUID): for master-changed
// the one of from/to that is not this node's (the new master first); when
// that gives none, and for other events, the master when it is not this
// node, else the first STANDBY listed that is not this node; 0 when there
// is none.
Guid PeerOf(const control::EventWire& event, const control::StatusWire& status, Guid local);

}  // namespace smsupd
