// Which files of hooks.directory run (docs/hooks.md "Which files run"):
// like run-parts, names of letters, digits, '_' and '-' only (editor
// backups, dpkg leftovers and README files never run), regular files with
// an execute bit, in byte order of their names.
//
// A hook runs as the daemon (root), so whoever may change it, or change
// which file its path names, may run anything as root. Hence:
// - the directory and every directory above it up to / are opened one by
//   one from /, never following a symbolic link (O_NOFOLLOW), and each is
//   checked on the opened descriptor: owned by root, not writable by group
//   or others. A directory above it may be writable by others when it is
//   sticky (like /tmp): then no one but root may rename or remove root's
//   entries in it. The hooks directory itself may not;
// - each hook is opened in that directory without following a link, and
//   checked on the descriptor: owned by root, not group or world writable;
// - the hook runs from that descriptor (hook_process.h): what runs is the
//   file that was checked, whatever its path names by then.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

namespace smsupd {

// An open file descriptor, closed with its owner.
class OwnedFd {
 public:
  OwnedFd() = default;
  explicit OwnedFd(int fd) : fd_(fd) {}
  ~OwnedFd() { Reset(); }
  OwnedFd(OwnedFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OwnedFd& operator=(OwnedFd&& other) noexcept;
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  void Reset();
  int fd_ = -1;
};

struct HookListing {
  OwnedFd directory;               // the checked directory, open while its hooks run
  std::vector<std::string> names;  // runnable names, in byte order (not opened yet)
  std::string error;               // the directory is unusable (nothing runs)
};

HookListing ListHooks(const std::string& directory);

struct OpenedHook {
  enum class Kind { kRun, kSkip, kRefused };
  Kind kind = Kind::kSkip;  // kSkip: not a hook (not a regular file, no execute bit)
  std::string path;         // directory + "/" + name, for argv[0] and the log
  OwnedFd fd;               // kRun: the hook, opened O_PATH
  std::string refusal;      // kRefused: "PATH: why"
};

// Opens `name` of a listing (ListHooks of `directory`) without following a
// symbolic link, and checks the opened file.
OpenedHook OpenHook(const HookListing& listing, const std::string& directory, const std::string& name);

// "" when `info` is owned by root and not group/world writable; otherwise
// why not, e.g. "owned by uid 1000, not root".
std::string OwnershipProblem(const struct stat& info);

}  // namespace smsupd
