#include "daemon/process/process_table.h"

#include <dirent.h>
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

std::vector<std::string> SplitCmdline(const std::string& text) {
  std::vector<std::string> args;
  std::string arg;
  for (char c : text) {
    if (c == '\0') {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += c;
    }
  }
  if (!arg.empty()) args.push_back(arg);  // cut at kMaxCmdlineBytes
  return args;
}

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
  facts.cmdline = SplitCmdline(*cmdline);
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

std::vector<NamedProcess> ProcFsProcessTable::FindByName(const std::string& name) const {
  std::vector<NamedProcess> found;
  DIR* dir = ::opendir(root_.c_str());
  if (dir == nullptr) return found;
  std::size_t scanned = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string_view pid_text = entry->d_name;
    if (pid_text.empty() || pid_text.find_first_not_of("0123456789") != std::string_view::npos) continue;
    if (++scanned > kMaxProcessesScanned) break;
    const std::string base = root_ + "/" + std::string(pid_text);
    auto comm = ReadWholeFile(base + "/comm", 64);
    if (!comm || comm->substr(0, comm->find('\n')) != name) continue;
    auto cmdline = ReadWholeFile(base + "/cmdline", kMaxCmdlineBytes);
    // Gone meanwhile, or empty: a zombie, or a process inside execve(2),
    // whose new name shows before its arguments do.
    if (!cmdline || cmdline->empty()) continue;
    found.push_back({static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10)), SplitCmdline(*cmdline)});
  }
  ::closedir(dir);
  return found;
}

}  // namespace smsupd
