// The applier's life (start-up, commands, signals) and the start of an
// apply: load + validate, plan, pending restarts. apply_install.cc continues
// with saving, installing and signalling.
#include "daemon/apply/config_applier.h"

#include <spdlog/spdlog.h>

#include <mutex>

#include "common/atomic_file.h"
#include "common/problems.h"
#include "config/opensm_options.h"
#include "config/validator.h"
#include "daemon/apply/apply_run.h"
#include "daemon/opensm/rendered_files.h"
#include "common/control_arguments.h"
#include "common/control_wire.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

nlohmann::json DiagnosticsOf(const config::ValidationOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : outcome.diagnostics) list.push_back(d.Format());
  return list;
}

}  // namespace

ConfigApplier::ConfigApplier(boost::asio::io_context& io, const Clock& clock,
                             std::string config_path, RunningConfig& running,
                             OpenSmConfigSink& opensm, MadWorker& worker, Reporter& reporter,
                             ApplyHooks hooks)
    : io_(io), clock_(clock), config_path_(std::move(config_path)), running_(running),
      opensm_(opensm), worker_(worker), reporter_(reporter), hooks_(std::move(hooks)),
      generations_(running.config.state_dir) {}

ConfigApplier::~ConfigApplier() = default;

Status ConfigApplier::ApplyAtStart() {
  StatePaths paths{running_.config.state_dir};
  const ConfigGeneration recorded = ReadGeneration(paths);
  // smsupd may have been killed in the middle of an apply.
  for (const std::string& removed : generations_.RemoveInterrupted(recorded.number))
    spdlog::warn("STATE_DIR_RECOVERED {}", removed);
  auto hash = opensm_.Install(running_.config, running_.port_guid);
  if (!hash) return Error{"cannot write OpenSM's files: " + hash.error().message};
  running_.generation = NextGenerationAtStart(recorded, *hash, generations_.NextNumber());
  Status written = WriteGeneration(paths, running_.generation);
  if (!written) spdlog::warn("GENERATION_NOT_SAVED {}", written.message());
  spdlog::info("CONFIG_APPLIED generation {} hash {} from {}", running_.generation.number,
               running_.generation.hash, running_.config.source_path);
  reporter_.AddEvent(control::kEventConfigApplied, {{"generation", running_.generation.number},
                                                    {"hash", running_.generation.hash},
                                                    {"at", "start"}});
  SaveCurrentGenerationIfMissing();
  return Status::Ok();
}

void ConfigApplier::RegisterCommands(control::CommandRouter& router) {
  using control::Caller;
  using control::Request;
  router.Register("reload", [this](const Request& request, const Caller& caller, Reply reply) {
    HandleReload(request, caller, std::move(reply));
  });
  router.Register("validate", [this](const Request& request, const Caller& caller, Reply reply) {
    HandleValidate(request, caller, std::move(reply));
  });
  router.Register("plan", [this](const Request& request, const Caller& caller, Reply reply) {
    HandlePlan(request, caller, std::move(reply));
  });
  router.Register("history", [this](const Request&, const Caller&, Reply reply) {
    HandleHistory(std::move(reply));
  });
  router.Register("rollback", [this](const Request& request, const Caller& caller, Reply reply) {
    HandleRollback(request, caller, std::move(reply));
  });
}

void ConfigApplier::Stop() {
  stopping_ = true;
  if (!run_) return;
  if (run_->gating) {  // nothing was saved or installed yet
    if (run_->reply) run_->reply(MakeResponse(ResultCode::kError, "smsupd is stopping: the reload was not applied "
                                              "(the twin gate had not answered); nothing changed"));
    run_->reply = nullptr;
    return;
  }
  const std::string text = "smsupd is stopping: generation " + std::to_string(run_->generation) +
                           " is installed but was not verified";
  spdlog::warn("PKEY_NOT_VERIFIED generation {}: {}", run_->generation, text);
  if (Status saved = generations_.SetVerification(
          run_->generation, {{"state", "interrupted"}, {"text", text}});
      !saved)
    spdlog::warn("GENERATION_NOT_SAVED {}", saved.message());
  if (run_->reply) {
    run_->reply(MakeResponse(ResultCode::kError, text, ApplyArguments(*run_)));
    run_->reply = nullptr;
  }
  if (run_->timer) run_->timer->cancel();
}

