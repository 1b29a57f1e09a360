// Scenarios where an action does not work out: the policy must notice,
// report it and fall back to a state that keeps the fabric served.
#include <algorithm>

#include "tests/policies/scenario_steps.h"

namespace smsupd::policy::testing {
namespace {

bool Raised(const SimNode& n, const std::string& id) {
  return n.policy->problems().count(id) != 0;
}

TEST(ScenarioFailureTest, HandoverThatNeverCompletesRestoresThePriority) {
  FabricWorld w;
  Boot(w, true);
  w.node("s").never_master = true;
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  const int steps = StepsUntil(w, [&] { return !w.node("m").replies.empty(); }, 60);
  ASSERT_GE(steps, 5000 / 150 - 1);  // answered at the handover timeout
  EXPECT_EQ(w.node("m").replies[0].rfind("refused: ", 0), 0u) << w.node("m").replies[0];
  ASSERT_TRUE(RunChecked(w, 2));
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.node("m").priority, 15);
  EXPECT_EQ(w.node("m").policy->state(), SupervisorState::kMaster);
  EXPECT_TRUE(Raised(w.node("m"), kProblemHandoverFailed));

  w.node("s").never_master = false;  // a later handover clears it
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").replies.size() == 2; }, 10), 0);
  ASSERT_TRUE(RunChecked(w, 1));
  EXPECT_EQ(w.MasterName(), "s");
  EXPECT_FALSE(Raised(w.node("m"), kProblemHandoverFailed));
}

TEST(ScenarioFailureTest, TakeoverThatFailsIsReportedAndRetried) {
  FabricWorld w;
  Boot(w, false);
  w.node("s").never_master = true;
  w.NodeDown("m");
  ASSERT_TRUE(RunChecked(w, 3000 / 150 + 6));
  EXPECT_TRUE(Raised(w.node("s"), kProblemTakeoverFailed));
  EXPECT_EQ(w.node("s").policy->state(), SupervisorState::kTakingOver);  // retrying
  w.node("s").never_master = false;
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "s"; }, 3000 / 150 + 5), 0);
  ASSERT_TRUE(RunChecked(w, 1));
  EXPECT_FALSE(Raised(w.node("s"), kProblemTakeoverFailed));
}

TEST(ScenarioFailureTest, KilledStandbyComesBackAsStandby) {
  FabricWorld w;
  Boot(w, true);
  w.KillOpenSm("s");
  w.Step();
  EXPECT_FALSE(std::any_of(w.node("s").last_actions.begin(), w.node("s").last_actions.end(),
                           [](const Action& a) { return a.kind == Action::Kind::kSendHandover; }));
  ASSERT_GE(StepsUntil(w, [&] { return w.node("s").state == SmState::kStandby; }, 10), 0);
  EXPECT_EQ(w.node("s").priority, 5);
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.master_changes(), 1);
}

TEST(ScenarioFailureTest, FailoverToAStandbyOpenSmWouldNotPickIsRefused) {
  FabricWorld w;
  Boot(w, false);
  SimNode& t = w.AddNode("t", 0x0002c90300000007, Role::kStandby, false);
  ASSERT_GE(StepsUntil(w, [&] { return t.state == SmState::kStandby; }, 30), 0);
  // s (GUID ...05) outranks t (...07) at equal priority 5.
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, t.guid});
  w.Step();
  ASSERT_EQ(w.node("m").replies.size(), 1u);
  EXPECT_NE(w.node("m").replies[0].find("OpenSM hands over to the highest-ranked standby"),
            std::string::npos) << w.node("m").replies[0];
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, kS});
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").replies.size() == 2; }, 10), 0);
  EXPECT_EQ(w.node("m").replies[1].rfind("ok: ", 0), 0u);
  EXPECT_EQ(w.MasterName(), "s");
}

// preempt: a returning master that keeps failing never takes mastership:
// the hold time starts again at each return (no flapping of the fabric).
TEST(ScenarioFailureTest, CrashLoopingMasterNeverClaims) {
  FabricWorld w;
  Boot(w, true);
  for (int round = 0; round < 5; ++round) {
    w.KillOpenSm("m");
    ASSERT_GE(StepsUntil(w, [&] { return w.node("m").state == SmState::kStandby; }, 10), 0);
    ASSERT_TRUE(RunChecked(w, kHoldSteps / 2));
    EXPECT_EQ(w.node("m").priority, 5) << "claimed before the hold time";
  }
  EXPECT_EQ(w.MasterName(), "s");
  EXPECT_EQ(w.master_changes(), 2);  // m, then s for good
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, kHoldSteps + 5), 0);
}

}  // namespace
}  // namespace smsupd::policy::testing

namespace smsupd::policy::testing {
namespace {

// A hung master: the standby takes over (port alive: extra misses), and the
// hung OpenSM's own smsupd stops it so it cannot come back as a second MASTER;
// it then rejoins as a standby.
TEST(ScenarioFailureTest, HungLocalOpenSmIsStoppedAndRejoinsAsStandby) {
  FabricWorld w;
  Boot(w, false);
  w.node("m").hung = true;
  ASSERT_GE(StepsUntil(w, [&] { return w.node("s").state == SmState::kMaster; }, 20), 0);
  const int stop = StepsUntil(w, [&] { return !w.node("m").running; }, 5000 / 150 + 5);
  ASSERT_GE(stop, 0);
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").state == SmState::kStandby; }, 10), 0);
  ASSERT_TRUE(RunChecked(w, 10));
  EXPECT_EQ(w.MasterName(), "s");
  EXPECT_EQ(w.node("m").priority, 5);
  EXPECT_TRUE(std::any_of(w.node("m").history.begin(), w.node("m").history.end(),
                          [](const Action& a) { return a.id == "OPENSM_HUNG"; }));
}

}  // namespace
}  // namespace smsupd::policy::testing
