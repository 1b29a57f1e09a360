// Reads every port of the fabric, paced, and keeps the answers: the `ports`
// command of the control socket (read-only) and the periodic check that
// raises PORT_DOWN, LINK_BELOW_RATE, PORT_ERRORS, PORT_NOT_ACTIVE and
// PORT_WRONG_SM (docs/answers.md "Ports").
//
// A read-out is one directed-route walk (the PortInfo of every port, as the
// P_Key verifier's walk) and then PortCounters of every linked port, sent on
// the MAD thread in chunks of kCounterChunk with kChunkPause between them:
// the failover polls get the MAD thread between chunks, and the fabric sees
// at most ~kCounterChunk / kChunkPause PerfMgt MADs per second. One read-out
// runs at a time: a request that arrives during one waits for it (at most
// kMaxWaiting requests wait; more are refused, not queued). Every request
// gets a read-out that started after it arrived, so the rates in its answer
// are "since the last read" and a fix shows at once. The periodic read-out
// runs every max(kInterval, 50 x the last walk's time), as the failover
// watch paces its own walks: a walk holds the MAD thread while it runs.
// A read-out's evaluation (the report of every port) runs on a thread of
// its own at SCHED_IDLE, never on the event loop: on 10,000 HCAs it costs
// over a second of CPU, which the failover watch and the control socket
// must not wait for, nor a sweeping OpenSM on a busy machine.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "daemon/apply/running_config.h"
#include "daemon/control/command_router.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/ports/port_health.h"
#include "daemon/status/reporter.h"

namespace smsupd {

class PortsMonitor {
 public:
  using Reply = control::CommandHandler::Reply;

  static constexpr std::chrono::milliseconds kWalkDeadline{20000};
  static constexpr std::size_t kCounterChunk = 32;
  static constexpr std::chrono::milliseconds kChunkPause{40};
  static constexpr std::chrono::seconds kInterval{60};
  static constexpr std::chrono::seconds kFirstReadout{15};
  static constexpr std::size_t kMaxWaiting = 16;
  static constexpr std::size_t kMaxNames = 64;

  // Summary of the last read-out, for metrics.
  struct Summary {
    std::map<std::string, int> problems;  // kind -> ports
    int ports = 0;
    int unread = 0;
    double seconds = 0;
    int mads = 0;
  };
  using SummarySink = std::function<void(const Summary&)>;
  // After each read-out: every end port GUID the walk found and its node GUID.
  using NodeSink = std::function<void(const std::map<Guid, Guid>&)>;
  void SetNodeSink(NodeSink sink) { nodes_ = std::move(sink); }
  // Whether the periodic read-out runs now (the daemon: while the local SM
  // is MASTER, so a pair reads its fabric once). When it does not, the port
  // problems this node raised are cleared: the master reports them.
  void SetPeriodicGate(std::function<bool()> gate) { gate_ = std::move(gate); }
  // Whether a periodic read-out that is due waits (looked at again every
  // kHoldRetry) instead of starting: the daemon holds it while its OpenSM is
  // in its first sweep as a new master, whose discovery the read-out's walk
  // would slow (the two share the fabric's SMAs; on the simulator, one
  // thread), so that the read-out comes right after that sweep.
  static constexpr std::chrono::seconds kHoldRetry{1};
  void SetPeriodicHold(std::function<bool()> hold) { hold_ = std::move(hold); }
  // Whether this node's own port is Down now. A read-out in progress then
  // sends no further chunk (every MAD would fail after its timeouts, for
  // minutes on a large fabric, while requests wait) and ends as failed,
  // without an evaluation: on 10,000 HCAs that costs seconds of CPU, beside
  // the other SM node's first sweep as the new master.
  void SetLocalPortDown(std::function<bool()> down) { local_port_down_ = std::move(down); }
  // Where a read-out's evaluation, and the building of each `ports` reply
  // from it, run (tests): `job` must run once, on any thread but the event
  // loop's. By default the monitor's own thread.
  using Offload = std::function<void(std::function<void()> job)>;
  void SetOffload(Offload offload) { offload_ = std::move(offload); }

  // Every reference must outlive the monitor.
  PortsMonitor(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker, Reporter& reporter,
               SummarySink summary = {});
  ~PortsMonitor();

  void RegisterCommands(control::CommandRouter& router);
  // Starts the periodic read-outs (the first after `first`).
  void Start(std::chrono::steady_clock::duration first = kFirstReadout);

 private:
  struct Waiter {
    // On the event loop; `report` is null when the read-out failed.
    std::function<void(std::shared_ptr<const PortsReport> report, const std::string& error)> done;
  };
  struct Readout;  // one read-out in progress

  void Handle(const control::Request& request, const control::Caller& caller, Reply reply);
  void Request(Waiter waiter);
  void Begin();
  void ReadChunk(const std::shared_ptr<Readout>& readout, std::size_t from);
  void Finish(const std::shared_ptr<Readout>& readout);
  void Evaluated(const std::shared_ptr<Readout>& readout, const std::shared_ptr<const PortsReport>& report);
  void Fail(const std::string& error);
  void Publish(const PortsReport& report, const PortsReadout& readout);
  void Schedule(std::chrono::steady_clock::duration after);

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  MadWorker& worker_;
  Reporter& reporter_;
  SummarySink summary_;
  NodeSink nodes_;
  std::function<bool()> gate_;
  std::function<bool()> hold_;
  std::function<bool()> local_port_down_;
  Offload offload_;
  boost::asio::steady_timer period_;
  boost::asio::steady_timer pause_;

  bool reading_ = false;
  std::vector<Waiter> current_;  // served by the read-out in progress
  std::vector<Waiter> next_;     // arrived during it: served by the next one
  PortsMemory memory_;  // the evaluation's: touched by one evaluation at a time
  std::chrono::steady_clock::duration last_walk_{};
  std::set<std::pair<std::string, std::string>> announced_;  // (kind, port) already announced
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  boost::asio::thread_pool evaluator_{1};  // last: joined before the rest goes
};

}  // namespace smsupd
