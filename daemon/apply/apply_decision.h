// The pure parts of a config apply (config_applier.h runs them): who asked
// and how, what one verification round found, and the decision table:
//
//        verified ----------------------------------------> done (0)
//        mismatches, first round --> SIGHUP again, wait --> verify again
//        mismatches, second round -+
//        partitions.conf refused --+--> roll back to the generation that
//        default partition only ---+    was current (a new generation,
//                                       reason "auto-rollback") -> done (1)
//        on a STANDBY: its OpenSM does not program the fabric: mismatches
//        are reported as drift (PKEY_DRIFT), never rolled back.
//
// A rollback is applied through the same path; it is never rolled back
// itself. Tested without a daemon (tests/daemon/apply/apply_decision_test.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/apply/twin_verdict.h"

namespace smsupd {

// Who asked for an apply, and how they want to hear back.
struct ApplyRequest {
  std::string reason;      // "reload", "signal", "rollback", "auto-rollback"
  std::string applied_by;  // "uid 0", "signal", "rollback by uid 0", "auto-rollback"
  std::optional<std::uint32_t> uid;
  bool restart = false;    // an OpenSM restart is allowed
  bool force = false;      // ... even of a MASTER with no standby to hand over to
  bool wait = false;       // reply once verified / rolled back
  bool twin = false;       // run the config on the twin first, as a gate (smctl reload --twin)
  std::optional<std::chrono::milliseconds> timeout;  // default: verify.timeout_s
  // Apply this stored generation's YAML instead of the config file.
  std::optional<std::uint64_t> from_generation;
};

ApplyRequest MakeApplyRequest(std::string reason, std::string applied_by,
                              std::optional<std::uint32_t> uid = std::nullopt);

// What one verification round found, as the decision table needs it.
struct VerifyRound {
  bool local_master = true;     // our OpenSM programs the fabric
  bool skipped = false;         // no verification was possible (no verifier, no fabric)
  bool timed_out = false;       // no answer before the deadline
  bool ok = false;              // every checked port as expected
  bool default_fallback = false;  // OpenSM dropped partitions.conf (seen on the fabric)
  bool partition_error = false;   // OpenSM's log says partitions.conf was refused
  int attempt = 1;              // 1, then 2 after the extra SIGHUP
  bool is_rollback = false;     // this apply is itself a rollback
  bool has_previous = false;    // there is a generation to roll back to
};

enum class ApplyStep {
  kVerified,  // done, state "verified"
  kSkipped,   // done, state "skipped"
  kResweep,   // SIGHUP once more and verify again
  kRollBack,  // failed: apply the previous generation
  kFailed,    // failed, nothing to roll back to (or a rollback failed)
  kDrift,     // standby: the fabric does not match this node's config
};

// The twin gate (docs/twin.md "The twin as a gate"). Which mode gates an
// apply: none for a rollback (it restores a generation that was applied
// before; gating it could keep a broken one in force); `required` for a
// reload asked with --twin; else the stricter of the running config's and
// the new config's apply.twin (so turning the gate off passes it once, and
// turning it on gates that reload already), except that a reload of the
// same YAML (and cabling file) changes nothing and is not run on the twin.
config::TwinGate TwinGateFor(const ApplyRequest& request, const config::Config& running,
                             const config::Config& next, const std::string& running_hash);

// What the verdict does to the apply:
//                 agrees    disagrees / failed
//   advisory      apply     apply, the reply and an event warn
//   required      apply     refuse (kTwinRefused): nothing changes
enum class GateStep { kApply, kApplyWithWarning, kRefuse };
GateStep DecideTwinGate(config::TwinGate mode, TwinVerdict::Kind verdict);

// The decision table above. Pure.
ApplyStep DecideAfterVerification(const VerifyRound& round);
const char* ApplyStepName(ApplyStep step);

// "verified", "failed", "skipped", "drift" for a final step.
const char* VerificationStateOf(ApplyStep step);

}  // namespace smsupd
