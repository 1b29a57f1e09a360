#include "daemon/hooks/hook_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace smsupd {
namespace {

bool RunnableName(const char* name) {
  if (*name == '\0') return false;
  for (const char* c = name; *c != '\0'; ++c)
    if (!std::isalnum(static_cast<unsigned char>(*c)) && *c != '_' && *c != '-') return false;
  return true;
}

std::string Mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// The names from / down to the directory; false when `path` is not
// absolute or holds "." or "..": the walk names each directory it checks.
bool SplitPath(const std::string& path, std::vector<std::string>& components) {
  if (path.empty() || path[0] != '/') return false;
  std::size_t at = 0;
  while (at < path.size()) {
    std::size_t end = path.find('/', at);
    if (end == std::string::npos) end = path.size();
    std::string name = path.substr(at, end - at);
    if (name == "." || name == "..") return false;
    if (!name.empty()) components.push_back(std::move(name));
    at = end + 1;
  }
  return true;
}

// "" when a directory above the hooks may be trusted; otherwise "is ...".
std::string AboveProblem(const struct stat& info) {
  if (S_ISLNK(info.st_mode)) return "is a symbolic link";
  if (!S_ISDIR(info.st_mode)) return "is not a directory";
  if (info.st_uid != 0) return "is " + OwnershipProblem(info);
  // Sticky: only root (the owner) may rename or remove root's entries.
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) && !(info.st_mode & S_ISVTX))
    return "is " + OwnershipProblem(info);
  return "";
}

// "" when the hooks directory itself may be trusted; otherwise "is ...".
std::string DirectoryProblem(const struct stat& info) {
  if (S_ISLNK(info.st_mode)) return "is a symbolic link";
  if (!S_ISDIR(info.st_mode)) return "is not a directory";
  if (std::string problem = OwnershipProblem(info); !problem.empty()) return "is " + problem;
  return "";
}

// Why a directory above `directory` is not trusted, in the words
// HOOK_DIRECTORY_REFUSED uses.
std::string Refusal(const std::string& above, const std::string& directory, const std::string& problem) {
  return above + ", above " + directory + ", " + problem;
}

// Opens `directory` for reading after checking it and every directory
// above it on its own descriptor (the walk from /, one name at a time,
// never following a link).
OwnedFd OpenCheckedDirectory(const std::string& directory, std::string& error) {
  std::vector<std::string> components;
  if (!SplitPath(directory, components)) {
    error = directory + " is not an absolute path without . or ..";
    return OwnedFd();
  }
  OwnedFd current(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
  std::string at = "/";
  struct stat info {};
  if (!current.valid() || ::fstat(current.get(), &info) != 0) {
    error = "cannot read /: " + std::string(std::strerror(errno));
    return OwnedFd();
  }
  if (components.empty()) {
    if (std::string problem = DirectoryProblem(info); !problem.empty()) error = directory + " " + problem;
  } else if (std::string problem = AboveProblem(info); !problem.empty()) {
    error = Refusal(at, directory, problem);
  }
  if (!error.empty()) return OwnedFd();
  for (std::size_t i = 0; i < components.size(); ++i) {
    at = (at == "/" ? "" : at) + "/" + components[i];
    OwnedFd next(::openat(current.get(), components[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid() || ::fstat(next.get(), &info) != 0) {
      const int failure = errno;
      error = "cannot read " + at + ": " + std::strerror(failure);
      return OwnedFd();
    }
    const bool last = i + 1 == components.size();
    if (std::string problem = last ? DirectoryProblem(info) : AboveProblem(info); !problem.empty()) {
      error = last ? directory + " " + problem : Refusal(at, directory, problem);
      return OwnedFd();
    }
    current = std::move(next);
  }
  // An O_PATH descriptor cannot be listed: "." of the checked one can.
  OwnedFd readable(::openat(current.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!readable.valid()) error = "cannot read " + directory + ": " + std::strerror(errno);
  return readable;
}

std::vector<std::string> RunnableNames(int directory_fd, std::string& error) {
  std::vector<std::string> names;
  int fd = ::fcntl(directory_fd, F_DUPFD_CLOEXEC, 0);
  DIR* dir = fd < 0 ? nullptr : ::fdopendir(fd);
  if (dir == nullptr) {
    error = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return names;
  }
  while (const dirent* entry = ::readdir(dir))
    if (RunnableName(entry->d_name)) names.emplace_back(entry->d_name);
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

OwnedFd& OwnedFd::operator=(OwnedFd&& other) noexcept {
  if (this != &other) {
    Reset();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void OwnedFd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string OwnershipProblem(const struct stat& info) {
  if (info.st_uid != 0) return "owned by uid " + std::to_string(info.st_uid) + ", not root";
  if (info.st_mode & (S_IWGRP | S_IWOTH))
    return "writable by group or others (mode " + Mode(info.st_mode) + ")";
  return "";
}

HookListing ListHooks(const std::string& directory) {
  HookListing listing;
  listing.directory = OpenCheckedDirectory(directory, listing.error);
  if (!listing.error.empty()) return listing;
  std::string error;
  listing.names = RunnableNames(listing.directory.get(), error);
  if (!error.empty()) listing.error = "cannot read " + directory + ": " + error;
  return listing;
}

OpenedHook OpenHook(const HookListing& listing, const std::string& directory, const std::string& name) {
  OpenedHook hook;
  hook.path = directory + "/" + name;
  OwnedFd fd(::openat(listing.directory.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || ::fstat(fd.get(), &info) != 0) {
    const int failure = errno;
    if (failure == ENOENT) return hook;  // removed since the listing
    hook.kind = OpenedHook::Kind::kRefused;
    hook.refusal = hook.path + ": cannot open it: " + std::strerror(failure);
    return hook;
  }
  if (S_ISLNK(info.st_mode)) {
    hook.kind = OpenedHook::Kind::kRefused;
    hook.refusal = hook.path + ": is a symbolic link";
    return hook;
  }
  if (!S_ISREG(info.st_mode) || !(info.st_mode & S_IXUSR)) return hook;
  if (std::string problem = OwnershipProblem(info); !problem.empty()) {
    hook.kind = OpenedHook::Kind::kRefused;
    hook.refusal = hook.path + ": " + problem;
    return hook;
  }
  hook.kind = OpenedHook::Kind::kRun;
  hook.fd = std::move(fd);
  return hook;
}

}  // namespace smsupd
