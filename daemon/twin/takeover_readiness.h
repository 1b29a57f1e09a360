// Failover readiness (docs/twin.md "Takeover readiness"): on a STANDBY,
// every apply.twin_readiness_interval_s, the twin runs this node's own
// config against the fabric the master programmed -- what would change if
// this node took over now (the standby path of `smctl plan --twin`).
//
//   would change  -> TAKEOVER_WOULD_CHANGE raised (metric smsupd_takeover_would_change 1)
//   no change     -> TAKEOVER_WOULD_CHANGE and TWIN_READINESS_FAILED cleared
//   twin failed   -> TWIN_READINESS_FAILED raised; the last verdict kept
//   (or incomplete: tables unread on either side)
//   not STANDBY, or the interval 0 -> both cleared, nothing runs
//
// An event `twin-readiness` and a TWIN_READINESS log line when the result
// changes. A check runs once the node has been STANDBY for two ticks, then
// every interval, and again soon after the config changed (a new
// generation). It never overlaps another twin: while one runs (a user's
// plan --twin, a gated reload), the check waits for the next tick.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "daemon/apply/running_config.h"
#include "daemon/status/reporter.h"
#include "daemon/twin/twin_plan_command.h"

namespace smsupd {

enum class ReadinessResult { kNoChange, kWouldChange, kFailed };
// "no-change", "would-change", "failed".
const char* ReadinessResultName(ReadinessResult result);

// A finished standby twin's result, classified; `text` says why. Pure.
ReadinessResult ClassifyReadiness(const TwinRunResult& run, std::string* text);

class TakeoverReadiness {
 public:
  // How often the node's state is looked at (the check itself runs every
  // interval, at least kMinTwinReadinessIntervalS).
  static constexpr std::chrono::seconds kTick{5};

  // `standby`: true while the local SM is STANDBY. Every reference must
  // outlive this object.
  TakeoverReadiness(boost::asio::io_context& io, const RunningConfig& running, TwinPlanCommand& twin,
                    Reporter& reporter, std::function<bool()> standby);
  ~TakeoverReadiness();

  void Start();
  void Stop();

 private:
  void Tick();
  void Arm();
  void Done(std::uint64_t generation, TwinRunResult run);
  void ClearAll();

  const RunningConfig& running_;
  TwinPlanCommand& twin_;
  Reporter& reporter_;
  std::function<bool()> standby_;
  boost::asio::steady_timer timer_;
  bool stopped_ = false;
  bool running_check_ = false;
  int standby_ticks_ = 0;
  std::optional<std::chrono::steady_clock::time_point> last_run_;
  std::uint64_t last_generation_ = 0;
  std::optional<ReadinessResult> last_result_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace smsupd
