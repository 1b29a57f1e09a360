// The twin runner's children (ibsim, OpenSM, the probe). The runner is a
// short-lived synchronous process with no event loop, so it does not use the
// daemon's PidfdProcessLauncher (which watches children on an Asio loop):
// fork + execve, output to a file, an optional stdin pipe kept open (ibsim
// spins on its console at end of file), and PR_SET_PDEATHSIG so that no
// child outlives the runner, whatever ends it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace smsupd::twin {

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is the executable's path
  std::vector<std::string> env;   // the whole environment, "NAME=value"
  std::string cwd;
  std::string output_path;        // stdout and stderr, appended
  bool stdin_pipe = false;
};

class TwinChild {
 public:
  static Result<TwinChild> Start(const ChildSpec& spec);
  TwinChild(TwinChild&& other) noexcept;
  TwinChild& operator=(TwinChild&&) = delete;
  // Kills (SIGKILL) and reaps a child still running.
  ~TwinChild();

  pid_t pid() const { return pid_; }
  // The exit status once the child ended (waitpid WNOHANG), else nullopt.
  std::optional<int> Poll();
  // Waits up to `limit` for the child to end: its exit status, or nullopt.
  std::optional<int> Wait(std::chrono::milliseconds limit);
  // SIGTERM, then SIGKILL after `grace`; reaps it.
  void Stop(std::chrono::milliseconds grace);

 private:
  TwinChild(pid_t pid, int stdin_fd) : pid_(pid), stdin_fd_(stdin_fd) {}
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::optional<int> status_;
};

// "exit status 3" / "signal 9".
std::string DescribeWaitStatus(int status);

}  // namespace smsupd::twin
