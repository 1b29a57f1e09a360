#include "daemon/control/command_router.h"

#include <stdexcept>

namespace smsupd::control {
namespace {

// Answered by ControlServer before a request reaches the router.
bool ServerAnswers(std::string_view name) {
  return name == "version" || name == "list-commands" || name == "events";
}

}  // namespace

void CommandRouter::Register(std::string_view name, Handler handler) {
  if (!FindCommand(name) || ServerAnswers(name))
    throw std::logic_error("no daemon command '" + std::string(name) + "' in the protocol");
  handlers_.insert_or_assign(std::string(name), std::move(handler));
}

std::vector<std::string> CommandRouter::Registered() const {
  std::vector<std::string> names;
  for (const auto& [name, handler] : handlers_) names.push_back(name);
  return names;
}

void CommandRouter::Handle(const Request& request, const Caller& caller, Reply reply) {
  if (!open_) return reply(MakeResponse(ResultCode::kError, "smsupd is starting; try again"));
  auto found = handlers_.find(request.command);
  if (found == handlers_.end())
    return reply(MakeResponse(ResultCode::kUnsupported,
                              "'" + request.command + "' is not implemented by this daemon"));
  found->second(request, caller, std::move(reply));
}

}  // namespace smsupd::control