void ConfigApplier::Reload() {
  StartApply(MakeApplyRequest("signal", "signal"), [](control::Response) {});
}

void ConfigApplier::OpenSmStarted() {
  pending_restart_.clear();  // the new OpenSM reads the current files
  reporter_.ClearProblem(kProblemRestartNeeded);
}

void ConfigApplier::PartitionConfigRefused(const std::string& line) {
  if (!run_) return;
  run_->partition_error = true;
  if (run_->partition_error_line.empty()) run_->partition_error_line = line;
}

void ConfigApplier::HandleReload(const control::Request& request, const control::Caller& caller,
                                 Reply reply) {
  auto args = control::ParseReloadArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  spdlog::info("RELOAD_REQUESTED by uid {} (pid {}){}", caller.uid, caller.pid,
               args->restart ? " with restart allowed" : "");
  ApplyRequest apply = MakeApplyRequest("reload", "uid " + std::to_string(caller.uid), caller.uid);
  apply.restart = args->restart;
  apply.force = args->force;
  apply.wait = args->wait;
  apply.twin = args->twin;
  if (args->timeout_given)
    apply.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(args->timeout_s * 1000));
  StartApply(std::move(apply), std::move(reply));
}

// `validate` without arguments: the config file on disk, as a reload would
// read it. Validating a text sent with the request is smctl's own offline
// work (smctl validate FILE).
// The callers waiting for one validation: they join until it starts, and
// are all answered with its result. Shared by the loop and a job thread.
struct ConfigApplier::ValidationBatch {
  // False once the validation started: the caller needs another one.
  bool Join(Reply reply) {
    std::lock_guard lock(mutex);
    if (started) return false;
    replies.push_back(std::move(reply));
    return true;
  }
  void Start() {
    std::lock_guard lock(mutex);
    started = true;
  }
  void Answer(const control::Response& response) {
    std::vector<Reply> answered;
    {
      std::lock_guard lock(mutex);
      started = true;
      answered.swap(replies);
    }
    for (Reply& reply : answered) reply(response);
  }

  std::mutex mutex;
  bool started = false;
  std::vector<Reply> replies;
};

// Off the loop, like a plan: a large config takes CPU seconds, and a flood
// of validations must not delay the failover watch or the watchdog. The
// file is the daemon's own: every request waiting at the same time gets the
// same answer from one validation.
void ConfigApplier::HandleValidate(const control::Request& request, const control::Caller& caller,
                                   Reply reply) {
  if (!request.arguments.empty())
    return reply(MakeResponse(ResultCode::kUnsupported,
                              "'validate' is not implemented by this daemon"));
  std::shared_ptr<ValidationBatch>& pending =
      pending_validation_[caller.access == control::AccessLevel::kFull ? 0 : 1];
  if (pending && pending->Join(reply)) return;
  auto batch = std::make_shared<ValidationBatch>();
  batch->Join(std::move(reply));
  auto job = [path = config_path_, batch](const Deadline& deadline) {
    batch->Start();
    auto outcome = config::LoadAndValidate(path, deadline);
    batch->Answer(MakeResponse(outcome.ok() ? ResultCode::kSuccess : ResultCode::kError,
                               path + (outcome.ok() ? " is valid" : " is invalid"),
                               {{"valid", outcome.ok()}, {"diagnostics", DiagnosticsOf(outcome)}}));
  };
  if (SubmitJob(caller, "validation", std::move(job),
                [batch](control::Response response) { batch->Answer(response); }))
    pending = std::move(batch);
}

bool ConfigApplier::SubmitJob(const control::Caller& caller, const char* what, RequestJobs::Job job,
                              Reply reply) {
  const auto lane = caller.access == control::AccessLevel::kFull ? RequestJobs::Lane::kOwner
                                                                 : RequestJobs::Lane::kMember;
  auto failed = [reply, what = std::string(what)](const std::string& why) {
    reply(MakeResponse(ResultCode::kError, "the " + what + " " + why + "; nothing changed"));
  };
  const RequestJobs::Submitted submitted = jobs_.Submit(lane, caller.uid, std::move(job), failed);
  if (submitted == RequestJobs::Submitted::kQueued) return true;
  reply(MakeResponse(ResultCode::kBusy, RefusalText(submitted)));
  return false;
}

