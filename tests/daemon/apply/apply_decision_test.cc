// The apply pipeline's decision table (daemon/config_apply.h), row by row.
#include <gtest/gtest.h>

#include "daemon/apply/apply_decision.h"

namespace smsupd {
namespace {

struct Row {
  const char* name;
  VerifyRound round;
  ApplyStep expected;
};

VerifyRound Master(int attempt = 1) {
  VerifyRound round;
  round.local_master = true;
  round.attempt = attempt;
  round.has_previous = true;
  return round;
}

VerifyRound With(VerifyRound round, void (*change)(VerifyRound&)) {
  change(round);
  return round;
}

TEST(DecideAfterVerification, FollowsTheTable) {
  const Row rows[] = {
      {"verified", With(Master(), [](VerifyRound& r) { r.ok = true; }), ApplyStep::kVerified},
      {"first mismatch: one more sweep", Master(1), ApplyStep::kResweep},
      {"second mismatch: roll back", Master(2), ApplyStep::kRollBack},
      {"second mismatch, nothing earlier", With(Master(2), [](VerifyRound& r) { r.has_previous = false; }),
       ApplyStep::kFailed},
      {"a rollback is never rolled back", With(Master(2), [](VerifyRound& r) { r.is_rollback = true; }),
       ApplyStep::kFailed},
      {"OpenSM refused the file: at once",
       With(Master(1), [](VerifyRound& r) { r.partition_error = true; r.ok = true; }), ApplyStep::kRollBack},
      {"default partition only, OpenSM's log silent: one more sweep first",
       With(Master(1), [](VerifyRound& r) { r.default_fallback = true; }), ApplyStep::kResweep},
      {"default partition only after the second sweep: roll back",
       With(Master(2), [](VerifyRound& r) { r.default_fallback = true; }), ApplyStep::kRollBack},
      {"default partition only and out of time: roll back",
       With(Master(1), [](VerifyRound& r) { r.default_fallback = true; r.timed_out = true; }),
       ApplyStep::kRollBack},
      {"default partition only, nothing earlier: failed",
       With(Master(2), [](VerifyRound& r) { r.default_fallback = true; r.has_previous = false; }),
       ApplyStep::kFailed},
      {"no answer in time: failed, not rolled back",
       With(Master(1), [](VerifyRound& r) { r.timed_out = true; }), ApplyStep::kFailed},
      {"no verifier", With(Master(1), [](VerifyRound& r) { r.skipped = true; }), ApplyStep::kSkipped},
      {"standby in sync",
       With(Master(), [](VerifyRound& r) { r.local_master = false; r.ok = true; }), ApplyStep::kVerified},
      {"standby differs: drift, never a rollback",
       With(Master(2), [](VerifyRound& r) { r.local_master = false; }), ApplyStep::kDrift},
      {"standby sees the default fallback: drift",
       With(Master(), [](VerifyRound& r) { r.local_master = false; r.ok = true; r.default_fallback = true; }),
       ApplyStep::kDrift},
  };
  for (const Row& row : rows)
    EXPECT_EQ(DecideAfterVerification(row.round), row.expected)
        << row.name << ": got " << ApplyStepName(DecideAfterVerification(row.round));
}

TEST(VerificationStateOf, NamesTheWireStates) {
  EXPECT_STREQ(VerificationStateOf(ApplyStep::kVerified), "verified");
  EXPECT_STREQ(VerificationStateOf(ApplyStep::kRollBack), "failed");
  EXPECT_STREQ(VerificationStateOf(ApplyStep::kFailed), "failed");
  EXPECT_STREQ(VerificationStateOf(ApplyStep::kDrift), "drift");
  EXPECT_STREQ(VerificationStateOf(ApplyStep::kSkipped), "skipped");
}

}  // namespace
}  // namespace smsupd
