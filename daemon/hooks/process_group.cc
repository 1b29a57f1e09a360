#include "daemon/hooks/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace smsupd {
namespace {

// At most `limit` bytes of a /proc file, "" if it cannot be read.
std::string ReadProcFile(const char* path, std::size_t limit) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text(limit, '\0');
  ssize_t got = ::read(fd, text.data(), limit);
  ::close(fd);
  text.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return text;
}

std::string Printable(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                       c == '_' || c == '+' || c == '-';
    out += plain ? c : '?';
  }
  return out;
}

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

std::string DescribeWhereItWaits(pid_t pid) {
  char path[40];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const std::string stat = ReadProcFile(path, 511);
  const std::size_t open = stat.find('(');
  const std::size_t close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open || close + 2 >= stat.size())
    return {};
  std::string where = Printable(std::string_view(stat).substr(open + 1, close - open - 1)) + ", state " +
                      Printable(std::string_view(stat).substr(close + 2, 1));
  std::snprintf(path, sizeof path, "/proc/%d/wchan", static_cast<int>(pid));
  const std::string wchan = ReadProcFile(path, 127);
  if (!wchan.empty() && wchan != "0") where += ", in " + Printable(wchan);
  return where;
}

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