// Loads what `request` names: the config file, or a stored generation's YAML.
// An invalid or unreadable one sets *refusal to what the refusal carries
// ("valid": false, "unreadable", "diagnostics"), so smctl exits with its
// "invalid" or "unreadable" code, as plan and validate do.
Result<config::Config> ConfigApplier::LoadForApply(const ApplyRequest& request,
                                                   nlohmann::json* refusal) {
  std::string file = config_path_;
  config::ValidationOutcome outcome;
  if (request.from_generation) {
    auto stored = generations_.Load(*request.from_generation);
    if (!stored) return stored.error();
    file = stored->meta.source_path.empty() ? config_path_ : stored->meta.source_path;
    outcome = config::ValidateText(stored->files.yaml, file);
  } else {
    outcome = config::LoadAndValidate(file);
  }
  if (outcome.ok()) return std::move(*outcome.config);
  std::string text = file + ": " + std::to_string(outcome.ErrorCount()) + " error(s); nothing changed";
  for (const auto& d : outcome.diagnostics) text += "\n" + d.Format();
  spdlog::error("CONFIG_REJECTED by {} ({}): {}", request.applied_by, request.reason, text);
  reporter_.AddEvent(control::kEventConfigRejected, {{"file", file}, {"by", request.applied_by},
                                           {"reason", request.reason},
                                           {"diagnostics", DiagnosticsOf(outcome)}});
  *refusal = {{"valid", false}, {"unreadable", outcome.unreadable},
              {"diagnostics", DiagnosticsOf(outcome)}};
  return Error{text};
}

void ConfigApplier::StartApply(ApplyRequest request, Reply reply) {
  SaveCurrentGenerationIfMissing();
  if (run_) {
    if (request.reason == "signal") {
      reload_queued_ = true;  // applied once the running one is done
      spdlog::info("RELOAD_QUEUED a SIGHUP arrived while generation {} is being applied",
                   run_->generation);
      return reply(MakeResponse(ResultCode::kApplyInProgress, "queued"));
    }
    // An invalid file is refused as invalid, busy or not: config management
    // must get the diagnostics, not "try again".
    nlohmann::json refusal = nlohmann::json::object();
    if (auto next = LoadForApply(request, &refusal); !next)
      return reply(MakeResponse(ResultCode::kError, next.error().message, refusal));
    if (run_->gating)
      return reply(MakeResponse(ResultCode::kApplyInProgress,
                                "a reload is being run on the twin; try again when it is done"));
    return reply(MakeResponse(ResultCode::kApplyInProgress, "generation " + std::to_string(run_->generation) +
                                                     " is being applied; try again when it is done"));
  }
  hooks_.reloading("applying " + config_path_);
  auto run = std::make_shared<ApplyRun>();
  run->request = std::move(request);
  run->reply = std::move(reply);
  nlohmann::json refusal = nlohmann::json::object();
  auto next = LoadForApply(run->request, &refusal);
  if (!next) return RefuseApply(run, next.error().message, refusal);
  run->next = std::move(*next);
  if (run->next.state_dir != running_.config.state_dir || run->next.control.socket != running_.config.control.socket)
    return RefuseApply(run, "state_dir and control.socket change only when smsupd restarts; nothing changed");
  run_ = run;
  run->twin_mode = TwinGateFor(run->request, running_.config, run->next, running_.generation.hash);
  if (run->twin_mode != config::TwinGate::kOff) return StartTwinGate(run);
  PrepareApply(run);
  InstallAndSignal(run);
}

// The gate runs before anything is saved, installed or signalled; the
// apply stays "in progress" meanwhile (another reload is refused, a SIGHUP
// queued), while status, failover and every read-only command go on: the
// twin is a child process and a job thread, never the loop.
void ConfigApplier::StartTwinGate(const RunPtr& run) {
  run->gating = true;
  spdlog::info("TWIN_GATE_STARTED apply.twin {} for the reload by {}", config::TwinGateName(run->twin_mode),
               run->request.applied_by);
  if (!hooks_.twin_gate) {
    TwinVerdict none;
    none.failure_kind = "internal";
    none.reasons = {"this daemon runs no twin"};
    return TwinGateDone(run, std::move(none));
  }
  hooks_.twin_gate(run->next, [this, run](TwinVerdict verdict) { TwinGateDone(run, std::move(verdict)); });
}

