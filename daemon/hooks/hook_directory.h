// Which files of hooks.directory run (docs/hooks.md "Which files run"):
// like run-parts, names of letters, digits, '_' and '-' only (editor
// backups, dpkg leftovers and README files never run), regular files with
// an execute bit, in byte order of their names. The directory and each hook
// must be owned by root and writable by no one else: a hook runs as the
// daemon, so whoever may change it may run anything as root.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace smsupd {

struct HookListing {
  std::vector<std::string> hooks;    // paths to run, in order
  std::vector<std::string> refused;  // "PATH: why", one per refused hook
  std::string error;                 // the directory itself is unusable (nothing runs)
};

HookListing ListHooks(const std::string& directory);

// "" when `info` (of `path`) is owned by root and not group/world writable;
// otherwise why not, e.g. "owned by uid 1000, not root".
std::string OwnershipProblem(const struct stat& info);

}  // namespace smsupd
