// The smsupd daemon: loads the config, resolves the local port, renders
// OpenSM's files, runs OpenSM (OpenSmSupervisor), serves smctl
// (control::ControlServer, this class is its CommandHandler), polls the
// subnet and fails over (FailoverController) and speaks to systemd (Notifier).
//
// Start-up order (READY=1 only when all of it worked): config -> control
// socket bound (a live socket is never taken over: one daemon per config) ->
// port GUID -> files rendered -> OpenSM started or adopted -> READY=1.
// Nothing after OpenSM's start can fail, so a failed start never leaves an
// OpenSM behind. SIGTERM/SIGINT: stop OpenSM cleanly, then exit. SIGHUP: Reload().
// Everything runs on one io_context thread, plus the MAD thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "config/config.h"
#include "config/pkey_tables.h"
#include "config/validator.h"
#include "daemon/clock.h"
#include "daemon/config_apply.h"
#include "daemon/config_files.h"
#include "daemon/control/control_server.h"
#include "daemon/control/event_log.h"
#include "daemon/failover_controller.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/generations/generation_store.h"
#include "daemon/health_problems.h"
#include "daemon/notifier.h"
#include "daemon/opensm_log_watcher.h"
#include "daemon/opensm_supervisor.h"
#include "daemon/pidfd_process_launcher.h"
#include "daemon/process_table.h"
#include "daemon/subnet_observer.h"

namespace smsupd {

// A stable log ID as an event kind: OPENSM_EXITED -> "opensm-exited".
std::string EventKindOf(std::string_view log_id);

struct DaemonOptions {
  std::string config_path = "/etc/smsupd/smsupd.yaml";
  // How long start-up may wait for the local port (a simulated port blocks
  // while no simulator listens).
  std::chrono::milliseconds port_deadline{15000};
  // The fabric access for a port (sm.port_guid, or absent: the only one).
  // Empty: UmadFabric. Tests substitute a fake.
  std::function<std::shared_ptr<Fabric>(std::optional<Guid>)> make_fabric;
  // Back-off and stop deadline of the OpenSM supervisor.
  SupervisorTuning opensm_tuning;
};

class Daemon : public control::CommandHandler, public FailoverActuator {
 public:
  Daemon(DaemonOptions options, Notifier& notifier);
  ~Daemon() override;

  // Runs until SIGTERM/SIGINT; returns the process exit code.
  int Run();

  void Handle(const control::Request& request, const control::Caller& caller,
              Reply reply) override;

  // The sm_priority the failover policy currently asks of OpenSM; every
  // rendering of opensm.conf uses it (nullopt: sm.priority).
  std::optional<int> CommandedPriority() const;

 private:
  Status StartUp();
  Result<Guid> ResolvePortGuid();
  Status ApplyInitialConfig(Guid port_guid);
  void WaitForSignals();
  void Shutdown();
  void StartWatchdog();

  // SIGHUP / systemctl reload: applies the config file (StartApply).
  void Reload(const control::ReloadArguments& args, Reply reply);

  control::StatusWire BuildStatus() const;
  std::string StatusLine() const;
  void PublishStatus();
  void OnSupervisorEvent(const OpenSmEvent& event);
  void OnSubnetPoll(const SubnetObservation& seen, const std::vector<ObservedChange>& changes);
  void AddEvent(std::string_view kind, nlohmann::json details);
  // Another subnet poll as soon as possible (after a reload, an exit).
  void PollSoon();

  // --- failover (issue 5): daemon_failover.cc ---
  policy::PolicyConfig MakePolicyConfig() const;
  FailoverTiming MakeFailoverTiming() const;
  void HandleFailover(const control::Request& request, Reply reply);
  void SetLocalPriority(int priority) override;
  void StartOpenSm(int priority, bool restart) override;
  void StopOpenSm() override;
  void Problem(const std::string& id, const std::string& text, bool raised) override;
  void FailoverEvent(const std::string& kind, const std::string& text) override;
  void Observed(const SubnetObservation& seen) override;
  void SendReady();
  void FinishStop();

