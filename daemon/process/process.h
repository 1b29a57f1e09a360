// Child processes behind an interface: spawn, signal and
// watch OpenSM. The real launcher forks and watches through a pidfd on the
// Asio loop; tests may substitute their own.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace smsupd {

// How a watched process ended. An adopted process is not our child: its exit
// status cannot be collected, so it ends kUnknown.
struct ExitStatus {
  enum class Kind { kExited, kSignaled, kUnknown };
  Kind kind = Kind::kUnknown;
  int value = 0;  // exit code or signal number

  // "exit status 3", "signal 9 (Killed)", "exit status unknown (adopted process)".
  std::string Describe() const;
  bool clean() const { return kind == Kind::kExited && value == 0; }
};

struct SpawnRequest {
  std::string binary;             // absolute path, executed as argv[0]
  std::vector<std::string> args;  // argv[1..]
  std::vector<std::string> env;   // the complete environment, "NAME=value"
  std::string cwd;                // working directory of the child
};

// Called on the io_context thread. `stream` is "stdout" or "stderr"; lines
// come without their newline. on_exit is called at most once.
struct ProcessCallbacks {
  std::function<void(std::string_view stream, std::string_view line)> on_output;
  std::function<void(const ExitStatus&)> on_exit;
};

// A running process that is being watched. Destroying it stops the watching
// (no more callbacks) but never signals the process: OpenSM must outlive a
// crashing smsupd.
class WatchedProcess {
 public:
  virtual ~WatchedProcess() = default;
  virtual pid_t pid() const = 0;
  virtual bool adopted() const = 0;
  // Sends `signal` through the pidfd, so a recycled pid is never hit.
  virtual Status Signal(int signal) = 0;
};

class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  // Starts the process in a process group of its own within smsupd's
  // session (a Ctrl-C meant for smsupd in a terminal does not reach it; the
  // scheduler's autogroup is smsupd's). The error says why exec failed.
  virtual Result<std::unique_ptr<WatchedProcess>> Spawn(const SpawnRequest& request,
                                                        ProcessCallbacks callbacks) = 0;
  // Watches a process smsupd did not start (a previous smsupd did).
  virtual Result<std::unique_ptr<WatchedProcess>> Adopt(pid_t pid, ProcessCallbacks callbacks) = 0;
};

}  // namespace smsupd
