// The smsupd daemon: loads the config, resolves the local port, renders
// OpenSM's files, runs OpenSM (OpenSmSupervisor), serves smctl
// (control::ControlServer, this class is its CommandHandler), polls the
// subnet (SubnetObserver) and speaks to systemd (Notifier).
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
#include "daemon/fabric/mad_worker.h"
#include "daemon/health_problems.h"
#include "daemon/notifier.h"
#include "daemon/opensm_supervisor.h"
#include "daemon/pidfd_process_launcher.h"
#include "daemon/process_table.h"
#include "daemon/subnet_observer.h"

namespace smsupd {

struct DaemonOptions {
  std::string config_path = "/etc/smsupd/smsupd.yaml";
  std::chrono::milliseconds poll_interval{1000};
  // How long start-up may wait for the local port (a simulated port blocks
  // while no simulator listens).
  std::chrono::milliseconds port_deadline{15000};
  // The fabric access for a port (sm.port_guid, or absent: the only one).
  // Empty: UmadFabric. Tests substitute a fake.
  std::function<std::shared_ptr<Fabric>(std::optional<Guid>)> make_fabric;
  // Back-off and stop deadline of the OpenSM supervisor.
  SupervisorTuning opensm_tuning;
};

class Daemon : public control::CommandHandler {
 public:
  Daemon(DaemonOptions options, Notifier& notifier);
  ~Daemon() override;

  // Runs until SIGTERM/SIGINT; returns the process exit code.
  int Run();

  void Handle(const control::Request& request, const control::Caller& caller,
              Reply reply) override;

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
  std::unique_ptr<SubnetObserver> observer_;
  std::set<std::string> pending_restart_;  // startup-only changes not yet in effect
  std::string published_status_;
  bool opensm_has_exited_ = false;
  bool first_poll_done_ = false;
  bool stopping_ = false;
  int exit_code_ = 0;
};

}  // namespace smsupd
