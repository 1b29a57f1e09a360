#include "daemon/hooks/hook_process.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "daemon/hooks/process_group.h"

namespace smsupd {
namespace {

using SteadyClock = std::chrono::steady_clock;

// How often the group is looked for (a scan of /proc) once the hook has
// exited and left something running.
constexpr std::chrono::milliseconds kGroupScanInterval(100);

// Splits a stream into bounded lines for the sink.
class LineReader {
 public:
  LineReader(bool from_stderr, const HookOutputSink& sink, int& lines)
      : from_stderr_(from_stderr), sink_(sink), lines_(lines) {}

  void Add(const char* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] == '\n') {
        Flush();
      } else if (partial_.size() < kMaxHookLineBytes) {
        partial_ += data[i];
      }
    }
  }
  void Flush() {
    if (partial_.empty()) return;
    if (++lines_ <= kMaxHookLines) sink_(from_stderr_, partial_);
    partial_.clear();
  }

 private:
  bool from_stderr_;
  const HookOutputSink& sink_;
  int& lines_;
  std::string partial_;
};

std::string Describe(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with status " + std::to_string(status);
}

// fork + execveat of the hook's descriptor, no shell. Between the two only
// async-signal-safe calls: the hook gets its own process group, default
// signal handling, SIGKILL when the thread that started it dies (the daemon
// crashed or was killed: the hook itself does not outlive smsupd), stdin
// /dev/null, the pipes, fd 3 its own file (a script's interpreter reads it
// as /dev/fd/3), no other fd.
pid_t Spawn(const std::string& path, int hook_fd, const HookJob& job, int out, int err, std::string& failure) {
  std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>(job.event.c_str()), nullptr};
  std::vector<char*> envp;
  for (const std::string& variable : job.environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    failure = std::string("fork: ") + std::strerror(errno);
    return -1;
  }
  if (pid > 0) {
    ::setpgid(pid, pid);  // as the child does: a kill(-pid) right after fork finds the group
    return pid;
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int hook = ::fcntl(hook_fd, F_DUPFD, 3);  // above 0-2 before they are replaced
  int null = ::open("/dev/null", O_RDONLY);
  if (hook < 0 || null < 0 || ::dup2(null, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
  if (hook != 3 && ::dup2(hook, 3) < 0) ::_exit(127);
  ::close_range(4, ~0U, 0);
  ::syscall(SYS_execveat, 3, "", argv.data(), envp.data(), AT_EMPTY_PATH);
  ::_exit(127);
}

// The hook's exit, seen without collecting it (WNOWAIT): while it is a
// zombie its pid -- the group's id -- is not reused, so kill(-pid) can only
// reach its own group.
bool LeaderExited(pid_t pid) {
  siginfo_t info {};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

// Waits up to `wait` for output or the hook's end (pidfd readable); reads
// what is there and closes a pipe at EOF. True once the hook has ended.
bool WaitAndRead(int pidfd, std::array<int, 2>& fds, std::array<LineReader*, 2> readers,
                 std::chrono::milliseconds wait) {
  std::array<pollfd, 3> polled = {pollfd{fds[0], POLLIN, 0}, pollfd{fds[1], POLLIN, 0},
                                  pollfd{pidfd, POLLIN, 0}};
  if (::poll(polled.data(), polled.size(), static_cast<int>(wait.count())) <= 0) return false;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i] < 0 || !(polled[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[4096];
    ssize_t got = ::read(fds[i], buffer, sizeof buffer);
    if (got > 0) {
      readers[i]->Add(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      ::close(fds[i]);
      fds[i] = -1;
    }
  }
  return polled[2].revents != 0;
}

struct GroupEnd {
  bool killed = false;              // the timeout (or the daemon's stop) ended it
  bool exited_before_kill = false;  // ... after the hook itself had exited
  std::string where;                // where the hook waited when its timeout came
};

// Reads the hook's output until its whole process group is gone; at the
// deadline (or at once on `abort`) kills the group: SIGTERM, then SIGKILL
// kKillGrace later. Returns with the leader exited, not yet collected.
GroupEnd WatchGroup(pid_t pid, SteadyClock::time_point deadline, std::array<int, 2>& fds,
                    std::array<LineReader*, 2> readers, const std::atomic<bool>& abort) {
  GroupEnd end;
  std::optional<SteadyClock::time_point> term_at, kill_at;
  bool exited = false;
  auto next_scan = SteadyClock::now();
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  // Without a pidfd (a kernel before 5.3) the exit is checked every 20 ms.
  const auto step = std::chrono::milliseconds(pidfd >= 0 ? 100 : 20);
  for (;;) {
    auto now = SteadyClock::now();
    if (!exited) exited = LeaderExited(pid);
    if (exited && now >= next_scan) {
      std::optional<bool> others = ProcessGroupHasOthers(pid);
      if (!others) ::kill(-pid, SIGKILL);  // no /proc to watch it: what is left ends now
      if (!others || !*others) break;
      next_scan = now + kGroupScanInterval;
    }
    const bool stop = abort.load();
    if (!term_at && (now >= deadline || stop)) {
      // Read before the signal, while it still waits where it hung.
      std::string where = exited || stop ? std::string() : DescribeWhereItWaits(pid);
      ::kill(-pid, stop ? SIGKILL : SIGTERM);
      term_at = now;
      if (stop) kill_at = now;
      end = {true, exited, std::move(where)};
    } else if (term_at && !kill_at && (stop || now >= *term_at + kKillGrace)) {
      ::kill(-pid, SIGKILL);
      kill_at = now;
    } else if (kill_at && exited && now >= *kill_at + kKillGrace) {
      break;  // stuck past SIGKILL (in the kernel): no longer waited for
    }
    auto next = kill_at ? *kill_at + kKillGrace : term_at ? *term_at + kKillGrace : deadline;
    if (exited) next = std::min(next, next_scan);
    auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next - now),
                           std::chrono::milliseconds(1), step);
    WaitAndRead(exited ? -1 : pidfd, fds, readers, wait);
  }
  if (pidfd >= 0) ::close(pidfd);
  return end;
}

}  // namespace

HookOutcome RunHook(const std::string& path, int hook_fd, const HookJob& job, const HookOutputSink& output,
                    const std::atomic<bool>& abort) {
  const auto started = SteadyClock::now();
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return {HookOutcome::Kind::kNotStarted, std::strerror(errno), {}};
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return {HookOutcome::Kind::kNotStarted, std::strerror(errno), {}};
  }
  std::string failure;
  pid_t pid = Spawn(path, hook_fd, job, out[1], err[1], failure);
  ::close(out[1]);
  ::close(err[1]);
  std::array<int, 2> fds = {out[0], err[0]};
  if (pid < 0) {
    for (int fd : fds) ::close(fd);
    return {HookOutcome::Kind::kNotStarted, failure, {}};
  }
  int lines = 0;
  LineReader stdout_lines(false, output, lines), stderr_lines(true, output, lines);
  GroupEnd end = WatchGroup(pid, started + job.timeout, fds, {&stdout_lines, &stderr_lines}, abort);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // What the hook wrote before it ended; a process it left behind holding
  // the pipes (one stuck past the SIGKILL) is not waited for.
  for (int i = 0; i < 16 && (fds[0] >= 0 || fds[1] >= 0); ++i)
    WaitAndRead(-1, fds, {&stdout_lines, &stderr_lines}, std::chrono::milliseconds(0));
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  stdout_lines.Flush();
  stderr_lines.Flush();
  if (lines > kMaxHookLines)
    output(true, "(" + std::to_string(lines - kMaxHookLines) + " more lines not logged)");
  HookOutcome outcome;
  outcome.took = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
  outcome.text = Describe(status);
  if (end.killed) {
    outcome.kind = HookOutcome::Kind::kTimeout;
    if (end.exited_before_kill) outcome.text += ", then what it left running was killed";
    if (!end.where.empty()) outcome.text += "; at its timeout: " + end.where;
  } else {
    outcome.kind = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? HookOutcome::Kind::kOk
                                                                  : HookOutcome::Kind::kFailed;
  }
  return outcome;
}

}  // namespace smsupd
