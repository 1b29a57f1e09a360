// The install step of an apply: generation saved first, then the files, then
// the current pointer (a crash in between leaves the old files current, or
// the new ones with a generation that describes them), then OpenSM told.
#include <spdlog/spdlog.h>

#include "common/atomic_file.h"
#include "common/problems.h"
#include "daemon/apply/apply_fault_point.h"
#include "daemon/apply/apply_run.h"
#include "common/control_wire.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

std::string NowIso() {
  return control::FormatRfc3339Millis(std::chrono::system_clock::now());
}

}  // namespace

// The generation the daemon started with (or that an older smsupd recorded
// only as a counter) becomes a stored one, so it can be rolled back to.
void ConfigApplier::SaveCurrentGenerationIfMissing() {
  const ConfigGeneration& generation = running_.generation;
  if (generation.number == 0 || generations_.Exists(generation.number)) return;
  StatePaths paths{running_.config.state_dir};
  auto opensm_conf = ReadWholeFile(paths.OpenSmConf());
  auto partitions = ReadWholeFile(paths.PartitionsConf());
  if (!opensm_conf || !partitions) return;
  GenerationMeta meta;
  meta.generation = generation.number;
  meta.applied_at = NowIso();
  meta.applied_by = "start";
  meta.reason = "start";
  meta.hash = generation.hash;
  meta.source_path = running_.config.source_path;
  meta.plan_summary = "running at start";
  meta.verification = {{"state", "skipped"}, {"text", "applied at start"}};
  Status saved = generations_.Save(meta, {running_.config.source_text, *opensm_conf, *partitions});
  if (!saved) spdlog::warn("GENERATION_NOT_SAVED {}", saved.message());
}

Status ConfigApplier::SaveGeneration(const RunPtr& run, Guid port) {
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
  config::RenderedFiles files = opensm_.Render(run->next, port);
  return generations_.Save(meta, {run->next.source_text, files.opensm_conf, files.partitions_conf});
}

void ConfigApplier::InstallAndSignal(const RunPtr& run) {
  Guid port = run->next.sm.port_guid.value_or(running_.port_guid);
  if (Status saved = SaveGeneration(run, port); !saved) {
    run_.reset();
    return RefuseApply(run, "cannot save generation " + std::to_string(run->generation) + ": " +
                                saved.message() + "; nothing changed");
  }
  ReachedApplyStep("generation-saved");
  auto hash = opensm_.Install(run->next, port);
  if (!hash) {
    run_.reset();
    spdlog::error("CONFIG_NOT_WRITTEN {}", hash.error().message);
    UndoInstall(run);
    return RefuseApply(run, "cannot write OpenSM's files: " + hash.error().message + "; nothing changed");
  }
  ReachedApplyStep("files-installed");
  running_.config = run->next;
  running_.generation = {run->generation, run->hash};
  if (Status current = generations_.SetCurrent(run->generation, run->hash); !current)
    spdlog::warn("GENERATION_NOT_SAVED {}", current.message());
  ReachedApplyStep("current-set");
  // Only now: a refused apply must not have cost an old generation.
  if (!run->unchanged)
    if (Status pruned = generations_.Prune(run->next.generations.keep, run->generation); !pruned)
      spdlog::warn("GENERATION_NOT_PRUNED {}", pruned.message());
  LogApplied(run);
  const SubnetObservation seen = hooks_.subnet ? hooks_.subnet() : SubnetObservation{};
  run->local_master = seen.local_sm && seen.local_sm->state == SmState::kMaster;
  run->master_port =
      seen.master ? seen.master->info.guid : (run->local_master ? running_.port_guid : 0);
  run->subnet_up_baseline = opensm_.SweepsSeen();  // lines from before the signal are not this sweep's
  SignalOpenSm(run, port);
}

