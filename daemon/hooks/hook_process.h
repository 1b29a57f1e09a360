// Runs one hook: fork + execve (no shell) of `path` with argv {path, event},
// the job's environment only, stdin /dev/null, stdout and stderr read line
// by line, in its own process group, killed if the daemon dies. When the
// job's timeout passes the group gets SIGTERM, and SIGKILL one second
// later. Blocking: the hook runner's thread calls it, never the event loop.
// An execve that fails ends the child with status 127.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "daemon/hooks/hook_job.h"

namespace smsupd {

struct HookOutcome {
  enum class Kind { kOk, kFailed, kTimeout, kNotStarted };
  Kind kind = Kind::kOk;
  std::string text;  // "exit 0", "exit 3", "killed by signal 15", why it did not start
  std::chrono::milliseconds took{0};
};

// One line of the hook's output (without '\n', at most kMaxHookLineBytes).
using HookOutputSink = std::function<void(bool from_stderr, const std::string& line)>;

inline constexpr std::size_t kMaxHookLineBytes = 1024;
// Lines past this many per run are counted, not passed on.
inline constexpr int kMaxHookLines = 100;

// `abort` set (the daemon stops): the group is killed at once.
HookOutcome RunHook(const std::string& path, const HookJob& job, const HookOutputSink& output,
                    const std::atomic<bool>& abort);

}  // namespace smsupd
