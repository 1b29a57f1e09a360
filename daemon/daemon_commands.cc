// The Daemon's CommandHandler side (status, reload, validate) and how
// supervisor and subnet observations turn into events, problems and STATUS=.
#include <spdlog/spdlog.h>
#include <unistd.h>


#include "config/opensm_options.h"
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
    Reload(*args, std::move(reply));
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

control::Response Daemon::RejectConfig(const config::ValidationOutcome& outcome) {
  std::string text = options_.config_path + ": " + std::to_string(outcome.ErrorCount()) +
                     " error(s); nothing changed";
  for (const auto& d : outcome.diagnostics) text += "\n" + d.Format();
  spdlog::error("CONFIG_REJECTED {}", text);
  AddEvent(control::kEventConfigRejected,
           {{"file", options_.config_path}, {"diagnostics", DiagnosticsJson(outcome)}});
  return MakeResponse(ResultCode::kError, text, {{"diagnostics", DiagnosticsJson(outcome)}});
}

void Daemon::Reload(const control::ReloadArguments& args, Reply reply) {
  notifier_.Notify("RELOADING=1\nSTATUS=reloading " + options_.config_path);
  auto finish = [this, reply = std::move(reply)](control::Response response) {
    notifier_.Notify("READY=1\nSTATUS=" + StatusLine());
    reply(std::move(response));
  };
  config::ValidationOutcome outcome = config::LoadAndValidate(options_.config_path);
  if (!outcome.ok()) return finish(RejectConfig(outcome));
  config::Config next = std::move(*outcome.config);
  if (next.state_dir != config_.state_dir || next.control.socket != config_.control.socket) {
    std::string text = "state_dir and control.socket change only when smsupd restarts; nothing changed";
    spdlog::error("CONFIG_REJECTED {}", text);
    AddEvent(control::kEventConfigRejected, {{"file", options_.config_path}, {"reason", text}});
    return finish(MakeResponse(ResultCode::kError, text));
  }
  // A change that needs a restart stays pending across later reloads until
  // OpenSM restarts.
  for (const auto& option : config::OptionsNeedingRestart(config_, next))
    pending_restart_.insert(option);
  if (next.sm.opensm.binary != config_.sm.opensm.binary) pending_restart_.insert("sm.opensm.binary");
  if (next.sm.port_guid && *next.sm.port_guid != port_guid_) pending_restart_.insert("sm.port_guid");
  std::vector<std::string> restart(pending_restart_.begin(), pending_restart_.end());
  FinishReload(std::move(next), restart, args, std::move(finish));
}

void Daemon::FinishReload(config::Config next, const std::vector<std::string>& restart_options,
                          const control::ReloadArguments& args, Reply reply) {
  Guid port = next.sm.port_guid.value_or(port_guid_);
  auto hash = WriteRenderedConfig(next, port, CommandedPriority());
  if (!hash) {
    spdlog::error("CONFIG_NOT_WRITTEN {}", hash.error().message);
    return reply(MakeResponse(ResultCode::kError, "cannot write OpenSM's files: " + hash.error().message));
  }
  config_ = std::move(next);
  bool changed = *hash != generation_.hash;
  if (changed) generation_ = {generation_.number + 1, *hash};
  if (Status saved = WriteGeneration(StatePaths{config_.state_dir}, generation_); !saved)
    spdlog::warn("GENERATION_NOT_SAVED {}", saved.message());
  nlohmann::json details = {{"generation", generation_.number}, {"hash", generation_.hash},
                            {"restart_needed", restart_options}};
  std::string joined;
  for (const auto& option : restart_options) joined += (joined.empty() ? "" : ", ") + option;
  if (!restart_options.empty() && args.restart) {
    port_guid_ = port;
    spdlog::info("CONFIG_APPLIED generation {}: restarting OpenSM for {}", generation_.number, joined);
    AddEvent(control::kEventConfigApplied, details);
    OpenSmLaunchSpec spec{config_.sm.opensm.binary, StatePaths{config_.state_dir}.OpenSmConf(),
                          config_.state_dir, port_guid_};
    supervisor_->Restart(spec, [this, reply = std::move(reply), joined](Status started) {
      if (!started) return reply(MakeResponse(ResultCode::kError, "OpenSM restart failed: " + started.message()));
      reply(MakeResponse(ResultCode::kSuccess, "config generation " + std::to_string(generation_.number) +
                                                   " applied; OpenSM restarted for " + joined));
    });
    return;
  }
  Status hup = supervisor_->Hangup();
  spdlog::info("CONFIG_APPLIED generation {} hash {}{}", generation_.number, generation_.hash,
               hup ? "; OpenSM re-reads it (SIGHUP)" : "; OpenSM not running: " + hup.message());
  AddEvent(control::kEventConfigApplied, details);
  std::string text = changed ? "config generation " + std::to_string(generation_.number) + " applied"
                             : "config unchanged (generation " + std::to_string(generation_.number) + ")";
  if (!restart_options.empty()) {
    std::string why = "OpenSM restart needed for " + joined + " (smctl reload --restart)";
    spdlog::warn("RESTART_NEEDED {}", why);
    health_.Raise("RESTART_NEEDED", why);
    text += "; " + why;
  }
  PollSoon();
  reply(MakeResponse(ResultCode::kSuccess, text, details));
}

}  // namespace smsupd
