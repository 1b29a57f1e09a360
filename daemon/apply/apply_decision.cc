#include "daemon/apply/apply_decision.h"

#include <algorithm>

#include "config/renderer.h"

namespace smsupd {

ApplyRequest MakeApplyRequest(std::string reason, std::string applied_by,
                              std::optional<std::uint32_t> uid) {
  ApplyRequest request;
  request.reason = std::move(reason);
  request.applied_by = std::move(applied_by);
  request.uid = uid;
  return request;
}

config::TwinGate TwinGateFor(const ApplyRequest& request, const config::Config& running,
                             const config::Config& next, const std::string& running_hash) {
  if (request.from_generation || request.reason == "rollback" || request.reason == "auto-rollback")
    return config::TwinGate::kOff;
  if (request.twin) return config::TwinGate::kRequired;
  const config::TwinGate mode = std::max(running.apply.twin, next.apply.twin);
  const bool unchanged = !running_hash.empty() && config::ConfigHash(next.source_text) == running_hash &&
                         next.cabling.file_sha256 == running.cabling.file_sha256;
  return unchanged ? config::TwinGate::kOff : mode;
}

GateStep DecideTwinGate(config::TwinGate mode, TwinVerdict::Kind verdict) {
  if (verdict == TwinVerdict::Kind::kAgrees || mode == config::TwinGate::kOff) return GateStep::kApply;
  return mode == config::TwinGate::kRequired ? GateStep::kRefuse : GateStep::kApplyWithWarning;
}

ApplyStep DecideAfterVerification(const VerifyRound& round) {
  bool can_roll_back = round.has_previous && !round.is_rollback;
  if (!round.local_master) {
    if (round.skipped || round.timed_out) return ApplyStep::kSkipped;
    return round.ok && !round.default_fallback ? ApplyStep::kVerified : ApplyStep::kDrift;
  }
  // OpenSM itself said the file is bad: another sweep would read the same file.
  if (round.partition_error) return can_roll_back ? ApplyStep::kRollBack : ApplyStep::kFailed;
  // The fabric shows the fallback (every port full in 0x7fff) but OpenSM's log
  // said nothing yet: a sweep already running at the SIGHUP (a new master's
  // first, or one a priority change asked for) reads the file before it is
  // installed and ends with a SUBNET UP of its own. When the generation before
  // was the default partition alone, that picture is the fallback's. One more
  // sweep tells them apart; a real fallback is rolled back after it.
  if (round.default_fallback) {
    if (round.attempt < 2 && !round.timed_out) return ApplyStep::kResweep;
    return can_roll_back ? ApplyStep::kRollBack : ApplyStep::kFailed;
  }
  if (round.timed_out) return ApplyStep::kFailed;  // no evidence against the config
  if (round.skipped) return ApplyStep::kSkipped;
  if (round.ok) return ApplyStep::kVerified;
  // OpenSM 3.3.23 sometimes completes a port only on the next heavy sweep.
  if (round.attempt < 2) return ApplyStep::kResweep;
  return can_roll_back ? ApplyStep::kRollBack : ApplyStep::kFailed;
}

const char* ApplyStepName(ApplyStep step) {
  switch (step) {
    case ApplyStep::kVerified: return "verified";
    case ApplyStep::kSkipped: return "skipped";
    case ApplyStep::kResweep: return "resweep";
    case ApplyStep::kRollBack: return "roll-back";
    case ApplyStep::kFailed: return "failed";
    case ApplyStep::kDrift: return "drift";
  }
  return "unknown";
}

const char* VerificationStateOf(ApplyStep step) {
  switch (step) {
    case ApplyStep::kVerified: return "verified";
    case ApplyStep::kSkipped: return "skipped";
    case ApplyStep::kDrift: return "drift";
    case ApplyStep::kResweep: return "pending";
    case ApplyStep::kRollBack:
    case ApplyStep::kFailed: return "failed";
  }
  return "failed";
}

}  // namespace smsupd
