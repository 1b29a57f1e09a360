// What /proc says about a process, behind an interface so the adoption checks
// are tested without real processes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace smsupd {

struct ProcessFacts {
  std::string exe;                   // readlink of /proc/<pid>/exe
  std::vector<std::string> cmdline;  // argv, from /proc/<pid>/cmdline
  std::uint64_t start_ticks = 0;     // field 22 of /proc/<pid>/stat: start time since boot
  std::chrono::milliseconds age{0};  // how long it has been running
  // SigCgt and SigBlk of /proc/<pid>/status (bit N-1 for signal N): the
  // signals the process has a handler for, and those its main thread blocks.
  std::uint64_t signals_caught = 0;
  std::uint64_t signals_blocked = 0;

  // True when `signal` cannot kill the process by its default action: a
  // handler is installed, or the signal is blocked (it waits, pending, for
  // the handler the process installs before unblocking it).
  bool Survives(int signal) const;
};

// A process found by its name, and its argv.
struct NamedProcess {
  pid_t pid = 0;
  std::vector<std::string> cmdline;
};

class ProcessTable {
 public:
  virtual ~ProcessTable() = default;
  // Error if no such process exists (or it cannot be inspected).
  virtual Result<ProcessFacts> Inspect(pid_t pid) const = 0;
  // The processes whose name (/proc/<pid>/comm: the executable's or
  // script's file name, cut to 15 bytes) is `name`, looking at no more than
  // kMaxProcessesScanned processes; none by default. A process whose
  // command line is empty (a zombie, or one inside execve) is left out.
  virtual std::vector<NamedProcess> FindByName(const std::string& /*name*/) const { return {}; }

  // A node runs a few hundred processes; the scan stops here whatever
  // /proc holds.
  static constexpr std::size_t kMaxProcessesScanned = 32768;
  // At most this much of each found process's command line is read.
  static constexpr std::size_t kMaxCmdlineBytes = 64 << 10;
};

class ProcFsProcessTable : public ProcessTable {
 public:
  explicit ProcFsProcessTable(std::string proc_root = "/proc") : root_(std::move(proc_root)) {}
  Result<ProcessFacts> Inspect(pid_t pid) const override;
  std::vector<NamedProcess> FindByName(const std::string& name) const override;

 private:
  std::string root_;
};

}  // namespace smsupd
