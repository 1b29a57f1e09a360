// A child process that cannot outlive the test: it runs in its own process
// group (every descendant is killed with it), gets SIGKILL from the kernel
// when the thread that started it dies (PR_SET_PDEATHSIG), and the owner's
// destructor kills and reaps the whole group.
//
// Contract: start children from a long-lived thread (the test's main thread);
// PR_SET_PDEATHSIG fires when the starting *thread* exits.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace smsupd::testbed {

struct ChildSpec {
  std::vector<std::string> argv;                 // argv[0] is looked up in PATH
  std::map<std::string, std::string> env;        // added to (or replacing) the parent's
  std::vector<std::string> unset_env;            // removed from the parent's
  std::string cwd;                               // empty: the parent's
  std::string output_path;                       // stdout+stderr appended here; empty: /dev/null
  bool pipe_stdin = false;                       // keep a pipe to its stdin (WriteStdin)
  bool pipe_stdout = false;                      // stdout to a pipe (stdout_fd), stderr to output_path
  bool outlive_parent = false;                   // no PR_SET_PDEATHSIG (only for testbed-reaper)
};

struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit code when !signaled
  int signal = 0;  // terminating signal when signaled
  std::string Describe() const;
};

class ChildProcess {
 public:
  static Result<std::unique_ptr<ChildProcess>> Start(const ChildSpec& spec);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& output_path() const { return output_path_; }
  int stdout_fd() const { return stdout_fd_; }

  // True while the process has not exited (reaps it when it has).
  bool Running();
  std::optional<ExitStatus> exit_status() const { return exit_status_; }

  // Sends `signal` to the whole process group.
  Status Signal(int signal);
  // Waits up to `deadline` for the process to exit.
  Result<ExitStatus> Wait(std::chrono::milliseconds deadline);
  // SIGKILL to the group, then reaps the process. Idempotent.
  void Kill();
  // SIGTERM, up to `grace` to exit, then Kill().
  ExitStatus Stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

  // Writes to the child's stdin pipe (ChildSpec::pipe_stdin).
  Status WriteStdin(std::string_view text);
  // Closes the stdin pipe: the child reads end-of-file.
  void CloseStdin();

 private:
  ChildProcess() = default;
  void Reap(int wait_status);

  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  std::string output_path_;
  std::optional<ExitStatus> exit_status_;
};

// Every live process whose command line contains `needle` (read from
// /proc/<pid>/cmdline and /proc/<pid>/environ), for orphan checks.
std::vector<pid_t> FindProcessesMentioning(const std::string& needle);

}  // namespace smsupd::testbed
