// Runs one hook: fork + execveat (no shell) of the opened, checked hook
// file (hook_directory.h) with argv {path, event}, the job's environment
// only, stdin /dev/null, stdout and stderr read line by line, in its own
// process group; the hook itself is killed if the daemon dies. The hook
// runs from its descriptor, never from its path: what runs is what was
// checked. A script's interpreter gets /dev/fd/3 as its script (the kernel's
// name for a file run from a descriptor), so fd 3 stays open in the hook.
//
// A run lasts until no process of the group is left: what the hook started
// and left running when it exited (`cmd &`) may finish within the timeout.
// When the job's timeout passes, the whole group gets SIGTERM, and SIGKILL
// one second later (kKillGrace), whether the hook itself has exited or not;
// the hook's exit is watched without collecting it until then, so its pid,
// the group's id, cannot be reused by another group meanwhile. A process
// that still has not ended one second after the SIGKILL (stuck in the
// kernel) is no longer waited for. Blocking: the hook runner's thread calls
// it, never the event loop. An exec that fails ends the child with status 127.
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
  // "exit 0", "exit 3", "killed by signal 15", "exit 0, then what it left
  // running was killed", why it did not start. A hook killed at its
  // timeout while still running adds where it waited: "killed by signal 15;
  // at its timeout: sh, state S, in do_wait".
  std::string text;
  std::chrono::milliseconds took{0};
};

// One line of the hook's output (without '\n', at most kMaxHookLineBytes).
using HookOutputSink = std::function<void(bool from_stderr, const std::string& line)>;

inline constexpr std::size_t kMaxHookLineBytes = 1024;
// Lines past this many per run are counted, not passed on.
inline constexpr int kMaxHookLines = 100;
// From SIGTERM to SIGKILL: a hook that cleans up on SIGTERM gets this long.
inline constexpr std::chrono::milliseconds kKillGrace{1000};

// `hook_fd`: the hook, opened O_PATH and checked (OpenHook); `path` is its
// argv[0] and its name in the outcome. `abort` set (the daemon stops): the
// group is killed at once (SIGKILL), what the hook left running included.
HookOutcome RunHook(const std::string& path, int hook_fd, const HookJob& job, const HookOutputSink& output,
                    const std::atomic<bool>& abort);

}  // namespace smsupd
