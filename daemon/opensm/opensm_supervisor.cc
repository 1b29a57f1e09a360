#include "daemon/opensm/opensm_supervisor.h"

#include "common/printable_text.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <utility>

#include "common/secrets.h"
#include "daemon/opensm/opensm_pid_file.h"

namespace smsupd {
namespace {

using State = OpenSmSnapshot::State;

// What /proc/<pid>/exe shows for a process started from `path`: the file
// with symlinks resolved; "" for a script (its interpreter runs) or a path
// that cannot be resolved.
std::string ExpectedExe(const std::string& path) {
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) return "";
  char magic[2] = {};
  std::ifstream(resolved, std::ios::binary).read(magic, sizeof magic);
  return magic[0] == '#' && magic[1] == '!' ? std::string() : std::string(resolved);
}

std::string Seconds(Clock::Duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

const char* SupervisorStateName(State state) {
  switch (state) {
    case State::kStopped: return "stopped";
    case State::kRunning: return "running";
    case State::kWaitingToRestart: return "waiting to restart";
    case State::kStopping: return "stopping";
  }
  return "?";
}

OpenSmSupervisor::OpenSmSupervisor(boost::asio::io_context& io, ProcessLauncher& launcher,
                                   const ProcessTable& processes, const Clock& clock,
                                   OpenSmLaunchSpec spec, SupervisorTuning tuning,
                                   EventSink events)
    : io_(io), launcher_(launcher), processes_(processes), clock_(clock), spec_(std::move(spec)),
      tuning_(tuning), events_(std::move(events)), backoff_(tuning.backoff),
      crash_loop_(tuning.crash_loop), restart_timer_(io), kill_timer_(io), hold_timer_(io),
      pause_timer_(io) {}

// Leaves OpenSM running: only Stop() ends it. Never leaves it paused.
OpenSmSupervisor::~OpenSmSupervisor() {
  if (paused_ && process_) (void)process_->Signal(SIGCONT);
}

Status OpenSmSupervisor::Start() {
  hold_ = restart_held_ = false;
  hold_timer_.cancel();
  Status prepared = PrepareOpenSmDirectories(spec_);
  if (!prepared) return prepared;
  if (TryAdopt()) return Status::Ok();
  return Spawn();
}

bool OpenSmSupervisor::Adopt() {
  if (state_ != State::kStopped || !PrepareOpenSmDirectories(spec_)) return false;
  return TryAdopt();
}

bool OpenSmSupervisor::TryAdopt() {
  auto record = ReadPidFile(spec_.PidFilePath());
  if (!record) return false;  // first start, or stopped cleanly
  OpenSmIdentity wanted{spec_.binary, spec_.port_guid, spec_.conf_path, ExpectedExe(spec_.binary)};
  auto facts = processes_.Inspect(record->pid);
  Status adoptable = facts ? CheckAdoptable(*record, *facts, wanted) : Status(facts.error());
  if (adoptable) {
    auto watched = launcher_.Adopt(record->pid, Callbacks());
    // Check again through the pidfd: the pid might have been reused in between.
    auto again = processes_.Inspect(record->pid);
    if (watched && again && again->start_ticks == record->start_ticks) {
      process_ = std::move(*watched);
      state_ = State::kRunning;
      started_at_ = clock_.Now() - again->age;
      // A previous smsupd killed during a handover's pause (SIGSTOP) left
      // it stopped; SIGCONT does nothing to one that runs.
      if (Status sent = process_->Signal(SIGCONT); !sent)
        spdlog::error("OPENSM_NOT_RESUMED adopted pid {}: {}", record->pid, sent.message());
      Emit("OPENSM_ADOPTED", "adopted running OpenSM pid " + std::to_string(record->pid) +
                                 " (up " + Seconds(again->age) + ") for port " +
                                 FormatGuid(spec_.port_guid),
           record->pid);
      return true;
    }
    adoptable = watched ? Status(Error{"it exited meanwhile"}) : Status(watched.error());
  }
  spdlog::warn("OPENSM_NOT_ADOPTED previous OpenSM pid {} not adopted: {}", record->pid,
               adoptable.message());
  return false;
}

Status OpenSmSupervisor::Spawn() {
  SpawnRequest request = OpenSmSpawnRequest(spec_, CurrentEnvironment());
  auto spawned = launcher_.Spawn(request, Callbacks());
  if (!spawned) return spawned.error();
  process_ = std::move(*spawned);
  state_ = State::kRunning;
  started_at_ = clock_.Now();
  RecordPid(process_->pid());
  Emit("OPENSM_STARTED", "started " + spec_.binary + " -F " + spec_.conf_path + " (pid " +
                             std::to_string(process_->pid()) + ", port " +
                             FormatGuid(spec_.port_guid) + ")",
       process_->pid());
  return Status::Ok();
}

void OpenSmSupervisor::RecordPid(pid_t pid) {
  auto facts = processes_.Inspect(pid);
  if (!facts) return;  // already gone: the exit callback follows
  OpenSmPidRecord record{pid, facts->start_ticks, spec_.binary, facts->exe, spec_.port_guid,
                         spec_.conf_path};
  Status written = WritePidFile(spec_.PidFilePath(), record);
  if (!written)
    spdlog::error("OPENSM_PID_FILE cannot write {}: {} (a restarted smsupd will not adopt pid {})",
                  spec_.PidFilePath(), written.message(), pid);
}

ProcessCallbacks OpenSmSupervisor::Callbacks() {
  ProcessCallbacks callbacks;
  callbacks.on_output = [this](std::string_view stream, std::string_view line) {
    // OpenSM prints every option it loads, keys included, and may quote
    // what the fabric says: redacted, then printable.
    const std::string redacted = RedactSecrets(line);
    last_output_ = PrintableText(redacted, kLastOutputBytes);
    spdlog::info("OPENSM_OUTPUT {}: {}", stream, PrintableText(redacted, redacted.size() * 4 + 3));
  };
  callbacks.on_exit = [this](const ExitStatus& status) { OnExit(status); };
  return callbacks;
}

void OpenSmSupervisor::OnExit(const ExitStatus& status) {
  pid_t pid = process_ ? process_->pid() : 0;
  Clock::TimePoint now = clock_.Now();
  Clock::Duration ran = now - started_at_;
  exited_process_ = std::move(process_);
  last_exit_ = status.Describe();
  paused_ = false;
  pause_timer_.cancel();
  if (state_ == State::kStopping) {
    kill_timer_.cancel();
    state_ = State::kStopped;
    ::unlink(spec_.PidFilePath().c_str());
    Emit("OPENSM_STOPPED", "OpenSM pid " + std::to_string(pid) + " stopped (" + last_exit_ + ")",
         pid);
    auto waiting = std::move(on_stopped_);
    on_stopped_.clear();
    for (auto& done : waiting) done();
    return;
  }
  if (std::exchange(kill_requested_, false)) {
    Emit("OPENSM_KILLED_AFTER_HANDOVER", "OpenSM pid " + std::to_string(pid) +
                                             " killed after it handed over (" + last_exit_ + ")",
         pid);
    ScheduleRestart(Clock::Duration::zero());  // held until the policy starts it
    return;
  }
  Emit("OPENSM_EXITED", "OpenSM pid " + std::to_string(pid) + " exited: " + last_exit_ +
                            " after " + Seconds(ran),
       pid, spdlog::level::err);
  crash_loop_.RecordExit(now);
  bool looping = crash_loop_.InLoop(now);
  if (looping && !crash_loop_reported_) {
    // Why it keeps exiting: its exit and the last line it printed.
    std::string last = last_exit_ + " after " + Seconds(ran);
    if (!last_output_.empty()) last += ", last output: " + last_output_;
    Emit("OPENSM_CRASH_LOOP",
         "OpenSM exited " + std::to_string(tuning_.crash_loop.exits) + " times within " +
             Seconds(tuning_.crash_loop.window) + " (last: " + last + "); still restarting with back-off",
         pid, spdlog::level::err);
  }
  crash_loop_reported_ = looping;
  ScheduleRestart(backoff_.NextDelay(ran));
}

void OpenSmSupervisor::ScheduleRestart(Clock::Duration delay) {
  state_ = State::kWaitingToRestart;
  if (delay > Clock::Duration::zero())
    Emit("OPENSM_RESTART_BACKOFF", "restarting OpenSM in " + Seconds(delay), 0,
         spdlog::level::warn);
  restart_timer_.expires_after(delay);
  restart_timer_.async_wait([this](boost::system::error_code error) {
    if (error || state_ != State::kWaitingToRestart) return;
    if (hold_) {
      restart_held_ = true;
      return;
    }
    ++restarts_;
    if (before_restart_) before_restart_();
    Status started = Spawn();
    if (started) return;
    Emit("OPENSM_START_FAILED", started.message(), 0, spdlog::level::err);
    crash_loop_.RecordExit(clock_.Now());
    ScheduleRestart(backoff_.NextDelay(Clock::Duration::zero()));
  });
}

void OpenSmSupervisor::HoldRestart(Clock::Duration limit) {
  hold_ = true;
  restart_held_ = false;
  hold_timer_.expires_after(limit);
  hold_timer_.async_wait([this, limit](boost::system::error_code error) {
    if (error || !hold_) return;
    spdlog::warn("OPENSM_RESTART_HELD nobody released the restart within {}: restarting", Seconds(limit));
    ReleaseRestart();
  });
}

void OpenSmSupervisor::ReleaseRestart() {
  if (!hold_) return;
  hold_ = false;
  hold_timer_.cancel();
  if (!restart_held_) return;  // the back-off timer still runs and restarts
  restart_held_ = false;
  if (state_ == State::kWaitingToRestart) ScheduleRestart(Clock::Duration::zero());
}

Status OpenSmSupervisor::KillAfterHandover(Clock::Duration hold_limit) {
  if (state_ != State::kRunning || !process_) return Error{"OpenSM is not running"};
  Status sent = process_->Signal(SIGKILL);  // ends a pause too
  if (!sent) return sent;
  paused_ = false;
  pause_timer_.cancel();
  HoldRestart(hold_limit);
  kill_requested_ = true;
  return Status::Ok();
}

Status OpenSmSupervisor::PauseForHandover(Clock::Duration limit) {
  if (state_ != State::kRunning || !process_) return Error{"OpenSM is not running"};
  Status sent = process_->Signal(SIGSTOP);
  if (!sent) return sent;
  paused_ = true;
  pause_timer_.expires_after(limit);
  pause_timer_.async_wait([this, limit](boost::system::error_code error) {
    if (error || !paused_) return;
    spdlog::warn("OPENSM_RESUMED OpenSM was still paused for a handover after {}: resuming it",
                 Seconds(limit));
    Resume();
  });
  return Status::Ok();
}

void OpenSmSupervisor::Resume() {
  if (!std::exchange(paused_, false)) return;
  pause_timer_.cancel();
  if (!process_) return;
  if (Status sent = process_->Signal(SIGCONT); !sent)
    spdlog::error("OPENSM_NOT_RESUMED {}", sent.message());
}

void OpenSmSupervisor::Stop(std::function<void()> done) {
  hold_ = restart_held_ = kill_requested_ = false;
  hold_timer_.cancel();
  const bool was_paused = std::exchange(paused_, false);
  pause_timer_.cancel();
  switch (state_) {
    case State::kStopped:
      done();
      return;
    case State::kWaitingToRestart:
      restart_timer_.cancel();
      state_ = State::kStopped;
      ::unlink(spec_.PidFilePath().c_str());
      done();
      return;
    case State::kStopping:
      on_stopped_.push_back(std::move(done));
      return;
    case State::kRunning:
      break;
  }
  state_ = State::kStopping;
  on_stopped_.push_back(std::move(done));
  Status sent = process_->Signal(SIGTERM);
  if (!sent) spdlog::warn("OPENSM_STOP {}", sent.message());
  if (was_paused) (void)process_->Signal(SIGCONT);  // a stopped process acts on SIGTERM only then
  kill_timer_.expires_after(tuning_.stop_deadline);
  kill_timer_.async_wait([this](boost::system::error_code error) {
    if (error || state_ != State::kStopping || !process_) return;
    spdlog::error("OPENSM_KILLED OpenSM pid {} ignored SIGTERM for {}; sending SIGKILL",
                  process_->pid(), Seconds(tuning_.stop_deadline));
    (void)process_->Signal(SIGKILL);
  });
}

void OpenSmSupervisor::Restart(OpenSmLaunchSpec spec, std::function<void(Status)> done) {
  Stop([this, spec = std::move(spec), done = std::move(done)]() mutable {
    spec_ = std::move(spec);
    Status prepared = PrepareOpenSmDirectories(spec_);
    done(prepared ? Spawn() : prepared);
  });
}

Status OpenSmSupervisor::Hangup() {
  if (state_ != State::kRunning || !process_) return Error{"OpenSM is not running"};
  return process_->Signal(SIGHUP);
}

Result<bool> OpenSmSupervisor::ReopenLog() {
  if (state_ != State::kRunning || !process_) return Error{"OpenSM is not running"};
  Result<ProcessFacts> facts = processes_.Inspect(process_->pid());
  if (!facts) return facts.error();
  if (!facts->Survives(SIGUSR1)) return false;
  Status sent = process_->Signal(SIGUSR1);  // through the pidfd: never a recycled pid
  if (!sent) return Error{sent.message()};
  return true;
}

OpenSmSnapshot OpenSmSupervisor::Snapshot() const {
  OpenSmSnapshot snapshot;
  Clock::TimePoint now = clock_.Now();
  snapshot.state = state_;
  if (process_ && state_ != State::kStopped) {
    snapshot.pid = process_->pid();
    snapshot.adopted = process_->adopted();
    snapshot.uptime = now - started_at_;
  }
  snapshot.restarts = restarts_;
  snapshot.crash_loop = crash_loop_.InLoop(now);
  snapshot.last_exit = last_exit_;
  snapshot.restart_held = restart_held_;
  return snapshot;
}

void OpenSmSupervisor::Emit(std::string kind, std::string details, pid_t pid,
                            spdlog::level::level_enum level) {
  spdlog::log(level, "{} {}", kind, details);
  if (events_) events_({std::move(kind), std::move(details), pid});
}

}  // namespace smsupd
