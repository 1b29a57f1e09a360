#include "tests/testbed/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "tests/testbed/wait_for.h"
#include "common/atomic_file.h"

extern char** environ;

namespace smsupd::testbed {
namespace {

std::string ErrnoText(const std::string& what) { return what + ": " + std::strerror(errno); }

// execve needs a path: resolve argv[0] against PATH in the parent, where
// allocation is safe.
std::string ResolveExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return name;
}

std::vector<std::string> BuildEnvironment(const ChildSpec& spec) {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string text = *entry;
    size_t eq = text.find('=');
    if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  for (const std::string& name : spec.unset_env) env.erase(name);
  for (const auto& [name, value] : spec.env) env[name] = value;
  std::vector<std::string> out;
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Runs in the forked child: only async-signal-safe calls until execve.
[[noreturn]] void ExecChild(pid_t parent, bool outlive_parent, const char* path, char** argv, char** envp,
                            const char* cwd, int stdin_fd, int stdout_fd, int stderr_fd) {
  setpgid(0, 0);
  if (!outlive_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
  }
  dup2(stdin_fd, 0);
  dup2(stdout_fd, 1);
  dup2(stderr_fd, 2);
  close_range(3, ~0U, 0);
  if (cwd != nullptr && chdir(cwd) != 0) _exit(126);
  execve(path, argv, envp);
  _exit(127);
}

int OpenOutput(const std::string& path) {
  return open(path.empty() ? "/dev/null" : path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

}  // namespace

std::string ExitStatus::Describe() const {
  if (signaled) return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exited with code " + std::to_string(code);
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::Start(const ChildSpec& spec) {
  if (spec.argv.empty()) return Error{"no command given"};
  std::string path = ResolveExecutable(spec.argv[0]);
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = BuildEnvironment(spec);
  std::vector<char*> argv = Pointers(args);
  std::vector<char*> envp = Pointers(env);

  int out_fd = OpenOutput(spec.output_path);
  if (out_fd < 0) return Error{ErrnoText("cannot open " + spec.output_path)};
  int in_pipe[2] = {-1, -1};
  int out_pipe[2] = {-1, -1};
  if (spec.pipe_stdin && pipe2(in_pipe, O_CLOEXEC) != 0) return Error{ErrnoText("pipe")};
  if (spec.pipe_stdout && pipe2(out_pipe, O_CLOEXEC) != 0) return Error{ErrnoText("pipe")};
  int null_in = spec.pipe_stdin ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC);

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    ExecChild(parent, spec.outlive_parent, path.c_str(), argv.data(), envp.data(), spec.cwd.empty() ? nullptr : spec.cwd.c_str(),
              spec.pipe_stdin ? in_pipe[0] : null_in, spec.pipe_stdout ? out_pipe[1] : out_fd, out_fd);
  }
  const int fork_errno = errno;
  close(out_fd);
  if (null_in >= 0) close(null_in);
  if (in_pipe[0] >= 0) close(in_pipe[0]);
  if (out_pipe[1] >= 0) close(out_pipe[1]);
  if (pid < 0) {
    errno = fork_errno;
    return Error{ErrnoText("fork")};
  }
  setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->stdin_fd_ = in_pipe[1];
  child->stdout_fd_ = out_pipe[0];
  child->output_path_ = spec.output_path;
  return child;
}

ChildProcess::~ChildProcess() {
  Kill();
  CloseStdin();
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

void ChildProcess::Reap(int wait_status) {
  ExitStatus status;
  if (WIFSIGNALED(wait_status)) {
    status.signaled = true;
    status.signal = WTERMSIG(wait_status);
  } else {
    status.code = WEXITSTATUS(wait_status);
  }
  exit_status_ = status;
}

bool ChildProcess::Running() {
  if (exit_status_) return false;
  int wait_status = 0;
  pid_t r = waitpid(pid_, &wait_status, WNOHANG);
  if (r == pid_) Reap(wait_status);
  return !exit_status_;
}

Status ChildProcess::Signal(int signal) {
  if (!Running()) return Error{"process " + std::to_string(pid_) + " has exited"};
  if (kill(-pid_, signal) != 0) return Error{ErrnoText("kill")};
  return Status::Ok();
}

Result<ExitStatus> ChildProcess::Wait(std::chrono::milliseconds deadline) {
  Status s = WaitFor("process " + std::to_string(pid_) + " to exit", [this] { return !Running(); }, deadline,
                     std::chrono::milliseconds(5));
  if (!s) return Error{s.message()};
  return *exit_status_;
}

void ChildProcess::Kill() {
  if (pid_ < 0) return;
  // The group may hold descendants even after the leader exited.
  kill(-pid_, SIGKILL);
  if (exit_status_) return;
  int wait_status = 0;
  while (waitpid(pid_, &wait_status, 0) < 0 && errno == EINTR) {
  }
  Reap(wait_status);
}

ExitStatus ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (Running()) {
    kill(-pid_, SIGTERM);
    (void)Wait(grace);
  }
  Kill();
  return *exit_status_;
}

Status ChildProcess::WriteStdin(std::string_view text) {
  if (stdin_fd_ < 0) return Error{"no stdin pipe"};
  while (!text.empty()) {
    ssize_t n = write(stdin_fd_, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{ErrnoText("write to child stdin")};
    text.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

void ChildProcess::CloseStdin() {
  if (stdin_fd_ >= 0) close(stdin_fd_);
  stdin_fd_ = -1;
}

std::vector<pid_t> FindProcessesMentioning(const std::string& needle) {
  std::vector<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == getpid()) continue;
    for (const char* file : {"cmdline", "environ"}) {
      // A process may exit while it is read (ESRCH): ReadWholeFile says so
      // as an error, where an istreambuf_iterator would throw.
      Result<std::string> text = ReadWholeFile("/proc/" + std::string(entry->d_name) + "/" + file);
      if (text.ok() && text->find(needle) != std::string::npos) {
        found.push_back(static_cast<pid_t>(pid));
        break;
      }
    }
  }
  closedir(proc);
  return found;
}

}  // namespace smsupd::testbed
