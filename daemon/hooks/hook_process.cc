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

namespace smsupd {
namespace {

using SteadyClock = std::chrono::steady_clock;

// From SIGTERM to SIGKILL: a hook that cleans up on SIGTERM gets this long.
constexpr std::chrono::milliseconds kKillGrace(1000);

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

// fork + execve, no shell. Between the two only async-signal-safe calls:
// the hook gets its own process group, default signal handling, SIGKILL
// when the thread that started it dies (the daemon crashed or was killed:
// no hook outlives smsupd), stdin /dev/null, the pipes, no other fd.
pid_t Spawn(const std::string& path, const HookJob& job, int out, int err, std::string& failure) {
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
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::setpgid(0, 0);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  for (int signal = 1; signal < NSIG; ++signal) ::sigaction(signal, &default_action, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int null = ::open("/dev/null", O_RDONLY);
  if (null < 0 || ::dup2(null, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(127);
  ::close_range(3, ~0U, 0);
  ::execve(path.c_str(), argv.data(), envp.data());
  ::_exit(127);
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

}  // namespace

HookOutcome RunHook(const std::string& path, const HookJob& job, const HookOutputSink& output,
                    const std::atomic<bool>& abort) {
  const auto started = SteadyClock::now();
  HookOutcome outcome;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return {HookOutcome::Kind::kNotStarted, std::strerror(errno), {}};
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return {HookOutcome::Kind::kNotStarted, std::strerror(errno), {}};
  }
  std::string failure;
  pid_t pid = Spawn(path, job, out[1], err[1], failure);
  ::close(out[1]);
  ::close(err[1]);
  std::array<int, 2> fds = {out[0], err[0]};
  if (pid < 0) {
    for (int fd : fds) ::close(fd);
    return {HookOutcome::Kind::kNotStarted, failure, {}};
  }
  int lines = 0;
  LineReader stdout_lines(false, output, lines), stderr_lines(true, output, lines);
  const auto deadline = started + job.timeout;
  std::optional<SteadyClock::time_point> killed_at;
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  int status = 0;
  // Without a pidfd (a kernel before 5.3) the exit is checked every 20 ms.
  const auto step = std::chrono::milliseconds(pidfd >= 0 ? 100 : 20);
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    const auto now = SteadyClock::now();
    if (!killed_at && (now >= deadline || abort.load())) {
      ::kill(-pid, abort.load() ? SIGKILL : SIGTERM);
      killed_at = now;
      outcome.kind = HookOutcome::Kind::kTimeout;
    } else if (killed_at && now >= *killed_at + kKillGrace) {
      ::kill(-pid, SIGKILL);
    }
    auto next = killed_at ? *killed_at + kKillGrace : deadline;
    auto wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(next - now),
                           std::chrono::milliseconds(1), step);
    WaitAndRead(pidfd, fds, {&stdout_lines, &stderr_lines}, wait);
  }
  if (pidfd >= 0) ::close(pidfd);
  // What the hook wrote before it ended; a child it left behind holding the
  // pipes is not waited for.
  for (int i = 0; i < 16 && (fds[0] >= 0 || fds[1] >= 0); ++i)
    WaitAndRead(-1, fds, {&stdout_lines, &stderr_lines}, std::chrono::milliseconds(0));
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  stdout_lines.Flush();
  stderr_lines.Flush();
  if (lines > kMaxHookLines)
    output(true, "(" + std::to_string(lines - kMaxHookLines) + " more lines not logged)");
  outcome.took = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
  outcome.text = Describe(status);
  if (outcome.kind != HookOutcome::Kind::kTimeout)
    outcome.kind = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? HookOutcome::Kind::kOk
                                                                  : HookOutcome::Kind::kFailed;
  return outcome;
}

}  // namespace smsupd
