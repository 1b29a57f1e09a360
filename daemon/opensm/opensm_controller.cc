#include "daemon/opensm/opensm_controller.h"

#include <boost/asio/post.hpp>

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "common/atomic_file.h"

#include "common/control_wire.h"
#include "common/problems.h"
#include "common/secrets.h"

namespace smsupd {
namespace {

// A held restart (HoldRestart) goes on by itself after this long: the
// policy's own deadline is takeover_timeout (3 s), or first_sweep_hold
// (20 s) while the new master is seen MASTER.
constexpr std::chrono::seconds kRestartHoldLimit{30};
// Longer than the HANDOVER's own deadline (the failover controller's 1 s):
// the pause ends by a kill or a resume well before, this is the backstop.
constexpr std::chrono::seconds kHandoverPauseLimit{3};

// How often OpenSM's log is read for the lines the daemon acts on.
constexpr std::chrono::milliseconds kLogPollInterval{100};
// Clearing the IsSM bit is one SMP; the deadline only guards a wedged MAD thread.
constexpr std::chrono::milliseconds kClearSmFlagDeadline{1000};

// OpenSM creates its log with mode 0644 and writes peers' SM_Keys into it
// (ERR 2F18): it must be readable by root only. OpenSM appends to an
// existing file and keeps its mode.
void KeepLogPrivate(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    spdlog::warn("OPENSM_LOG_NOT_PRIVATE cannot open {}: {}", path, std::strerror(errno));
    return;
  }
  struct stat info {};
  if (::fstat(fd, &info) == 0 && (info.st_mode & 0077) != 0 && ::fchmod(fd, 0600) != 0)
    spdlog::warn("OPENSM_LOG_NOT_PRIVATE cannot make {} mode 0600: {}", path, std::strerror(errno));
  ::close(fd);
}

}  // namespace

OpenSmController::OpenSmController(boost::asio::io_context& io, ProcessLauncher& launcher,
                                   const ProcessTable& processes, const Clock& clock,
                                   const RunningConfig& running, MadWorker& worker,
                                   Reporter& reporter, SupervisorTuning tuning, OpenSmHooks hooks)
    : io_(io), running_(running), worker_(worker), reporter_(reporter), hooks_(std::move(hooks)),
      supervisor_(io, launcher, processes, clock, SpecFor(running.config, running.port_guid),
                  std::move(tuning), [this](const OpenSmEvent& event) { OnSupervisorEvent(event); }),
      foreign_(io, processes, reporter, [this] {
        return ForeignOpenSmWatch::Target{running_.port_guid, supervisor_.Snapshot().pid};
      }) {
  supervisor_.SetBeforeRestart([this] {
    if (!hooks_.start_priority) return;
    const int priority = hooks_.start_priority();
    commanded_ = priority;
    if (priority != rendered_) Rerender(priority);
  });
}

OpenSmController::~OpenSmController() {
  if (log_watcher_) log_watcher_->Stop();
}

OpenSmLaunchSpec OpenSmController::SpecFor(const config::Config& config, Guid port) const {
  return {config.sm.opensm.binary, StatePaths{config.state_dir}.OpenSmConf(), config.state_dir,
          port};
}

std::string OpenSmController::LogPath() const {
  const config::Config& config = running_.config;
  return config.sm.opensm.log_file.empty() ? config.state_dir + "/opensm.log"
                                           : config.sm.opensm.log_file;
}

void OpenSmController::WatchLog() {
  if (log_watcher_) return;
  log_watcher_ = std::make_unique<OpenSmLogWatcher>(
      io_, LogPath(), kLogPollInterval, [this](const OpenSmLogEvent& event) { OnLogEvent(event); });
  log_watcher_->Start();
}

void OpenSmController::ReopenLog() {
  pid_t pid = supervisor_.Snapshot().pid;
  KeepLogPrivate(LogPath());  // the file OpenSM opens next exists, 0600 (a `nocreate` rotation)
  Result<bool> sent = supervisor_.ReopenLog();
  if (!sent)
    spdlog::info("OPENSM_LOG_REOPEN not sent: {}; OpenSM opens {} when it starts", sent.error().message,
                 LogPath());
  else if (*sent)
    spdlog::info("OPENSM_LOG_REOPEN OpenSM (pid {}) reopens {} (SIGUSR1)", pid, LogPath());
  else
    spdlog::info("OPENSM_LOG_REOPEN not sent: OpenSM (pid {}) is starting and opens {} itself", pid,
                 LogPath());
}

