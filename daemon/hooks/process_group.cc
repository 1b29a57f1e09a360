#include "daemon/hooks/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace smsupd {
namespace {

// /proc/<pid>/stat is "pid (comm) state ppid pgrp ...". comm may hold
// anything, ')' and spaces included, but at most 15 bytes: the fields after
// the last ')' are within the first few hundred bytes.
bool RunsInGroup(pid_t pid, pid_t group) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // gone meanwhile
  char text[512];
  ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (got <= 0) return false;
  text[got] = '\0';
  const char* end = std::strrchr(text, ')');
  char state = 0;
  int parent = 0, pgrp = 0;
  if (end == nullptr || std::sscanf(end + 1, " %c %d %d", &state, &parent, &pgrp) != 3) return false;
  return pgrp == group && state != 'Z' && state != 'X';
}

}  // namespace

std::optional<bool> ProcessGroupHasOthers(pid_t group) {
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return std::nullopt;
  bool found = false;
  while (const dirent* entry = found ? nullptr : ::readdir(proc)) {
    char* rest = nullptr;
    long pid = std::strtol(entry->d_name, &rest, 10);
    if (pid <= 0 || *rest != '\0' || pid == group) continue;
    found = RunsInGroup(static_cast<pid_t>(pid), group);
  }
  ::closedir(proc);
  return found;
}

}  // namespace smsupd
