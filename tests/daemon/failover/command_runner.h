// Runs a command (smctl) the way an operator would, with a deadline: its
// exit code, stdout and stderr kept apart (a refusal's reason is on stderr,
// --json output on stdout).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace smsupd::testbed {

struct CommandResult {
  int exit_code = -1;  // -1: killed (deadline) or could not start
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};
  // "exit 1, stderr: ..., stdout: ..." for assertion messages.
  std::string Describe() const;
};

// Runs argv (argv[0] looked up in PATH) in its own process group; a command
// still running at `deadline` is killed. `scratch_dir` holds the stderr file
// while it runs.
CommandResult RunCommand(const std::vector<std::string>& argv, std::chrono::milliseconds deadline,
                         const std::string& scratch_dir);

}  // namespace smsupd::testbed
