// The smsupd daemon: the composition root. It builds the parts, wires them
// through their narrow interfaces, and owns only the process's life: the
// start-up order, the signals, the watchdog, READY / RELOADING / STOPPING
// and the exit code. docs/architecture.md draws the parts and who calls whom.
//
//   StatusBoard        daemon/status   status, events, health problems, STATUS=
//   CommandRouter      daemon/control  command name -> the owning part's handler
//   ControlServer      daemon/control  the Unix socket smctl speaks to
//   MadWorker          daemon/fabric   the MAD thread (libibmad / libibumad)
//   OpenSmController   daemon/opensm   OpenSM's files, process and log
//   ConfigApplier      daemon/apply    reload / rollback / plan / history
//   WhyCommand         daemon/apply    why: can two end ports talk, in which partitions
//   CablingCommand     daemon/cabling  cabling: the links against the declared cabling
//   TwinPlanCommand    daemon/twin     twin-plan: the change run on a simulated copy
//   TakeoverReadiness  daemon/twin     on a STANDBY: would a takeover change the fabric?
//   PortsMonitor       daemon/ports    ports: state, rate and counters of every port, paced
//   FailoverController daemon/failover watch rounds, the policy, its actions
//   MetricsService     daemon/metrics  Prometheus metrics: smctl metrics, metrics.listen
//   EventHooks         daemon/hooks    hooks.directory's executables, run for each event
//
// Start-up order (READY=1 only when all of it worked): config -> control
// socket bound (a live socket is never taken over: one daemon per config) ->
// port GUID (waited for: PORT_WAITING) -> files rendered -> OpenSM adopted, or started by the failover
// policy once it has seen the subnet -> READY=1. Nothing after OpenSM's
// start can fail, so a failed start never leaves an OpenSM behind.
// SIGHUP: the applier reloads. SIGUSR1: OpenSM is asked to reopen its log
// (logrotate; docs/systemd.md "Log rotation"). SIGTERM/SIGINT: the failover controller hands
// over when this SM is MASTER, then OpenSM is stopped, then the daemon exits.
// Everything runs on one io_context thread, plus the MAD thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "daemon/apply/config_applier.h"
#include "daemon/apply/running_config.h"
#include "daemon/apply/why_command.h"
#include "daemon/cabling/cabling_command.h"
#include "daemon/ports/ports_monitor.h"
#include "daemon/clock.h"
#include "daemon/control/command_router.h"
#include "daemon/control/control_server.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/failover/failover_controller.h"
#include "daemon/hooks/event_hooks.h"
#include "daemon/metrics/metrics_service.h"
#include "daemon/notifier.h"
#include "daemon/opensm/opensm_controller.h"
#include "daemon/process/pidfd_process_launcher.h"
#include "daemon/process/process_table.h"
#include "daemon/status/status_board.h"
#include "daemon/twin/takeover_readiness.h"
#include "daemon/twin/twin_plan_command.h"

namespace smsupd {

// smsupd's exit statuses (docs/systemd.md "Exit statuses"); crashes are
// signals. The unit does not restart kExitConfigInvalid
// (RestartPreventExitStatus=): the same file fails the same way.
inline constexpr int kExitFailure = 1;         // start-up failed (socket, state, OpenSM)
inline constexpr int kExitPortMissing = 69;    // EX_UNAVAILABLE: the port never appeared
inline constexpr int kExitConfigInvalid = 78;  // EX_CONFIG: the config file is invalid or unreadable

struct DaemonOptions {
  std::string config_path = "/etc/smsupd/smsupd.yaml";
  // How long start-up waits for the local port to appear (a driver still
  // loading, a port still training; a simulated port blocks while no
  // simulator listens) before it exits with kExitPortMissing. Bounded, so
  // that the boot (network.target waits for the unit) goes on without an SM.
  std::chrono::milliseconds port_deadline{60000};
  // One look for the port: a look that fails (no such port) is repeated
  // after `port_retry`; one that hangs is waited for in `port_retry` steps.
  std::chrono::milliseconds port_retry{1000};
  // The fabric access for a port (sm.port_guid, or absent: the only one).
  // Empty: UmadFabric. Tests substitute a fake.
  std::function<std::shared_ptr<Fabric>(std::optional<Guid>)> make_fabric;
  // Back-off and stop deadline of the OpenSM supervisor.
  SupervisorTuning opensm_tuning;
  // The smsupd executable, whose --twin-run and --twin-probe modes run a
  // twin plan (docs/twin.md). Empty (a daemon inside another program, as in
  // tests): `twin-plan` is answered with an error.
  std::string twin_executable;
};

class Daemon {
 public:
  Daemon(DaemonOptions options, Notifier& notifier);
  ~Daemon();

  // Runs until SIGTERM/SIGINT (or RequestStop); returns the exit code.
  int Run();

  // What SIGHUP and SIGTERM do, callable from any thread.
  void RequestReload();
  void RequestStop();

 private:
  Status StartUp();
  Result<Guid> ResolvePortGuid();
  // One look for the local port, waited for at most `deadline`.
  Result<Guid> LookUpPort(std::chrono::milliseconds deadline);
  // Runs the event loop for `pause` (start-up only), or less on SIGTERM.
  void PauseStartUp(std::chrono::milliseconds pause);
  void BuildParts();
  void WaitForSignals();
  void Shutdown();
  void FinishStop();
  void StartWatchdog();
  void StartObservability();
  void SendReady();
  // Fans an OpenSM supervisor event out to the parts that act on it.
  void OnOpenSmEvent(const OpenSmEvent& event);
  void OnOpenSmLog(const OpenSmLogEvent& event);

  DaemonOptions options_;
  Notifier& notifier_;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer watchdog_timer_;
  boost::asio::steady_timer stop_timer_;  // SIGTERM: exit even if a step hangs
  SteadyClock clock_;
  PidfdProcessLauncher launcher_;
  ProcFsProcessTable processes_;

  RunningConfig running_;
  StatusBoard status_;
  control::CommandRouter router_;
  std::unique_ptr<control::ControlServer> server_;
  std::unique_ptr<MadWorker> worker_;
  std::unique_ptr<OpenSmController> opensm_;
  std::unique_ptr<ConfigApplier> applier_;
  std::unique_ptr<WhyCommand> why_;
  std::unique_ptr<CablingCommand> cabling_;
  std::unique_ptr<TwinPlanCommand> twin_;
  std::unique_ptr<TakeoverReadiness> readiness_;  // after twin_: destroyed first
  std::unique_ptr<PortsMonitor> ports_;
  std::unique_ptr<FailoverController> failover_;
  // Both follow status_'s event log: declared after it, so gone before it.
  std::unique_ptr<MetricsService> metrics_;
  std::unique_ptr<EventHooks> hooks_;

  std::atomic<bool> stop_asked_{false};  // RequestStop before the loop ran
  bool ready_sent_ = false;
  bool stopping_ = false;
  bool finished_ = false;
  int exit_code_ = 0;
  int startup_exit_ = kExitFailure;  // Run()'s exit status when StartUp() fails
};

}  // namespace smsupd
