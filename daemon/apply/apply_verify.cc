// After OpenSM was told: wait for its sweep, verify on the fabric, decide
// (apply_decision.h), then apply_finish.cc.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "daemon/apply/apply_fault_point.h"
#include "daemon/apply/apply_run.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

// How long one round waits for "SUBNET UP" before verifying anyway: OpenSM
// may never flush the line (force_log_flush FALSE: INFO lines stay in its
// buffer), and a heavy sweep of a 648-HCA simulated fabric takes ~0.35 s. A
// sweep not done by then shows as mismatches, and the second round (one
// more SIGHUP) waits again.
constexpr auto kSweepWait = std::chrono::milliseconds(1000);
constexpr auto kSweepPoll = std::chrono::milliseconds(25);

}  // namespace

void ConfigApplier::StartSweepWait(const RunPtr& run) {
  run->sweep_seen = false;
  run->sweep_deadline = std::min(run->deadline, clock_.Now() + kSweepWait);
  if (!run->timer) run->timer = std::make_unique<boost::asio::steady_timer>(io_);
  // A STANDBY's OpenSM does not sweep: look at the fabric at once.
  if (!run->local_master) return VerifyApplied(run);
  PollForSweep(run);
}

void ConfigApplier::PollForSweep(const RunPtr& run) {
  if (opensm_.SweepsSeen() > run->subnet_up_baseline || run->partition_error) {
    run->sweep_seen = true;
    return VerifyApplied(run);
  }
  if (clock_.Now() >= run->sweep_deadline) {
    spdlog::info("OPENSM_SWEEP_NOT_SEEN generation {}: no SUBNET UP in OpenSM's log; verifying anyway",
                 run->generation);
    return VerifyApplied(run);
  }
  run->timer->expires_after(kSweepPoll);
  run->timer->async_wait([this, run](const boost::system::error_code& error) {
    if (!error && !stopping_) PollForSweep(run);
  });
}

void ConfigApplier::VerifyApplied(const RunPtr& run) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(run->deadline - clock_.Now());
  if (left.count() <= 0) {
    run->timed_out = true;
    return Decide(run);
  }
  config::Config config = running_.config;
  Guid master = run->master_port;
  int sample = running_.config.verify.sample_ports;
  worker_.Submit(
      [config, master, sample](Fabric& fabric) -> Result<FabricVerification> {
        return VerifyOnFabric(fabric, config, master, sample);
      },
      [this, run](Result<FabricVerification> result) {
        if (!result) {
          run->timed_out = true;
          run->verification.summary = "not verified: " + result.error().message;
        } else {
          run->verification = std::move(*result);
          if (!run->verification.ports.empty()) known_ports_ = run->verification.ports;
          if (run->verification.far_port) far_port_ = run->verification.far_port;
        }
        Decide(run);
      },
      left);
}

void ConfigApplier::Decide(const RunPtr& run) {
  VerifyRound round;
  round.local_master = run->local_master;
  round.skipped = run->verification.skipped;
  round.timed_out = run->timed_out;
  round.ok = run->verification.ok;
  round.default_fallback = run->verification.default_fallback;
  round.partition_error = run->partition_error;
  round.attempt = run->attempt;
  round.is_rollback = run->request.reason == "rollback" || run->request.reason == "auto-rollback";
  round.has_previous = run->previous > 0 && run->previous != run->generation &&
                       generations_.Exists(run->previous);
  run->step = DecideAfterVerification(round);
  if (run->step == ApplyStep::kResweep) {
    spdlog::info("PKEY_VERIFY_RETRY generation {}: {}; one more heavy sweep", run->generation,
                 run->verification.summary);
    ++run->attempt;
    run->subnet_up_baseline = opensm_.SweepsSeen();
    if (Status hup = opensm_.Hangup(); !hup) spdlog::warn("OPENSM_NOT_SIGNALLED {}", hup.message());
    return StartSweepWait(run);
  }
  ReachedApplyStep("verified");
  RecordVerification(run);
  ReachedApplyStep("recorded");
  if (run->step == ApplyStep::kRollBack) return RollBackAfter(run);
  FinishApply(run);
}

}  // namespace smsupd
