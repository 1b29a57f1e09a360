// Starting an apply: load + validate, plan, save the generation, install the
// files, SIGHUP (or restart) OpenSM. config_apply_verify.cc continues with
// the wait for the sweep, the verification and the decision.
#include "daemon/config_apply.h"

#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "config/opensm_options.h"
#include "config/validator.h"
#include "daemon/config_apply_run.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

ApplyRequest MakeApplyRequest(std::string reason, std::string applied_by,
                              std::optional<std::uint32_t> uid) {
  ApplyRequest request;
  request.reason = std::move(reason);
  request.applied_by = std::move(applied_by);
  request.uid = uid;
  return request;
}

ApplyStep DecideAfterVerification(const VerifyRound& round) {
  bool can_roll_back = round.has_previous && !round.is_rollback;
  if (!round.local_master) {
    if (round.skipped || round.timed_out) return ApplyStep::kSkipped;
    return round.ok && !round.default_fallback ? ApplyStep::kVerified : ApplyStep::kDrift;
  }
  // OpenSM itself said the file is bad, or the fabric shows its fallback:
  // another sweep would read the same file.
  if (round.partition_error || round.default_fallback)
    return can_roll_back ? ApplyStep::kRollBack : ApplyStep::kFailed;
  if (round.timed_out) return ApplyStep::kFailed;  // no evidence against the config
  if (round.skipped) return ApplyStep::kSkipped;
  if (round.ok) return ApplyStep::kVerified;
  // OpenSM 3.3.23 sometimes completes a port only on the next heavy sweep.
  if (round.attempt < 2) return ApplyStep::kResweep;
  return can_roll_back ? ApplyStep::kRollBack : ApplyStep::kFailed;
}

const char* ApplyStepName(ApplyStep step) {
  switch (step) {
    case ApplyStep::kVerified: return "verified";
    case ApplyStep::kSkipped: return "skipped";
    case ApplyStep::kResweep: return "resweep";
    case ApplyStep::kRollBack: return "roll-back";
    case ApplyStep::kFailed: return "failed";
    case ApplyStep::kDrift: return "drift";
  }
  return "unknown";
}

const char* VerificationStateOf(ApplyStep step) {
  switch (step) {
    case ApplyStep::kVerified: return "verified";
    case ApplyStep::kSkipped: return "skipped";
    case ApplyStep::kDrift: return "drift";
    case ApplyStep::kResweep: return "pending";
    case ApplyStep::kRollBack:
    case ApplyStep::kFailed: return "failed";
  }
  return "failed";
}

namespace {

nlohmann::json DiagnosticsOf(const config::ValidationOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : outcome.diagnostics) list.push_back(d.Format());
  return list;
}

}  // namespace

// Loads what `request` names: the config file, or a stored generation's YAML.
Result<config::Config> Daemon::LoadForApply(const ApplyRequest& request) {
  std::string file = options_.config_path;
  config::ValidationOutcome outcome;
  if (request.from_generation) {
    auto stored = generations_->Load(*request.from_generation);
    if (!stored) return stored.error();
    file = stored->meta.source_path.empty() ? options_.config_path : stored->meta.source_path;
    outcome = config::ValidateText(stored->files.yaml, file);
  } else {
    outcome = config::LoadAndValidate(file);
  }
  if (outcome.ok()) return std::move(*outcome.config);
  std::string text = file + ": " + std::to_string(outcome.ErrorCount()) + " error(s); nothing changed";
  for (const auto& d : outcome.diagnostics) text += "\n" + d.Format();
  spdlog::error("CONFIG_REJECTED by {} ({}): {}", request.applied_by, request.reason, text);
  AddEvent(control::kEventConfigRejected, {{"file", file}, {"by", request.applied_by},
                                           {"reason", request.reason},
                                           {"diagnostics", DiagnosticsOf(outcome)}});
  return Error{text};
}

void Daemon::StartApply(ApplyRequest request, Reply reply) {
  EnsureApplyParts();
  if (apply_run_) {
    if (request.reason == "signal") {
      reload_queued_ = true;  // applied once the running one is done
      spdlog::info("RELOAD_QUEUED a SIGHUP arrived while generation {} is being applied",
                   apply_run_->generation);
      return reply(MakeResponse(ResultCode::kBusy, "queued"));
    }
    // An invalid file is refused as invalid, busy or not: config management
    // must get the diagnostics, not "try again".
    if (auto next = LoadForApply(request); !next)
      return reply(MakeResponse(ResultCode::kError, next.error().message));
    return reply(MakeResponse(ResultCode::kBusy, "generation " + std::to_string(apply_run_->generation) +
                                                     " is being applied; try again when it is done"));
  }
  notifier_.Notify("RELOADING=1\nSTATUS=applying " + options_.config_path);
  auto run = std::make_shared<ApplyRun>();
  run->request = std::move(request);
  run->reply = std::move(reply);
  auto next = LoadForApply(run->request);
  if (!next) return RefuseApply(run, next.error().message);
  run->next = std::move(*next);
  if (run->next.state_dir != config_.state_dir || run->next.control.socket != config_.control.socket)
    return RefuseApply(run, "state_dir and control.socket change only when smsupd restarts; nothing changed");
  apply_run_ = run;
  PrepareApply(run);
  InstallAndSignal(run);
}

void Daemon::RefuseApply(const std::shared_ptr<ApplyRun>& run, const std::string& text) {
  if (text.find("error(s); nothing changed") == std::string::npos) {  // not logged yet
    spdlog::error("CONFIG_REJECTED by {} ({}): {}", run->request.applied_by, run->request.reason, text);
    AddEvent(control::kEventConfigRejected,
             {{"by", run->request.applied_by}, {"reason", run->request.reason}, {"text", text}});
  }
  notifier_.Notify("READY=1\nSTATUS=" + StatusLine());
  if (run->reply) run->reply(MakeResponse(ResultCode::kError, text));
}

// Plan, pending restarts, the generation number, the deadline.
void Daemon::PrepareApply(const std::shared_ptr<ApplyRun>& run) {
  const config::Config& next = run->next;
  run->plan = PlanApply(config_, next, known_ports_, port_guid_);
  for (const auto& option : config::OptionsNeedingRestart(config_, next)) pending_restart_.insert(option);
  if (next.sm.opensm.binary != config_.sm.opensm.binary) pending_restart_.insert("sm.opensm.binary");
  if (next.sm.port_guid && *next.sm.port_guid != port_guid_) pending_restart_.insert("sm.port_guid");
  run->restart_needed.assign(pending_restart_.begin(), pending_restart_.end());
  run->previous = generation_.number;
  run->hash = config::ConfigHash(next.source_text);
  run->unchanged = !run->request.from_generation && run->hash == generation_.hash && generation_.number > 0;
  run->generation = run->unchanged ? generation_.number : generations_->NextNumber();
  run->timeout = run->request.timeout.value_or(std::chrono::seconds(next.verify.timeout_s));
  run->deadline = std::chrono::steady_clock::now() + run->timeout;
}

}  // namespace smsupd