bool OpenSmController::Adopt() {
  if (!supervisor_.Adopt()) return false;
  has_run_ = true;
  if (hooks_.running) hooks_.running();
  return true;
}

OpenSmSnapshot OpenSmController::Snapshot() const { return supervisor_.Snapshot(); }

void OpenSmController::OnSupervisorEvent(const OpenSmEvent& event) {
  if (hooks_.on_event) hooks_.on_event(event);
}

// Partition errors end an apply; an SM_Key mismatch is split brain
// (SM_KEY_MISMATCH, docs/failover.md); a SUBNET UP is a stage of the
// failover timeline; "Entering MASTER/STANDBY state" and SUBNET UP tell the
// failover policy when a new master's first sweep is done.
void OpenSmController::OnLogEvent(const OpenSmLogEvent& event) {
  using Kind = OpenSmLogEvent::Kind;
  if (event.kind == Kind::kPartitionConfigError)
    spdlog::error("OPENSM_PARTITION_CONFIG_ERROR {}", event.line);
  else if (event.kind == Kind::kSmKeyMismatch)
    spdlog::error("OPENSM_SM_KEY_MISMATCH {}", RedactSecrets(event.line));  // the peer's key
  else if (event.kind == Kind::kEnteringMaster || event.kind == Kind::kEnteringStandby)
    LogStateLine(event);
  else if (event.kind != Kind::kSubnetUp && event.kind != Kind::kEnteringMaster &&
           event.kind != Kind::kEnteringStandby)
    return;
  if (hooks_.on_log) hooks_.on_log(event);
}

// OpenSM's own word on its state (SYS level: always logged and flushed),
// beside the SMInfo state smsupd reads (sm-state-changed): the two differ
// while a sweep runs, and an operator reading events after a failover
// sees both.
void OpenSmController::LogStateLine(const OpenSmLogEvent& event) {
  const char* state = event.kind == OpenSmLogEvent::Kind::kEnteringMaster ? "MASTER" : "STANDBY";
  spdlog::info("OPENSM_STATE_LOGGED OpenSM logged entering {} state", state);
  reporter_.AddEvent(control::kEventOpenSmStateLogged, {{"state", state}, {"line", event.line}});
}

bool OpenSmController::Rerender(int priority) {
  auto written = WriteRenderedConfig(running_.config, running_.port_guid, priority, node_of_port_);
  if (!written) {
    spdlog::error("PRIORITY_NOT_SET sm_priority {}: {}", priority, written.error().message);
    return false;
  }
  rendered_ = priority;
  return true;
}

void OpenSmController::FollowPriority(std::optional<int> priority) {
  commanded_ = priority;
  if (priority && priority != rendered_) Rerender(*priority);
}

void OpenSmController::SetPriority(int priority) {
  commanded_ = priority;
  if (!Rerender(priority)) return;
  Status hup = supervisor_.Hangup();
  spdlog::info("PRIORITY_SET sm_priority {}{}", priority,
               hup ? "; OpenSM re-reads it (SIGHUP)" : "; OpenSM not running: " + hup.message());
  reporter_.AddEvent("priority-set", {{"priority", priority}});
}

// The held OpenSM died as MASTER, and a new master's first sweep is about
// to run: the IsSM bit it left on this port is cleared now, not at the
// restart, or that sweep sends SMInfo to this port and waits for answers
// that never come (fabric.h). Posted: the HANDOVER of the same exit goes to
// the MAD thread first.
void OpenSmController::HoldRestart() {
  supervisor_.HoldRestart(kRestartHoldLimit);
  boost::asio::post(io_, [this] { ClearStaleSmFlag(); });
}

void OpenSmController::ClearStaleSmFlag() {
  if (supervisor_.Snapshot().state == OpenSmSnapshot::State::kRunning) return;  // an SM holds it
  worker_.Submit([](Fabric& fabric) { return fabric.ClearStaleSmFlag(); },
                 [](Status cleared) {
                   if (!cleared) spdlog::warn("ISSM_NOT_CLEARED {}", cleared.message());
                 },
                 kClearSmFlagDeadline);
}

