#include "daemon/hooks/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
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
struct ProcStat {
  std::string comm;  // as the process set it
  char state = 0;
  int pgrp = 0;
};

std::optional<ProcStat> ReadStat(pid_t pid) {
  char path[32];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  const std::string text = ReadProcFile(path, 511);  // "" once the process is gone
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  ProcStat stat;
  int parent = 0;
  if (std::sscanf(text.c_str() + close + 1, " %c %d %d", &stat.state, &parent, &stat.pgrp) != 3) return std::nullopt;
  stat.comm = text.substr(open + 1, close - open - 1);
  return stat;
}

bool RunsInGroup(pid_t pid, pid_t group) {
  std::optional<ProcStat> stat = ReadStat(pid);
  return stat && stat->pgrp == group && stat->state != 'Z' && stat->state != 'X';
}

}  // namespace

std::string DescribeWhereItWaits(pid_t pid) {
  std::optional<ProcStat> stat = ReadStat(pid);
  if (!stat) return {};
  std::string where = Printable(stat->comm) + ", state " + Printable(std::string_view(&stat->state, 1));
  char path[40];
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