void ConfigApplier::TwinGateDone(const RunPtr& run, TwinVerdict verdict) {
  if (!run->gating || run_ != run) return;
  run->gating = false;
  if (stopping_) {
    run_.reset();
    return;
  }
  run->twin = VerdictJson(verdict, run->twin_mode);
  const GateStep step = DecideTwinGate(run->twin_mode, verdict.kind);
  std::string reasons;
  for (const std::string& reason : verdict.reasons) reasons += (reasons.empty() ? "" : "; ") + reason;
  const std::string what = verdict.kind == TwinVerdict::Kind::kFailed ? "the twin could not run: " + reasons
                                                                      : "the twin disagrees with the plan: " + reasons;
  nlohmann::json event = run->twin;
  event["by"] = run->request.applied_by;
  event["applied"] = step != GateStep::kRefuse;
  reporter_.AddEvent(control::kEventTwinGate, event);
  if (verdict.kind == TwinVerdict::Kind::kAgrees) {
    spdlog::info("TWIN_GATE_AGREED {}", verdict.summary);
  } else {
    spdlog::warn("TWIN_GATE_{} apply.twin {}: {}",
                 verdict.kind == TwinVerdict::Kind::kFailed ? "FAILED" : "DISAGREED",
                 config::TwinGateName(run->twin_mode), what);
  }
  if (step == GateStep::kRefuse) {
    run_.reset();
    const std::string text = "reload refused by the twin gate: " + what + "; nothing changed";
    spdlog::error("CONFIG_REJECTED by {} ({}): {}", run->request.applied_by, run->request.reason, text);
    reporter_.AddEvent(control::kEventConfigRejected,
                       {{"by", run->request.applied_by}, {"reason", run->request.reason}, {"text", text}});
    hooks_.reloaded();
    nlohmann::json arguments = {{"twin", run->twin}, {"twin_report", verdict.report}};
    if (run->reply) run->reply(MakeResponse(ResultCode::kTwinRefused, text, arguments));
    run->reply = nullptr;
    return EndApply();
  }
  if (step == GateStep::kApplyWithWarning) run->twin_warning = "warning: " + what;
  PrepareApply(run);
  InstallAndSignal(run);
}

void ConfigApplier::RefuseApply(const RunPtr& run, const std::string& text,
                                const nlohmann::json& arguments) {
  if (text.find("error(s); nothing changed") == std::string::npos) {  // not logged yet
    spdlog::error("CONFIG_REJECTED by {} ({}): {}", run->request.applied_by, run->request.reason, text);
    reporter_.AddEvent(control::kEventConfigRejected,
             {{"by", run->request.applied_by}, {"reason", run->request.reason}, {"text", text}});
  }
  hooks_.reloaded();
  if (run->reply) run->reply(MakeResponse(ResultCode::kError, text, arguments));
}

// Plan, pending restarts, the generation number, the deadline.
void ConfigApplier::PrepareApply(const RunPtr& run) {
  const config::Config& next = run->next;
  run->plan = PlanApply(running_.config, next, known_ports_, running_.port_guid);
  for (const auto& option : config::OptionsNeedingRestart(running_.config, next)) pending_restart_.insert(option);
  if (next.sm.opensm.binary != running_.config.sm.opensm.binary) pending_restart_.insert("sm.opensm.binary");
  if (next.sm.port_guid && *next.sm.port_guid != running_.port_guid) pending_restart_.insert("sm.port_guid");
  run->restart_needed.assign(pending_restart_.begin(), pending_restart_.end());
  run->previous = running_.generation.number;
  run->hash = config::ConfigHash(next.source_text);
  // The cabling CSV a YAML names is part of the config (docs/cabling.md):
  // the same YAML over an edited file is a change.
  run->unchanged = !run->request.from_generation && run->hash == running_.generation.hash &&
                   next.cabling.file_sha256 == running_.config.cabling.file_sha256 &&
                   running_.generation.number > 0;
  run->generation = run->unchanged ? running_.generation.number : generations_.NextNumber();
  run->timeout = run->request.timeout.value_or(std::chrono::seconds(next.verify.timeout_s));
  run->deadline = clock_.Now() + run->timeout;
}

}  // namespace smsupd