  DaemonOptions options_;
  Notifier& notifier_;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer watchdog_timer_;
  SteadyClock clock_;
  PidfdProcessLauncher launcher_;
  ProcFsProcessTable processes_;
  control::EventLog events_;
  HealthProblems health_;

  config::Config config_;
  Guid port_guid_ = 0;
  ConfigGeneration generation_;
  std::unique_ptr<MadWorker> worker_;
  std::unique_ptr<OpenSmSupervisor> supervisor_;
  std::unique_ptr<control::ControlServer> server_;
  std::unique_ptr<FailoverController> failover_;
  SubnetObservation seen_;               // the last round, for change events
  std::optional<int> rendered_priority_;  // sm_priority in opensm.conf now
  boost::asio::steady_timer stop_timer_;  // SIGTERM: exit even if a step hangs
  bool ready_sent_ = false;
  bool finished_ = false;
  std::set<std::string> pending_restart_;  // startup-only changes not yet in effect
  std::string published_status_;
  bool opensm_has_exited_ = false;
  bool first_poll_done_ = false;
  bool stopping_ = false;
  int exit_code_ = 0;

  // --- config apply (issue 6): config_apply*.cc, config_commands.cc ---
  struct ApplyRun;  // config_apply_run.h
  // Creates the generation store and starts the OpenSM log watcher (once);
  // stores the running generation if it is not stored yet. Call after the
  // initial config is applied; the first apply calls it otherwise.
  void EnsureApplyParts();
  void StartApply(ApplyRequest request, Reply reply);
  Result<config::Config> LoadForApply(const ApplyRequest& request);
  void RefuseApply(const std::shared_ptr<ApplyRun>& run, const std::string& text);
  void PrepareApply(const std::shared_ptr<ApplyRun>& run);
  void SaveCurrentGenerationIfMissing();
  Status SaveGeneration(const std::shared_ptr<ApplyRun>& run, Guid port);
  void InstallAndSignal(const std::shared_ptr<ApplyRun>& run);
  void LogApplied(const std::shared_ptr<ApplyRun>& run);
  void SignalOpenSm(const std::shared_ptr<ApplyRun>& run, Guid port);
  void AfterSignal(const std::shared_ptr<ApplyRun>& run);
  void StartSweepWait(const std::shared_ptr<ApplyRun>& run);
  void PollForSweep(const std::shared_ptr<ApplyRun>& run);
  void VerifyApplied(const std::shared_ptr<ApplyRun>& run);
  void Decide(const std::shared_ptr<ApplyRun>& run);
  void RecordVerification(const std::shared_ptr<ApplyRun>& run);
  void FinishApply(const std::shared_ptr<ApplyRun>& run);
  void RollBackAfter(const std::shared_ptr<ApplyRun>& failed);
  void EndApply();
  std::string ApplyText(const ApplyRun& run) const;
  std::string VerificationText(const ApplyRun& run) const;
  nlohmann::json VerificationJson(const ApplyRun& run, bool final) const;
  nlohmann::json ApplyArguments(const ApplyRun& run, bool final = false) const;
  std::string OpenSmLogPath() const;
  // OpenSM log lines: partition errors end an apply; the failover policy
  // wants kSmKeyMismatch (split brain).
  void OnOpenSmLogEvent(const OpenSmLogEvent& event);
  void HandlePlan(const control::Request& request, Reply reply);
  void HandleHistory(Reply reply);
  void HandleRollback(const control::Request& request, const control::Caller& caller, Reply reply);

  std::unique_ptr<GenerationStore> generations_;
  std::unique_ptr<OpenSmLogWatcher> log_watcher_;
  std::shared_ptr<ApplyRun> apply_run_;          // the apply in progress
  bool reload_queued_ = false;                   // a SIGHUP came during an apply
  std::vector<config::FabricPort> known_ports_;  // end ports of the last verification
  // --- end config apply ---
};

}  // namespace smsupd
