// The daemon's side of the control socket: command name -> handler, each
// registered by the subsystem that owns the command (Kea's command manager
// is the model). The control server checks a request (JSON, version,
// command, arguments, permission) and answers `version`, `list-commands`
// and `events` itself; everything else comes here.
//
//   status                     StatusBoard
//   reload, validate, plan,    ConfigApplier
//   history, rollback
//   failover                   FailoverController
//
// A command of the protocol that nothing registered is answered
// kUnsupported; until the daemon calls Open() every command is answered
// "starting" (the socket is bound before OpenSM runs).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/control/command_handler.h"

namespace smsupd::control {

class CommandRouter : public CommandHandler {
 public:
  using Handler = std::function<void(const Request&, const Caller&, Reply)>;

  // `name` must be a command of control_protocol.h (kCommands) that the
  // server does not answer itself; registering it twice replaces the first.
  // Throws std::logic_error otherwise: a programming error, found at start.
  void Register(std::string_view name, Handler handler);
  void Open() { open_ = true; }
  bool open() const { return open_; }
  // The commands with a handler, sorted.
  std::vector<std::string> Registered() const;

  void Handle(const Request& request, const Caller& caller, Reply reply) override;

 private:
  std::map<std::string, Handler, std::less<>> handlers_;
  bool open_ = false;
};

}  // namespace smsupd::control
