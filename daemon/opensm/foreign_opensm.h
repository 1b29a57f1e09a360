// Another OpenSM on this node's SM port: Debian's opensm.service (its
// opensm@GUID.service runs `opensm --guid GUID --log_file ...`) or one
// started by hand. Two SMs on one port fight over the port's SM state and
// the subnet's mastership behind smsupd's back, so smsupd raises the
// critical health problem FOREIGN_OPENSM (common/problems.h) while one runs.
//
// Found in /proc, every kScanInterval: processes named `opensm` (comm)
// other than the OpenSM smsupd supervises, whose command line binds this
// port (`-g`/`--guid` with this port's GUID) or binds no port in particular
// (no `--guid` and no `-F`/`--config`: OpenSM then takes the first active
// port, or the guid of /etc/opensm/opensm.conf, which smsupd does not read).
// An OpenSM started with `-F FILE` and no `--guid` is left alone: its port
// is in a file of the caller's choosing (every smsupd's own OpenSM runs so).
// Bounded: ProcessTable::kMaxProcessesScanned processes, 64 KiB of each
// command line, the first kMaxReported OpenSMs named in the problem.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "daemon/process/process_table.h"
#include "daemon/status/reporter.h"

namespace smsupd {

// Why `cmdline` (an OpenSM's argv) runs on `port`, or nullopt when it names
// another port or a config file. Pure.
std::optional<std::string> OpenSmBindsPort(const std::vector<std::string>& cmdline, Guid port);

class ForeignOpenSmWatch {
 public:
  struct Target {
    Guid port = 0;     // this node's SM port
    pid_t own_pid = 0;  // smsupd's OpenSM (0: none runs)
  };
  ForeignOpenSmWatch(boost::asio::io_context& io, const ProcessTable& processes, Reporter& reporter,
                     std::function<Target()> target);
  ~ForeignOpenSmWatch() { Stop(); }
  ForeignOpenSmWatch(const ForeignOpenSmWatch&) = delete;
  ForeignOpenSmWatch& operator=(const ForeignOpenSmWatch&) = delete;

  // Scans now and then every kScanInterval.
  void Start();
  void Stop();
  // One scan: raises or clears FOREIGN_OPENSM.
  void ScanNow();

  static constexpr std::chrono::seconds kScanInterval{10};
  static constexpr std::size_t kMaxReported = 4;

 private:
  void Arm();

  boost::asio::io_context& io_;
  const ProcessTable& processes_;
  Reporter& reporter_;
  std::function<Target()> target_;
  boost::asio::steady_timer timer_;
  bool running_ = false;
  std::string reported_;  // the problem text last raised ("" when none)
};

}  // namespace smsupd
