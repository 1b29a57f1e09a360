// Who is left in a hook's process group. A hook may start processes that
// outlive it (`cmd &`); they stay in its group unless they leave it
// (setsid), and the run lasts until none is left (hook_process.h).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace smsupd {

// Whether a process other than `group`'s leader itself still runs in the
// process group `group` (a zombie has ended and does not count): a scan of
// /proc/<pid>/stat. nullopt when /proc cannot be read. Meant for a group
// whose leader has exited and is not collected yet, so that its id cannot
// be reused by another group meanwhile.
std::optional<bool> ProcessGroupHasOthers(pid_t group);

// Where a running process is, for a log line: "sh, state S, in do_wait"
// (its command name, /proc/<pid>/stat's state, the kernel function it waits
// in from /proc/<pid>/wchan). The name is the process's own choice: only
// letters, digits and "._+-" pass, anything else shows as '?'. Empty when
// /proc cannot tell (the process is gone).
std::string DescribeWhereItWaits(pid_t pid);

}  // namespace smsupd
