#include "daemon/twin/twin_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace smsupd::twin {
namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Between fork and execve: async-signal-safe calls only.
[[noreturn]] void Exec(const ChildSpec& spec, char* const argv[], char* const envp[], int in, int out,
                       pid_t parent, int status_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(126);  // the runner died before the prctl
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(out, STDERR_FILENO);
  if (::chdir(spec.cwd.empty() ? "/" : spec.cwd.c_str()) == 0) ::execve(argv[0], argv, envp);
  int error = errno;
  ssize_t ignored = ::write(status_fd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

Result<TwinChild> TwinChild::Start(const ChildSpec& spec) {
  if (spec.argv.empty()) return Error{"no program to start"};
  int in[2] = {-1, -1}, status[2] = {-1, -1};
  int out = ::open(spec.output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (out < 0) return Error{"cannot open " + spec.output_path + ": " + std::strerror(errno)};
  const bool piped = spec.stdin_pipe ? ::pipe2(in, O_CLOEXEC) == 0 : (in[0] = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
  if (!piped || ::pipe2(status, O_CLOEXEC) != 0) {
    Error error{std::string("cannot create pipes: ") + std::strerror(errno)};
    for (int fd : {out, in[0], in[1], status[0], status[1]}) if (fd >= 0) ::close(fd);
    return error;
  }
  std::vector<char*> argv = CStrings(spec.argv), envp = CStrings(spec.env);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) Exec(spec, argv.data(), envp.data(), in[0], out, parent, status[1]);
  int fork_errno = errno;
  for (int fd : {out, in[0], status[1]}) ::close(fd);
  if (pid < 0) {
    for (int fd : {in[1], status[0]}) if (fd >= 0) ::close(fd);
    return Error{std::string("cannot fork: ") + std::strerror(fork_errno)};
  }
  int exec_errno = 0;
  ssize_t n;
  do n = ::read(status[0], &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  ::close(status[0]);
  TwinChild child(pid, in[1]);
  if (n == sizeof exec_errno) {
    child.Wait(std::chrono::milliseconds(1000));
    return Error{"cannot execute " + spec.argv[0] + ": " + std::strerror(exec_errno)};
  }
  return child;
}

TwinChild::TwinChild(TwinChild&& other) noexcept
    : pid_(other.pid_), stdin_fd_(other.stdin_fd_), status_(other.status_) {
  other.pid_ = -1;
  other.stdin_fd_ = -1;
}

TwinChild::~TwinChild() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {}
  }
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
}

std::optional<int> TwinChild::Poll() {
  if (status_ || pid_ <= 0) return status_;
  int raw = 0;
  if (::waitpid(pid_, &raw, WNOHANG) == pid_) status_ = raw;
  return status_;
}

std::optional<int> TwinChild::Wait(std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  // Polled: the runner has nothing else to do, and a 5 ms step costs
  // nothing next to OpenSM's sweep.
  while (!Poll() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return status_;
}

void TwinChild::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0 || Poll()) return;
  ::kill(pid_, SIGTERM);
  if (Wait(grace)) return;
  ::kill(pid_, SIGKILL);
  Wait(std::chrono::milliseconds(5000));
}

}  // namespace smsupd::twin
