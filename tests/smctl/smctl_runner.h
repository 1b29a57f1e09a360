// Runs the built smctl binary as a child process with a deadline, capturing
// its exit code, stdout and stderr (through temp files: no pipe can fill).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace smsupd::smctl::testing {

struct SmctlResult {
  int exit_code = -1;  // -1: killed at the deadline or by a signal
  std::string out;
  std::string err;
};

class SmctlProcess {
 public:
  // Starts smctl with `args`; `env` entries are added to (or replace) the
  // test's environment.
  SmctlProcess(const std::vector<std::string>& args, const std::map<std::string, std::string>& env = {});
  ~SmctlProcess();  // kills the child if it still runs

  // Waits for the exit; kills the child at the deadline.
  SmctlResult Wait(std::chrono::milliseconds deadline = std::chrono::seconds(20));
  // What the child has written to stdout so far.
  std::string OutputSoFar() const;

 private:
  pid_t pid_ = -1;
  std::string directory_;
};

inline SmctlResult RunSmctl(const std::vector<std::string>& args,
                            const std::map<std::string, std::string>& env = {}) {
  return SmctlProcess(args, env).Wait();
}

}  // namespace smsupd::smctl::testing
