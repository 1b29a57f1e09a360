// What the control server hands to the daemon: a checked request, who sent
// it, and a callback for the one reply. The daemon implements CommandHandler;
// the server has already answered `version`, `list-commands` and `events`
// itself and refused anything malformed or not permitted.
#pragma once

#include <sys/types.h>

#include <functional>

#include "common/control_protocol.h"

namespace smsupd::control {

// What a peer may do. Root and the daemon's own user get kFull; members of
// control.group kReadOnly; everyone else kNone.
enum class AccessLevel { kNone, kReadOnly, kFull };

const char* AccessLevelName(AccessLevel level);

// The peer of one connection, from SO_PEERCRED at accept time. `uid` is what
// audit records name (e.g. "applied by uid 0").
struct Caller {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  AccessLevel access = AccessLevel::kNone;
};

class CommandHandler {
 public:
  // May be called from any thread; the server moves the reply onto its
  // io_context. Calling it after the client went away is harmless.
  using Reply = std::function<void(Response)>;

  virtual ~CommandHandler() = default;

  // Called on the server's io_context thread for each request that passed
  // the version, command, argument and permission checks. Must call `reply`
  // exactly once, now or later (e.g. `reload` with "wait": true answers once
  // the change is verified). Must not block the loop. Commands it does not
  // implement (the reserved ones) are answered ResultCode::kUnsupported.
  // An exception thrown from Handle becomes a kError reply.
  virtual void Handle(const Request& request, const Caller& caller, Reply reply) = 0;
};

}  // namespace smsupd::control