bool OpenSmController::PauseForHandover() {
  Status paused = supervisor_.PauseForHandover(kHandoverPauseLimit);
  if (!paused) spdlog::warn("OPENSM_NOT_PAUSED before the handover: {}", paused.message());
  return static_cast<bool>(paused);
}

void OpenSmController::ResumeAfterHandover() { supervisor_.Resume(); }

bool OpenSmController::KillAfterHandover() {
  Status killed = supervisor_.KillAfterHandover(kRestartHoldLimit);
  if (!killed) spdlog::error("OPENSM_NOT_KILLED after the handover: {}", killed.message());
  return static_cast<bool>(killed);
}

void OpenSmController::Start(int priority, bool restart) {
  commanded_ = priority;
  Rerender(priority);
  const auto state = supervisor_.Snapshot().state;
  // The dead OpenSM's IsSM bit must not outlive it (fabric.h): queued
  // behind the HANDOVER the same step sent, before OpenSM starts again.
  if (restart) ClearStaleSmFlag();
  // Running, or waiting out the restart back-off (a held restart goes on
  // now): the supervisor starts it with the file just written.
  if (state != OpenSmSnapshot::State::kStopped) {
    supervisor_.ReleaseRestart();
    return;
  }
  KeepLogPrivate(LogPath());
  // The config in force may have changed the binary or the port since the
  // last start (a reload with a startup-only change restarts through here).
  supervisor_.SetSpec(SpecFor(running_.config, running_.port_guid));
  Status started = supervisor_.Start();
  if (started) {
    has_run_ = true;
    if (hooks_.running) hooks_.running();
    return;
  }
  if (!has_run_) {
    if (hooks_.first_start_failed) hooks_.first_start_failed(started);
    return;
  }
  spdlog::error("OPENSM_START_FAILED {} ({})", started.message(), restart ? "restart" : "start");
  reporter_.RaiseProblem(kProblemOpenSmStartFailed, "OpenSM cannot be started: " + started.message());
}

void OpenSmController::Stop() {
  supervisor_.Stop([this] {
    if (hooks_.stopped) hooks_.stopped();
  });
}

config::RenderedFiles OpenSmController::Render(const config::Config& config, Guid port) const {
  return RenderConfig(config, port, commanded_, node_of_port_);
}

Result<std::string> OpenSmController::Install(const config::Config& config, Guid port) {
  auto hash = WriteRenderedConfig(config, port, commanded_, node_of_port_);
  if (hash && commanded_) rendered_ = commanded_;
  return hash;
}

Status OpenSmController::Hangup() { return supervisor_.Hangup(); }

// Only the inventory's port GUIDs are kept: the map is bounded by the config,
// whatever the fabric holds. The file is rewritten only when its text changes.
void OpenSmController::LearnNodes(const std::map<Guid, Guid>& node_of_port) {
  std::set<Guid> inventory;
  for (const auto& [host, guids] : running_.config.hosts) inventory.insert(guids.begin(), guids.end());
  std::map<Guid, Guid> learned;
  for (const auto& [port, node] : node_of_port)
    if (inventory.count(port)) learned[port] = node;
  if (learned == node_of_port_) return;
  node_of_port_ = std::move(learned);
  const StatePaths paths{running_.config.state_dir};
  const std::string text = RenderConfig(running_.config, running_.port_guid, commanded_, node_of_port_).node_name_map;
  if (auto on_disk = ReadWholeFile(paths.NodeNameMap()); on_disk && *on_disk == text) return;
  if (Status written = WriteFileAtomically(paths.NodeNameMap(), text, 0644); !written)
    spdlog::warn("NODE_NAME_MAP_NOT_WRITTEN {}: {}", paths.NodeNameMap(), written.message());
  else
    spdlog::info("NODE_NAME_MAP_UPDATED {}: the inventory's hosts named by the node GUIDs the walk read",
                 paths.NodeNameMap());
}

std::uint64_t OpenSmController::SweepsSeen() {
  if (!log_watcher_) return 0;
  log_watcher_->PollNow();
  return log_watcher_->subnet_up_count();
}

}  // namespace smsupd
