// Runs the project's smctl the way an operator would, with a deadline: its
// exit code, stdout and stderr kept apart (a refusal's reason is on stderr,
// --json output on stdout). The one way tests and benchmarks run smctl.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace smsupd::testbed {

struct SmctlResult {
  int exit_code = -1;  // -1: killed (deadline) or could not start
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};

  // stdout as JSON (a discarded value when it is not JSON).
  nlohmann::json Json() const;
  // A whole response's "arguments" when stdout is one, else stdout as JSON.
  nlohmann::json Arguments() const;
  // The reply's verification.state ("" when there is none).
  std::string VerificationState() const;
  // "exit 1 after 12 ms, stderr: ..., stdout: ..." for assertion messages.
  std::string Describe() const;
};

// Runs `smctl args...`, or `run_as... smctl args...` when `run_as` names a
// command that runs it (e.g. setpriv with another uid). Runs in its own
// process group without the umad2sim preload (smctl only talks to the
// socket); a command still running at `deadline` is killed. `scratch_dir`
// holds its stderr while it runs.
SmctlResult RunSmctl(const std::vector<std::string>& args, std::chrono::milliseconds deadline,
                     const std::string& scratch_dir, const std::vector<std::string>& run_as = {});

}  // namespace smsupd::testbed
