#include "daemon/process/process_table.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
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

// The hex mask after "NAME:\t" in /proc/<pid>/status; 0 when absent.
std::uint64_t StatusMask(const std::string& status, std::string_view name) {
  std::size_t at = status.find("\n" + std::string(name) + ":");
  if (at == std::string::npos) return 0;
  return std::strtoull(status.c_str() + at + name.size() + 2, nullptr, 16);
}

}  // namespace

bool ProcessFacts::Survives(int signal) const {
  if (signal < 1 || signal > 64) return false;
  std::uint64_t bit = std::uint64_t{1} << (signal - 1);
  return (signals_caught & bit) != 0 || (signals_blocked & bit) != 0;
}

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
  if (auto status = ReadWholeFile(dir + "/status")) {
    facts.signals_caught = StatusMask(*status, "SigCgt");
    facts.signals_blocked = StatusMask(*status, "SigBlk");
  }
  auto uptime = SystemUptimeSeconds(root_);
  if (uptime) {
    double started = static_cast<double>(facts.start_ticks) / ::sysconf(_SC_CLK_TCK);
    facts.age = std::chrono::milliseconds(static_cast<long long>((*uptime - started) * 1000));
  }
  return facts;
}

}  // namespace smsupd
