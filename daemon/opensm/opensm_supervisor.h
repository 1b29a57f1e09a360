// Runs the local OpenSM and keeps it running.
//
//   Start() --adopt (pid file matches)--> kRunning <--------------+
//      \--spawn------------------------>  kRunning                |
//   kRunning --child exits--> kWaitingToRestart --timer (back-off)+
//   kRunning / kWaitingToRestart --Stop()--> kStopping --exit--> kStopped
//
// Restart back-off and crash-loop rules: restart_backoff.h. The supervisor
// never ties OpenSM's life to its own: no PR_SET_PDEATHSIG, its own session,
// and a pid file so that the next smsupd adopts it.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/common.h>

#include "common/result.h"
#include "daemon/clock.h"
#include "daemon/opensm/opensm_launch.h"
#include "daemon/process/process.h"
#include "daemon/process/process_table.h"
#include "daemon/opensm/restart_backoff.h"

namespace smsupd {

struct SupervisorTuning {
  BackoffPolicy backoff;
  CrashLoopPolicy crash_loop;
  // SIGTERM first; SIGKILL if OpenSM has not exited by then.
  Clock::Duration stop_deadline = std::chrono::seconds(10);
};

// What happened to OpenSM, for the event log and health problems. `kind`
// is the stable log ID (docs/log-messages.md).
struct OpenSmEvent {
  std::string kind;  // OPENSM_STARTED, OPENSM_ADOPTED, OPENSM_EXITED, ...
  std::string details;
  pid_t pid = 0;
};

struct OpenSmSnapshot {
  enum class State { kStopped, kRunning, kWaitingToRestart, kStopping };
  State state = State::kStopped;
  pid_t pid = 0;  // 0 unless running
  bool adopted = false;
  Clock::Duration uptime{0};
  int restarts = 0;  // restarts after exits, since this smsupd started
  bool crash_loop = false;
  std::string last_exit;  // ExitStatus::Describe() of the last exit, if any
  bool restart_held = false;  // waiting to restart, back-off over, held (HoldRestart)
};

const char* SupervisorStateName(OpenSmSnapshot::State state);

class OpenSmSupervisor {
 public:
  using EventSink = std::function<void(const OpenSmEvent&)>;

  OpenSmSupervisor(boost::asio::io_context& io, ProcessLauncher& launcher,
                   const ProcessTable& processes, const Clock& clock, OpenSmLaunchSpec spec,
                   SupervisorTuning tuning, EventSink events);
  ~OpenSmSupervisor();

  // Adopts the OpenSM named by the pid file when it is really ours for this
  // port; otherwise starts one. An error only when OpenSM cannot be started.
  Status Start();
  // Only the adoption half of Start(): true when a running OpenSM of ours
  // (pid file, same binary, port and config) is now supervised.
  bool Adopt();
  // SIGTERM, SIGKILL after the deadline; `done` runs once OpenSM is gone.
  void Stop(std::function<void()> done);
  // Stop, then start with `spec`.
  void Restart(OpenSmLaunchSpec spec, std::function<void(Status)> done);
  // The spec of the next start (binary, files, port), e.g. after a config
  // change; a running OpenSM keeps what it was started with.
  void SetSpec(OpenSmLaunchSpec spec) { spec_ = std::move(spec); }
  // Called just before a restart after the back-off spawns OpenSM: the
  // files can be brought up to date (the priority to start at is decided
  // then, not when OpenSM exited).
  void SetBeforeRestart(std::function<void()> hook) { before_restart_ = std::move(hook); }
  // Holds the restart after OpenSM's next (or current) exit until
  // ReleaseRestart(), for at most `limit`: the failover policy restarts a
  // dead MASTER's OpenSM only once the new master's first sweep has reached
  // this node, since a starting OpenSM walks the whole subnet beside it.
  void HoldRestart(Clock::Duration limit);
  // Ends a hold: a restart whose back-off has run out starts now.
  void ReleaseRestart();
  // SIGKILL now, no SIGTERM first: the local MASTER has just handed over
  // (smctl failover), and the new master's first sweep must not find it
  // still MASTER. The exit is asked for: OPENSM_KILLED_AFTER_HANDOVER, no
  // crash, no back-off, and the restart held (HoldRestart(hold_limit))
  // until the failover policy starts it again.
  Status KillAfterHandover(Clock::Duration hold_limit);
  // SIGSTOP now, for at most `limit` (then SIGCONT): the local MASTER is
  // about to hand over (smctl failover). A frozen OpenSM answers no SMInfo,
  // so the new master's first sweep marks it NOTACTIVE instead of reading
  // it MASTER at priority 15 and handing the mastership straight back.
  // KillAfterHandover ends the pause; so do Resume and Stop.
  Status PauseForHandover(Clock::Duration limit);
  // SIGCONT after PauseForHandover (the HANDOVER was not answered).
  void Resume();
  // OpenSM re-reads its runtime options and partitions.conf on SIGHUP.
  Status Hangup();
  // SIGUSR1: OpenSM closes its log file and opens the path again (main.c,
  // osm_log_reopen_file), after logrotate renamed it. SIGUSR1's default
  // action kills a process, and OpenSM installs its handler only after
  // binding the port: the signal is sent only when /proc shows it handled
  // or blocked (blocked from option parsing on, before the log is first
  // opened; a pending signal then reaches the handler). An OpenSM that has
  // neither has not opened its log yet and will open the new file anyway:
  // false, nothing sent. An error when OpenSM is not running.
  Result<bool> ReopenLog();

  OpenSmSnapshot Snapshot() const;
  const OpenSmLaunchSpec& spec() const { return spec_; }

 private:
  bool TryAdopt();
  Status Spawn();
  ProcessCallbacks Callbacks();
  void OnExit(const ExitStatus& status);
  void ScheduleRestart(Clock::Duration delay);
  void RecordPid(pid_t pid);
  void Emit(std::string kind, std::string details, pid_t pid,
            spdlog::level::level_enum level = spdlog::level::info);

  boost::asio::io_context& io_;
  ProcessLauncher& launcher_;
  const ProcessTable& processes_;
  const Clock& clock_;
  OpenSmLaunchSpec spec_;
  SupervisorTuning tuning_;
  EventSink events_;

  OpenSmSnapshot::State state_ = OpenSmSnapshot::State::kStopped;
  std::unique_ptr<WatchedProcess> process_;
  // Kept until the next exit so its last output lines still reach the log.
  std::unique_ptr<WatchedProcess> exited_process_;
  Clock::TimePoint started_at_{};
  int restarts_ = 0;
  std::string last_exit_;
  // The last line OpenSM printed (redacted, printable), as much of it as an
  // OPENSM_CRASH_LOOP message quotes.
  static constexpr std::size_t kLastOutputBytes = 200;
  std::string last_output_;
  bool crash_loop_reported_ = false;
  RestartBackoff backoff_;
  CrashLoopDetector crash_loop_;
  boost::asio::steady_timer restart_timer_;
  boost::asio::steady_timer kill_timer_;
  boost::asio::steady_timer hold_timer_;
  bool hold_ = false;         // HoldRestart() in force
  bool restart_held_ = false;  // the back-off ran out during the hold
  bool kill_requested_ = false;  // KillAfterHandover: the next exit is no crash
  bool paused_ = false;          // PauseForHandover: SIGSTOPped until Resume
  boost::asio::steady_timer pause_timer_;
  std::vector<std::function<void()>> on_stopped_;
  std::function<void()> before_restart_;
};

}  // namespace smsupd
