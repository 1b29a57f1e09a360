#include "daemon/process/pidfd_process_launcher.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <cerrno>
#include <cstring>

namespace smsupd {
namespace {

namespace asio = boost::asio;

// Lines longer than this are handed on in pieces rather than buffered without bound.
constexpr size_t kMaxLineBytes = 64 * 1024;

int PidfdOpen(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

// Shared by the pending Asio operations; outlives the WatchedProcess handle
// until every operation has completed.
class Watch : public std::enable_shared_from_this<Watch> {
 public:
  Watch(asio::io_context& io, pid_t pid, int pidfd, bool adopted, ProcessCallbacks callbacks)
      : pid_(pid), adopted_(adopted), pidfd_(io, pidfd), callbacks_(std::move(callbacks)) {}

  pid_t pid() const { return pid_; }
  bool adopted() const { return adopted_; }

  void WatchOutput(asio::io_context& io, int fd, const char* stream) {
    auto pipe = std::make_shared<asio::posix::stream_descriptor>(io, fd);
    pipes_.push_back(pipe);
    ReadLine(pipe, std::make_shared<std::string>(), stream);
  }

  void WatchExit() {
    pidfd_.async_wait(asio::posix::descriptor_base::wait_read,
                      [self = shared_from_this()](boost::system::error_code error) {
                        if (!error) self->Reap();
                      });
  }

  Status Signal(int signal) {
    if (!pidfd_.is_open()) return Error{"process " + std::to_string(pid_) + " has exited"};
    if (::syscall(SYS_pidfd_send_signal, pidfd_.native_handle(), signal, nullptr, 0) != 0)
      return Error{"cannot signal process " + std::to_string(pid_) + ": " + std::strerror(errno)};
    return Status::Ok();
  }

  // No callback runs after this; pending operations complete as aborted.
  void Detach() {
    detached_ = true;
    boost::system::error_code ignored;
    pidfd_.close(ignored);
    for (auto& pipe : pipes_) pipe->close(ignored);
  }

 private:
  void ReadLine(std::shared_ptr<asio::posix::stream_descriptor> pipe,
                std::shared_ptr<std::string> buffer, const char* stream) {
    asio::async_read_until(
        *pipe, asio::dynamic_buffer(*buffer, kMaxLineBytes), '\n',
        [self = shared_from_this(), pipe, buffer, stream](boost::system::error_code error,
                                                          size_t length) {
          if (self->detached_) return;
          if (!error) {
            self->Emit(stream, std::string_view(*buffer).substr(0, length - 1));
            buffer->erase(0, length);
          } else if (error == asio::error::not_found) {  // over-long line
            self->Emit(stream, *buffer);
            buffer->clear();
          } else {  // EOF or closed: hand on what is left
            if (!buffer->empty()) self->Emit(stream, *buffer);
            return;
          }
          self->ReadLine(pipe, buffer, stream);
        });
  }

  void Emit(const char* stream, std::string_view line) {
    if (callbacks_.on_output) callbacks_.on_output(stream, line);
  }

  void Reap() {
    ExitStatus status;
    int raw = 0;
    if (!adopted_ && ::waitpid(pid_, &raw, WNOHANG) == pid_) {
      if (WIFEXITED(raw)) status = {ExitStatus::Kind::kExited, WEXITSTATUS(raw)};
      else if (WIFSIGNALED(raw)) status = {ExitStatus::Kind::kSignaled, WTERMSIG(raw)};
    }
    boost::system::error_code ignored;
    pidfd_.close(ignored);
    if (!detached_ && callbacks_.on_exit) callbacks_.on_exit(status);
  }

  pid_t pid_;
  bool adopted_;
  bool detached_ = false;
  asio::posix::stream_descriptor pidfd_;
  std::vector<std::shared_ptr<asio::posix::stream_descriptor>> pipes_;
  ProcessCallbacks callbacks_;
};

class PidfdProcess : public WatchedProcess {
 public:
  explicit PidfdProcess(std::shared_ptr<Watch> watch) : watch_(std::move(watch)) {}
  ~PidfdProcess() override { watch_->Detach(); }
  pid_t pid() const override { return watch_->pid(); }
  bool adopted() const override { return watch_->adopted(); }
  Status Signal(int signal) override { return watch_->Signal(signal); }

 private:
  std::shared_ptr<Watch> watch_;
};

struct ChildFds {
  int devnull, out_write, err_write, exec_status_write;
};

// Runs between fork and execve: async-signal-safe calls only (other threads
// may have held locks at fork time).
[[noreturn]] void ExecChild(const SpawnRequest& request, char* const argv[], char* const envp[],
                            const ChildFds& fds) {
  // A process group of its own, in smsupd's session: a Ctrl-C meant for
  // smsupd in a terminal does not reach it, and the scheduler puts it in
  // smsupd's autogroup (a session of its own is an autogroup of its own,
  // which Linux weighs as one whole process against everything else).
  ::setpgid(0, 0);
  ::dup2(fds.devnull, STDIN_FILENO);
  ::dup2(fds.out_write, STDOUT_FILENO);
  ::dup2(fds.err_write, STDERR_FILENO);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // If smsupd dies (kill -9), the pipes' read ends vanish; an ignored SIGPIPE
  // turns OpenSM's next print into a failed write instead of its death.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, nullptr);
  // No descriptor of smsupd (control socket, simulator connection) may leak.
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  if (::chdir(request.cwd.empty() ? "/" : request.cwd.c_str()) == 0)
    ::execve(request.binary.c_str(), argv, envp);
  int error = errno;
  ssize_t ignored_bytes = ::write(fds.exec_status_write, &error, sizeof error);
  (void)ignored_bytes;
  ::_exit(127);
}

std::vector<char*> CStrings(const std::vector<std::string>& strings, const std::string* first) {
  std::vector<char*> out;
  if (first) out.push_back(const_cast<char*>(first->c_str()));
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

void CloseAll(std::initializer_list<int> fds) {
  for (int fd : fds) if (fd >= 0) ::close(fd);
}

}  // namespace

Result<std::unique_ptr<WatchedProcess>> PidfdProcessLauncher::Spawn(const SpawnRequest& request,
                                                                    ProcessCallbacks callbacks) {
  int out[2] = {-1, -1}, err[2] = {-1, -1}, exec_status[2] = {-1, -1};
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
      ::pipe2(exec_status, O_CLOEXEC) != 0) {
    Error error{std::string("cannot create pipes: ") + std::strerror(errno)};
    CloseAll({devnull, out[0], out[1], err[0], err[1], exec_status[0], exec_status[1]});
    return error;
  }
  std::vector<char*> argv = CStrings(request.args, &request.binary);
  std::vector<char*> envp = CStrings(request.env, nullptr);
  pid_t pid = ::fork();
  if (pid == 0) ExecChild(request, argv.data(), envp.data(), {devnull, out[1], err[1], exec_status[1]});
  int fork_errno = errno;
  CloseAll({devnull, out[1], err[1], exec_status[1]});
  if (pid < 0) {
    CloseAll({out[0], err[0], exec_status[0]});
    return Error{std::string("cannot fork: ") + std::strerror(fork_errno)};
  }
  // The status pipe closes on a successful execve; otherwise it carries errno.
  int exec_errno = 0;
  ssize_t n;
  do n = ::read(exec_status[0], &exec_errno, sizeof exec_errno);
  while (n < 0 && errno == EINTR);
  ::close(exec_status[0]);
  if (n == sizeof exec_errno) {
    ::waitpid(pid, nullptr, 0);
    CloseAll({out[0], err[0]});
    return Error{"cannot execute " + request.binary + ": " + std::strerror(exec_errno)};
  }
  int pidfd = PidfdOpen(pid);  // our unreaped child: the pid cannot be recycled yet
  if (pidfd < 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    CloseAll({out[0], err[0]});
    return Error{std::string("pidfd_open failed: ") + std::strerror(errno)};
  }
  auto watch = std::make_shared<Watch>(io_, pid, pidfd, false, std::move(callbacks));
  watch->WatchOutput(io_, out[0], "stdout");
  watch->WatchOutput(io_, err[0], "stderr");
  watch->WatchExit();
  return std::unique_ptr<WatchedProcess>(std::make_unique<PidfdProcess>(std::move(watch)));
}

Result<std::unique_ptr<WatchedProcess>> PidfdProcessLauncher::Adopt(pid_t pid,
                                                                    ProcessCallbacks callbacks) {
  int pidfd = PidfdOpen(pid);
  if (pidfd < 0)
    return Error{"cannot watch process " + std::to_string(pid) + ": " + std::strerror(errno)};
  auto watch = std::make_shared<Watch>(io_, pid, pidfd, true, std::move(callbacks));
  watch->WatchExit();
  return std::unique_ptr<WatchedProcess>(std::make_unique<PidfdProcess>(std::move(watch)));
}

}  // namespace smsupd
