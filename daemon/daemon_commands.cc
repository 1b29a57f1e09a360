// The Daemon's CommandHandler side (status, reload, validate; plan, history
// and rollback are in config_commands.cc) and how
// supervisor and subnet observations turn into events, problems and STATUS=.
#include <spdlog/spdlog.h>
#include <unistd.h>


#include "config/validator.h"
#include "daemon/daemon.h"

namespace smsupd {
namespace {

using control::MakeResponse;
using control::ResultCode;

nlohmann::json DiagnosticsJson(const config::ValidationOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : outcome.diagnostics) list.push_back(d.Format());
  return list;
}

}  // namespace

void Daemon::Handle(const control::Request& request, const control::Caller& caller, Reply reply) {
  if (!supervisor_ || !failover_)  // the socket is bound before OpenSM runs
    return reply(MakeResponse(ResultCode::kError, "smsupd is starting; try again"));
  if (request.command == "status") {
    reply(MakeResponse(ResultCode::kSuccess, StatusLine(), control::ToJson(BuildStatus())));
  } else if (request.command == "reload") {
    auto args = control::ParseReloadArguments(request.arguments);
    if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
    spdlog::info("RELOAD_REQUESTED by uid {} (pid {}){}", caller.uid, caller.pid,
                 args->restart ? " with restart allowed" : "");
    ApplyRequest apply = MakeApplyRequest("reload", "uid " + std::to_string(caller.uid), caller.uid);
    apply.restart = args->restart;
    apply.wait = args->wait;
    if (args->timeout_given)
      apply.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args->timeout_s * 1000));
    StartApply(std::move(apply), std::move(reply));
  } else if (request.command == "plan") {
    HandlePlan(request, std::move(reply));
  } else if (request.command == "history") {
    HandleHistory(std::move(reply));
  } else if (request.command == "rollback") {
    HandleRollback(request, caller, std::move(reply));
  } else if (request.command == "failover") {
    spdlog::info("FAILOVER_COMMAND by uid {} (pid {})", caller.uid, caller.pid);
    HandleFailover(request, std::move(reply));
  } else if (request.command == "validate" && request.arguments.empty()) {
    auto outcome = config::LoadAndValidate(options_.config_path);
    reply(MakeResponse(outcome.ok() ? ResultCode::kSuccess : ResultCode::kError,
                       options_.config_path + (outcome.ok() ? " is valid" : " is invalid"),
                       {{"valid", outcome.ok()}, {"diagnostics", DiagnosticsJson(outcome)}}));
  } else {
    reply(MakeResponse(ResultCode::kUnsupported,
                       "'" + request.command + "' is not implemented by this daemon"));
  }
}

void Daemon::Reload(const control::ReloadArguments& args, Reply reply) {
  ApplyRequest request = MakeApplyRequest("signal", "signal");
  request.restart = args.restart;
  StartApply(std::move(request), std::move(reply));
}

}  // namespace smsupd
