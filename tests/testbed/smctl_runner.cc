#include "tests/testbed/smctl_runner.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "tests/testbed/child_process.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;

std::atomic<int> next_run{0};

std::string ReadAndRemove(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return text;
}

// Reads `fd` until end-of-file or `end`; false when the deadline passed.
bool ReadUntilEof(int fd, Clock::time_point end, std::string& out) {
  for (;;) {
    auto left = std::chrono::duration_cast<milliseconds>(end - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char chunk[16384];
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace

json SmctlResult::Json() const { return json::parse(out, nullptr, false); }

json SmctlResult::Arguments() const {
  json whole = Json();
  if (whole.is_object() && whole.contains("result") && whole.contains("arguments")) return whole["arguments"];
  return whole;
}

std::string SmctlResult::VerificationState() const {
  json args = Arguments();
  if (!args.is_object() || !args.contains("verification") || !args["verification"].is_object()) return "";
  return args["verification"].value("state", "");
}

std::string SmctlResult::Describe() const {
  std::string text = exit_code < 0 ? "killed or not started" : "exit " + std::to_string(exit_code);
  text += " after " + std::to_string(elapsed.count()) + " ms";
  if (!err.empty()) text += ", stderr: " + err;
  if (!out.empty()) text += ", stdout: " + out;
  return text;
}

SmctlResult RunSmctl(const std::vector<std::string>& args, milliseconds deadline, const std::string& scratch_dir,
                     const std::vector<std::string>& run_as) {
  SmctlResult result;
  const Clock::time_point start = Clock::now();
  ChildSpec spec;
  spec.argv = run_as;
  spec.argv.push_back(SMSUPD_SMCTL_PATH);
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.unset_env = {"LD_PRELOAD"};
  spec.output_path = scratch_dir + "/smctl-" + std::to_string(::getpid()) + "-" + std::to_string(next_run++) +
                     ".err";
  spec.pipe_stdout = true;
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  if (!child) {
    result.err = child.error().message;
    return result;
  }
  bool finished = ReadUntilEof((*child)->stdout_fd(), start + deadline, result.out);
  auto left = std::chrono::duration_cast<milliseconds>(start + deadline - Clock::now());
  Result<ExitStatus> status = finished ? (*child)->Wait(std::max(left, milliseconds(100)))
                                       : Result<ExitStatus>(Error{"deadline"});
  if (!status) (*child)->Kill();
  if (status && !status->signaled) result.exit_code = status->code;
  child->reset();
  result.err = ReadAndRemove(spec.output_path);
  if (!status) result.err += "(killed: still running after " + std::to_string(deadline.count()) + " ms)";
  result.elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return result;
}

}  // namespace smsupd::testbed
