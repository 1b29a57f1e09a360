// Everything smsupd does to the local OpenSM, in one place: its files
// (rendered at the priority the failover policy commands), its process
// (OpenSmSupervisor: start, adopt, restart with back-off, stop), its log
// (OpenSmLogWatcher) and the stale IsSM bit a killed OpenSM leaves behind.
//
// The failover controller drives it through LocalSmControl, the apply
// pipeline through OpenSmConfigSink (opensm_control.h); the daemon hears of
// what happens through OpenSmHooks and fans it out (status, failover, apply).
// Runs on the io_context thread; MAD work goes to the MadWorker.
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "daemon/apply/running_config.h"
#include "daemon/clock.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/opensm/foreign_opensm.h"
#include "daemon/opensm/opensm_control.h"
#include "daemon/opensm/opensm_log_watcher.h"
#include "daemon/opensm/opensm_supervisor.h"
#include "daemon/process/process.h"
#include "daemon/process/process_table.h"
#include "daemon/status/reporter.h"

namespace smsupd {

struct OpenSmHooks {
  // Every supervisor event (OPENSM_STARTED, OPENSM_EXITED, ...).
  std::function<void(const OpenSmEvent&)> on_event;
  // The log lines others act on: partitions.conf refused (apply), SM_Key
  // mismatch, SUBNET UP, Entering MASTER/STANDBY state (failover). The
  // errors are already logged here.
  std::function<void(const OpenSmLogEvent&)> on_log;
  // An OpenSM runs (started or adopted); called on every start.
  std::function<void()> running;
  // No OpenSM has run yet and it cannot be started: start-up failed.
  std::function<void(const Status&)> first_start_failed;
  // A Stop() finished: OpenSM is gone.
  std::function<void()> stopped;
  // The priority a restart after the back-off starts at, decided when the
  // back-off ends (the failover policy's PriorityForStart).
  std::function<int()> start_priority;
};

class OpenSmController : public LocalSmControl, public OpenSmConfigSink {
 public:
  // `running` must outlive the controller; its config and port are read at
  // every rendering and start.
  OpenSmController(boost::asio::io_context& io, ProcessLauncher& launcher,
                   const ProcessTable& processes, const Clock& clock, const RunningConfig& running,
                   MadWorker& worker, Reporter& reporter, SupervisorTuning tuning,
                   OpenSmHooks hooks);
  ~OpenSmController() override;

  // Starts tailing OpenSM's log (sm.opensm.log_file, else <state_dir>/opensm.log).
  void WatchLog();
  // After logrotate renamed OpenSM's log: SIGUSR1 to the supervised OpenSM,
  // when it can take it (OpenSmSupervisor::ReopenLog). Logged either way
  // (OPENSM_LOG_REOPEN); the log watcher follows the rename by itself.
  void ReopenLog();
  // Starts looking for an OpenSM smsupd does not supervise on this port
  // (FOREIGN_OPENSM, foreign_opensm.h).
  void WatchForeignOpenSms() { foreign_.Start(); }
  // Adopts a running OpenSM of ours (smsupd restarted); true when one is
  // now supervised (hooks.running has been called).
  bool Adopt();

  OpenSmSnapshot Snapshot() const;
  // The priority every rendering uses (nullopt: sm.priority).
  std::optional<int> commanded_priority() const { return commanded_; }
  // The nodes of the inventory's ports, as a subnet walk read them: the
  // node-name map then names the hosts' nodes too; rewritten when it changes
  // (OpenSM reads it at its next start, the diagnostic tools at once).
  void LearnNodes(const std::map<Guid, Guid>& node_of_port);

  // LocalSmControl (the failover policy's actions).
  void FollowPriority(std::optional<int> priority) override;
  void SetPriority(int priority) override;
  void Start(int priority, bool restart) override;
  void Stop() override;
  void HoldRestart() override;
  bool KillAfterHandover() override;
  bool PauseForHandover() override;
  void ResumeAfterHandover() override;

  // OpenSmConfigSink (the apply pipeline).
  config::RenderedFiles Render(const config::Config& config, Guid port) const override;
  Result<std::string> Install(const config::Config& config, Guid port) override;
  Status Hangup() override;
  std::uint64_t SweepsSeen() override;

 private:
  OpenSmLaunchSpec SpecFor(const config::Config& config, Guid port) const;
  std::string LogPath() const;
  void OnSupervisorEvent(const OpenSmEvent& event);
  void OnLogEvent(const OpenSmLogEvent& event);
  // OPENSM_STATE_LOGGED and the event opensm-state-logged.
  void LogStateLine(const OpenSmLogEvent& event);
  // Rewrites opensm.conf for the running config at `priority`.
  bool Rerender(int priority);

  // Clears the IsSM bit a dead OpenSM left on the port, unless one runs.
  void ClearStaleSmFlag();

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  MadWorker& worker_;
  Reporter& reporter_;
  OpenSmHooks hooks_;
  OpenSmSupervisor supervisor_;
  std::unique_ptr<OpenSmLogWatcher> log_watcher_;
  ForeignOpenSmWatch foreign_;
  std::optional<int> commanded_;  // the failover policy's priority
  std::map<Guid, Guid> node_of_port_;  // inventory port GUID -> node GUID, from walks
  std::optional<int> rendered_;   // sm_priority in opensm.conf now
  bool has_run_ = false;          // an OpenSM was started or adopted
};

}  // namespace smsupd
