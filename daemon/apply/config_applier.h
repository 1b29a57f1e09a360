// The config apply pipeline: reload, SIGHUP and rollback all come here.
//
//   validate -> plan -> save generation N -> install files -> SIGHUP OpenSM
//   (restart only when a startup-only option changed and --restart was
//   given) -> wait for OpenSM's next "SUBNET UP" (with a deadline: the line
//   may never reach the file) -> verify the P_Key tables on the fabric (MAD
//   thread) -> decide (apply_decision.h): verified / one more sweep / roll
//   back to the generation that was current / drift on a STANDBY.
//
// One apply runs at a time: a command arriving meanwhile is refused
// (kApplyInProgress); a SIGHUP arriving meanwhile is remembered and applied after it.
// The applier owns the run in progress, the queued reload, the startup-only
// options waiting for a restart, the end ports last seen (for plans) and the
// generation store; it is the one writer of RunningConfig. It reaches
// OpenSM only through OpenSmConfigSink, the fabric through the MadWorker,
// the operator through the Reporter, and time through a Clock.
//
// Files: apply_install.cc (save, install, signal), apply_verify.cc (sweep
// wait, verification, decision), apply_finish.cc (record, reply, roll back),
// generation_commands.cc (plan, history, rollback).
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "config/pkey_tables.h"
#include "daemon/apply/apply_decision.h"
#include "daemon/apply/request_jobs.h"
#include "daemon/apply/generation_store.h"
#include "daemon/apply/running_config.h"
#include "daemon/apply/twin_verdict.h"
#include "daemon/clock.h"
#include "daemon/control/command_router.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/opensm/opensm_control.h"
#include "daemon/opensm/opensm_log_watcher.h"
#include "daemon/status/reporter.h"
#include "daemon/status/subnet_observation.h"

namespace smsupd {

struct ApplyRun;  // apply_run.h

// What the applier needs from the rest of the daemon.
struct ApplyHooks {
  std::function<SubnetObservation()> subnet;  // the last watch round's picture
  // The service manager's RELOADING=1 (with a STATUS= text) and READY=1.
  std::function<void(const std::string& status)> reloading;
  std::function<void()> reloaded;
  std::function<void()> poll_soon;  // a watch round now (after OpenSM was told)
  // Restarts OpenSM the zero-gap way (FailoverController::RestartOpenSm:
  // a MASTER hands over first); `done` once it is back, or refused.
  std::function<void(bool force, std::function<void(bool ok, const std::string& text)> done)>
      restart_opensm;
  // The twin gate (docs/twin.md "The twin as a gate"): runs `next` on the
  // twin and calls `done` once, on the loop, with the verdict (kFailed when
  // the twin cannot run, a twin already running included). Unset: every
  // gated reload counts the twin as failed.
  std::function<void(const config::Config& next, std::function<void(TwinVerdict)> done)> twin_gate;
};

class ConfigApplier {
 public:
  using Reply = control::CommandHandler::Reply;

  // `config_path`: the YAML file reload reads. Every reference must outlive
  // the applier.
  ConfigApplier(boost::asio::io_context& io, const Clock& clock, std::string config_path,
                RunningConfig& running, OpenSmConfigSink& opensm, MadWorker& worker,
                Reporter& reporter, ApplyHooks hooks);
  ~ConfigApplier();

  // Start-up: installs the running config's files, numbers its generation
  // (the same YAML as last time keeps its number) and stores it.
  Status ApplyAtStart();
  // reload, validate, plan, history, rollback.
  void RegisterCommands(control::CommandRouter& router);
  // SIGHUP (systemctl reload): applies the config file.
  void Reload();
  // The local OpenSM (re)started: it reads the current files, so no
  // startup-only option waits for a restart any more.
  void OpenSmStarted();
  // OpenSM's log said partitions.conf was refused.
  void PartitionConfigRefused(const std::string& line);
  // The daemon stops: no new step starts. A caller waiting for the apply in
  // progress is told it was not verified; its generation stays installed
  // (and current), its verification recorded as "interrupted".
  void Stop();

  bool busy() const { return run_ != nullptr; }
  // The farthest CA port the last verification's walk found (the failover
  // timeline watches it for the new master's SM LID).
  const std::optional<DiscoveredPort>& far_port() const { return far_port_; }

 private:
  using RunPtr = std::shared_ptr<ApplyRun>;

  void StartApply(ApplyRequest request, Reply reply);
  Result<config::Config> LoadForApply(const ApplyRequest& request, nlohmann::json* refusal);
  void RefuseApply(const RunPtr& run, const std::string& text,
                   const nlohmann::json& arguments = nlohmann::json::object());
  void PrepareApply(const RunPtr& run);
  void StartTwinGate(const RunPtr& run);
  void TwinGateDone(const RunPtr& run, TwinVerdict verdict);
  void SaveCurrentGenerationIfMissing();
  Status SaveGeneration(const RunPtr& run, Guid port);
  void InstallAndSignal(const RunPtr& run);
  void UndoInstall(const RunPtr& run);
  void LogApplied(const RunPtr& run);
  void SignalOpenSm(const RunPtr& run, Guid port);
  void AfterSignal(const RunPtr& run);
  void StartSweepWait(const RunPtr& run);
  void PollForSweep(const RunPtr& run);
  void VerifyApplied(const RunPtr& run);
  void Decide(const RunPtr& run);
  void RecordVerification(const RunPtr& run);
  void FinishApply(const RunPtr& run);
  void RollBackAfter(const RunPtr& failed);
  void EndApply();
  std::string ApplyText(const ApplyRun& run) const;
  std::string VerificationText(const ApplyRun& run) const;
  nlohmann::json VerificationJson(const ApplyRun& run, bool final) const;
  nlohmann::json ApplyArguments(const ApplyRun& run, bool final = false) const;

  void HandleReload(const control::Request& request, const control::Caller& caller, Reply reply);
  void HandleValidate(const control::Request& request, const control::Caller& caller, Reply reply);
  void HandlePlan(const control::Request& request, const control::Caller& caller, Reply reply);
  // Runs `job` on the caller's lane of jobs_, answering `reply` if it fails
  // or is refused (then false).
  bool SubmitJob(const control::Caller& caller, const char* what, RequestJobs::Job job, Reply reply);
  void HandleHistory(Reply reply);
  void HandleRollback(const control::Request& request, const control::Caller& caller, Reply reply);

  boost::asio::io_context& io_;
  const Clock& clock_;
  std::string config_path_;
  RunningConfig& running_;
  OpenSmConfigSink& opensm_;
  MadWorker& worker_;
  Reporter& reporter_;
  ApplyHooks hooks_;
  GenerationStore generations_;

  RunPtr run_;                                   // the apply in progress
  bool reload_queued_ = false;                   // a SIGHUP came during an apply
  std::set<std::string> pending_restart_;        // startup-only changes not yet in effect
  std::vector<config::FabricPort> known_ports_;  // end ports of the last verification
  std::optional<DiscoveredPort> far_port_;       // the farthest CA port it found
  bool stopping_ = false;
  // The validation not yet started per lane (owner, member): every
  // `validate` arriving meanwhile joins it, so a flood of them costs one
  // validation at a time.
  struct ValidationBatch;
  std::shared_ptr<ValidationBatch> pending_validation_[2];
  // Validates and plans off the event loop. Last member: its destructor
  // waits for the running jobs, which read nothing of the above.
  RequestJobs jobs_;
};

}  // namespace smsupd
