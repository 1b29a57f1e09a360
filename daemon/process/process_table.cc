#include "daemon/process/process_table.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/atomic_file.h"

namespace smsupd {
namespace {

// The start time is field 22; field 2 (comm) may hold spaces and ')', so count
// from the last ')'.
Result<std::uint64_t> StartTicks(const std::string& stat) {
  auto paren = stat.rfind(')');
  if (paren == std::string::npos) return Error{"malformed stat line"};
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int index = 3; index <= 22; ++index) {
    if (!(fields >> field)) return Error{"short stat line"};
  }
  return std::stoull(field);
}

Result<double> SystemUptimeSeconds(const std::string& root) {
  auto text = ReadWholeFile(root + "/uptime");
  if (!text) return text.error();
  return std::strtod(text->c_str(), nullptr);
}

}  // namespace

Result<ProcessFacts> ProcFsProcessTable::Inspect(pid_t pid) const {
  std::string dir = root_ + "/" + std::to_string(pid);
  ProcessFacts facts;
  auto stat = ReadWholeFile(dir + "/stat");
  if (!stat) return Error{"no process " + std::to_string(pid)};
  auto ticks = StartTicks(*stat);
  if (!ticks) return Error{"process " + std::to_string(pid) + ": " + ticks.error().message};
  facts.start_ticks = *ticks;
  char exe[4096];
  ssize_t n = ::readlink((dir + "/exe").c_str(), exe, sizeof exe - 1);
  if (n < 0)
    return Error{"cannot read " + dir + "/exe: " + std::strerror(errno)};
  facts.exe.assign(exe, static_cast<size_t>(n));
  auto cmdline = ReadWholeFile(dir + "/cmdline");
  if (!cmdline) return cmdline.error();
  std::string arg;
  for (char c : *cmdline) {
    if (c == '\0') {
      facts.cmdline.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  auto uptime = SystemUptimeSeconds(root_);
  if (uptime) {
    double started = static_cast<double>(facts.start_ticks) / ::sysconf(_SC_CLK_TCK);
    facts.age = std::chrono::milliseconds(static_cast<long long>((*uptime - started) * 1000));
  }
  return facts;
}

}  // namespace smsupd
