// The install step of an apply: generation saved first, then the files, then
// the current pointer (a crash in between leaves the old files current, or
// the new ones with a generation that describes them), then OpenSM told.
#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "daemon/config_apply_run.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

std::string NowIso() {
  return control::FormatRfc3339Millis(std::chrono::system_clock::now());
}

}  // namespace

std::string Daemon::OpenSmLogPath() const {
  return config_.sm.opensm.log_file.empty() ? config_.state_dir + "/opensm.log"
                                            : config_.sm.opensm.log_file;
}

// The store and the log watcher exist from the first apply on (or from
// start-up, when the daemon calls this there).
void Daemon::EnsureApplyParts() {
  if (!generations_) generations_ = std::make_unique<GenerationStore>(config_.state_dir);
  if (!log_watcher_) {
    log_watcher_ = std::make_unique<OpenSmLogWatcher>(
        io_, OpenSmLogPath(), std::chrono::milliseconds(100),
        [this](const OpenSmLogEvent& event) { OnOpenSmLogEvent(event); });
    log_watcher_->Start();
  }
  SaveCurrentGenerationIfMissing();
}

// The generation the daemon started with (or that an older smsupd recorded
// only as a counter) becomes a stored one, so it can be rolled back to.
void Daemon::SaveCurrentGenerationIfMissing() {
  if (generation_.number == 0 || generations_->Exists(generation_.number)) return;
  StatePaths paths{config_.state_dir};
  auto opensm_conf = ReadWholeFile(paths.OpenSmConf());
  auto partitions = ReadWholeFile(paths.PartitionsConf());
  if (!opensm_conf || !partitions) return;
  GenerationMeta meta;
  meta.generation = generation_.number;
  meta.applied_at = NowIso();
  meta.applied_by = "start";
  meta.reason = "start";
  meta.hash = generation_.hash;
  meta.source_path = config_.source_path;
  meta.plan_summary = "running at start";
  meta.verification = {{"state", "skipped"}, {"text", "applied at start"}};
  Status saved = generations_->Save(meta, {config_.source_text, *opensm_conf, *partitions});
  if (!saved) spdlog::warn("GENERATION_NOT_SAVED {}", saved.message());
}

Status Daemon::SaveGeneration(const std::shared_ptr<ApplyRun>& run, Guid port) {
  if (run->unchanged) return Status::Ok();
  GenerationMeta meta;
  meta.generation = run->generation;
  meta.applied_at = NowIso();
  meta.applied_by = run->request.applied_by;
  meta.uid = run->request.uid;
  meta.reason = run->request.reason;
  meta.hash = run->hash;
  meta.source_path = run->next.source_path;
  meta.plan_summary = run->plan.summary;
  config::RenderedFiles files = RenderConfig(run->next, port, CommandedPriority());
  Status saved = generations_->Save(
      meta, {run->next.source_text, files.opensm_conf, files.partitions_conf});
  if (!saved) return saved;
  if (Status pruned = generations_->Prune(run->next.generations.keep, run->generation); !pruned)
    spdlog::warn("GENERATION_NOT_PRUNED {}", pruned.message());
  return Status::Ok();
}

void Daemon::InstallAndSignal(const std::shared_ptr<ApplyRun>& run) {
  Guid port = run->next.sm.port_guid.value_or(port_guid_);
  if (Status saved = SaveGeneration(run, port); !saved) {
    apply_run_.reset();
    return RefuseApply(run, "cannot save generation " + std::to_string(run->generation) + ": " +
                                saved.message() + "; nothing changed");
  }
  auto hash = WriteRenderedConfig(run->next, port, CommandedPriority());
  if (!hash) {
    apply_run_.reset();
    spdlog::error("CONFIG_NOT_WRITTEN {}", hash.error().message);
    return RefuseApply(run, "cannot write OpenSM's files: " + hash.error().message);
  }
  config_ = run->next;
  generation_ = {run->generation, run->hash};
  if (Status current = generations_->SetCurrent(run->generation, run->hash); !current)
    spdlog::warn("GENERATION_NOT_SAVED {}", current.message());
  LogApplied(run);
  run->local_master = seen_.local_sm && seen_.local_sm->state == SmState::kMaster;
  run->master_port = seen_.master ? seen_.master->info.guid : (run->local_master ? port_guid_ : 0);
  log_watcher_->PollNow();  // lines from before the signal are not this sweep's
  run->subnet_up_baseline = log_watcher_->subnet_up_count();
  SignalOpenSm(run, port);
}

void Daemon::LogApplied(const std::shared_ptr<ApplyRun>& run) {
  const std::string& by = run->request.applied_by;
  spdlog::info("CONFIG_APPLIED generation {} hash {} by {} ({}): {}", run->generation, run->hash,
               by, run->request.reason, run->plan.summary);
  AddEvent(control::kEventConfigApplied,
           {{"generation", run->generation}, {"hash", run->hash}, {"by", by},
            {"reason", run->request.reason}, {"summary", run->plan.summary},
            {"unchanged", run->unchanged}, {"restart_needed", run->restart_needed}});
}

// SIGHUP, or a restart when a startup-only option changed and one is allowed.
void Daemon::SignalOpenSm(const std::shared_ptr<ApplyRun>& run, Guid port) {
  std::string joined;
  for (const auto& option : run->restart_needed) joined += (joined.empty() ? "" : ", ") + option;
  if (!run->restart_needed.empty() && run->request.restart) {
    port_guid_ = port;
    run->restarting = true;
    pending_restart_.clear();
    health_.Clear("RESTART_NEEDED");
    spdlog::info("OPENSM_RESTART_FOR_CONFIG generation {}: {}", run->generation, joined);
    OpenSmLaunchSpec spec{config_.sm.opensm.binary, StatePaths{config_.state_dir}.OpenSmConf(),
                          config_.state_dir, port_guid_};
    supervisor_->Restart(spec, [this, run](Status started) {
      if (!started) spdlog::error("OPENSM_RESTART_FAILED {}", started.message());
      AfterSignal(run);
    });
    return;
  }
  if (Status hup = supervisor_->Hangup(); !hup)
    spdlog::warn("OPENSM_NOT_SIGNALLED {}", hup.message());
  if (!run->restart_needed.empty()) {
    std::string why = "OpenSM restart needed for " + joined + " (smctl reload --restart)";
    spdlog::warn("RESTART_NEEDED {}", why);
    health_.Raise("RESTART_NEEDED", why);
  }
  AfterSignal(run);
}

// Without --wait the caller hears now; verification goes on.
void Daemon::AfterSignal(const std::shared_ptr<ApplyRun>& run) {
  PollSoon();
  notifier_.Notify("READY=1\nSTATUS=" + StatusLine());  // the reload itself is done
  if (!run->request.wait && run->reply) {
    run->reply(MakeResponse(ResultCode::kSuccess, ApplyText(*run) + "; verification pending",
                            ApplyArguments(*run)));
    run->reply = nullptr;
  }
  StartSweepWait(run);
}

}  // namespace smsupd
