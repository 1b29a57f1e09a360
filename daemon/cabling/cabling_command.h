// The `cabling` command of the control socket (read-only) and the periodic
// cabling check (docs/cabling.md). Each answer, and each check, is one
// directed-route walk of the subnet (Fabric::DiscoverTopology on the MAD
// thread, within kWalkDeadline); requests that arrive while a walk runs
// share it: never more than one walk in flight.
//   - {"export": false}: the links against config.cabling (cabling_report.h);
//   - {"export": true}: today's links as CSV in the reply. The daemon never
//     writes the file: a read-only command never makes it open a path a
//     caller chose (smctl writes it, as the caller).
// After every walk, with cabling declared, the MISCABLED health problem is
// raised or cleared and CABLING_DIFFERENCES is announced when the set of
// differences changed. Every check_interval (kCheckInterval) the daemon
// walks on its own, so the problem shows without anyone asking.
// At most kMaxInFlight requests at once, and one per uid for members of
// control.group; more are refused, not queued.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "daemon/apply/running_config.h"
#include "daemon/cabling/cabling_report.h"
#include "daemon/control/command_router.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/status/reporter.h"

namespace smsupd {

class CablingCommand {
 public:
  using Reply = control::CommandHandler::Reply;
  using Topology = std::shared_ptr<const FabricTopology>;

  // The walk of a 2,592-HCA simulated fabric takes a few seconds; a walk
  // past this is reported failed (the MAD thread's deadline).
  static constexpr std::chrono::milliseconds kWalkDeadline{30000};
  static constexpr int kMaxInFlight = 4;
  // The periodic check: often enough that a cable moved during a
  // maintenance window shows within minutes, rare enough that its walk
  // (one SMP per port) is nothing beside OpenSM's own sweeps.
  static constexpr std::chrono::minutes kCheckInterval{5};

  // Every reference must outlive the command.
  CablingCommand(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker, Reporter& reporter,
                 std::chrono::milliseconds check_interval = kCheckInterval);
  ~CablingCommand();

  void RegisterCommands(control::CommandRouter& router);
  // Starts the periodic check (first one after check_interval).
  void Start();
  // Stops the periodic check (the daemon is stopping).
  void Stop();

 private:
  void Handle(const control::Request& request, const control::Caller& caller, Reply reply);
  // Calls `then` on the loop with a fresh walk (shared with callers that
  // asked while it ran).
  void WithTopology(std::function<void(Result<Topology>)> then);
  void Answer(bool export_csv, const Topology& topology, const Reply& reply);
  // The problem and the event of one comparison.
  void Observe(const CablingReport& report);
  void ArmTimer();
  void Release(const control::Caller& caller);

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  MadWorker& worker_;
  Reporter& reporter_;
  std::chrono::milliseconds check_interval_;
  boost::asio::steady_timer timer_;

  bool stopped_ = false;
  bool walking_ = false;
  std::vector<std::function<void(Result<Topology>)>> waiting_;
  std::set<std::string> last_differences_;  // the texts of the last comparison

  int in_flight_ = 0;
  std::map<uid_t, int> per_uid_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace smsupd
