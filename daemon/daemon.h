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
#include "config/validator.h"
#include "daemon/clock.h"
#include "daemon/config_files.h"
#include "daemon/control/control_server.h"
#include "daemon/control/event_log.h"
#include "daemon/failover_controller.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/health_problems.h"
#include "daemon/notifier.h"
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

  // Reload: re-read, validate, render, replace the files, SIGHUP OpenSM.
  void Reload(const control::ReloadArguments& args, Reply reply);
  void FinishReload(config::Config next, const std::vector<std::string>& restart_options,
                    const control::ReloadArguments& args, Reply reply);
  control::Response RejectConfig(const config::ValidationOutcome& outcome);

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
};

}  // namespace smsupd