// The files are replaced one after the other: one may already be the new
// config's. The config in force is written back and the generation that
// never became current removed.
void ConfigApplier::UndoInstall(const RunPtr& run) {
  StatePaths paths{running_.config.state_dir};
  config::RenderedFiles in_force = opensm_.Render(running_.config, running_.port_guid);
  auto opensm_conf = ReadWholeFile(paths.OpenSmConf());
  auto partitions = ReadWholeFile(paths.PartitionsConf());
  auto names = ReadWholeFile(paths.NodeNameMap());
  bool intact = opensm_conf && partitions && names && *opensm_conf == in_force.opensm_conf &&
                *partitions == in_force.partitions_conf && *names == in_force.node_name_map;
  if (!intact)
    if (auto restored = opensm_.Install(running_.config, running_.port_guid); !restored)
      spdlog::error("CONFIG_NOT_WRITTEN generation {} could not be written back either: {}",
                    running_.generation.number, restored.error().message);
  if (run->unchanged) return;
  if (Status removed = generations_.Remove(run->generation); !removed)
    spdlog::warn("GENERATION_NOT_PRUNED {}", removed.message());
}

void ConfigApplier::LogApplied(const RunPtr& run) {
  const std::string& by = run->request.applied_by;
  spdlog::info("CONFIG_APPLIED generation {} hash {} by {} ({}): {}", run->generation, run->hash,
               by, run->request.reason, run->plan.summary);
  reporter_.AddEvent(control::kEventConfigApplied,
           {{"generation", run->generation}, {"hash", run->hash}, {"by", by},
            {"reason", run->request.reason}, {"summary", run->plan.summary},
            {"unchanged", run->unchanged}, {"restart_needed", run->restart_needed}});
}

// SIGHUP, or a restart when a startup-only option changed and one is allowed.
void ConfigApplier::SignalOpenSm(const RunPtr& run, Guid port) {
  std::string joined;
  for (const auto& option : run->restart_needed) joined += (joined.empty() ? "" : ", ") + option;
  if (!run->restart_needed.empty() && run->request.restart && hooks_.restart_opensm) {
    running_.port_guid = port;
    run->restarting = true;
    spdlog::info("OPENSM_RESTART_FOR_CONFIG generation {}: {}", run->generation, joined);
    // The failover policy restarts OpenSM: a MASTER hands over first, so
    // the subnet keeps a master; with no standby it refuses unless forced.
    hooks_.restart_opensm(run->request.force, [this, run, joined](bool ok, const std::string& text) {
      if (ok) {
        const SubnetObservation seen = hooks_.subnet ? hooks_.subnet() : SubnetObservation{};
        run->local_master = seen.local_sm && seen.local_sm->state == SmState::kMaster;
        run->subnet_up_baseline = opensm_.SweepsSeen();
        return AfterSignal(run);
      }
      spdlog::error("OPENSM_RESTART_FAILED generation {}: {}", run->generation, text);
      run->restarting = false;
      run->restart_refusal = text;
      const std::string why = "OpenSM restart needed for " + joined + ": " + text;
      spdlog::warn("RESTART_NEEDED {}", why);
      reporter_.RaiseProblem(kProblemRestartNeeded, why);
      if (Status hup = opensm_.Hangup(); !hup) spdlog::warn("OPENSM_NOT_SIGNALLED {}", hup.message());
      AfterSignal(run);
    });
    return;
  }
  if (Status hup = opensm_.Hangup(); !hup)
    spdlog::warn("OPENSM_NOT_SIGNALLED {}", hup.message());
  if (!run->restart_needed.empty()) {
    std::string why = "OpenSM restart needed for " + joined + " (smctl reload --restart)";
    spdlog::warn("RESTART_NEEDED {}", why);
    reporter_.RaiseProblem(kProblemRestartNeeded, why);
  }
  AfterSignal(run);
}

// Without --wait the caller hears now; verification goes on.
void ConfigApplier::AfterSignal(const RunPtr& run) {
  ReachedApplyStep("opensm-signalled");
  if (hooks_.poll_soon) hooks_.poll_soon();
  hooks_.reloaded();  // the reload itself is done
  if (!run->request.wait && run->reply) {
    run->reply(MakeResponse(ResultCode::kSuccess, ApplyText(*run) + "; verification pending",
                            ApplyArguments(*run)));
    run->reply = nullptr;
  }
  StartSweepWait(run);
}

}  // namespace smsupd
