// Scenarios where an action does not work out: the policy must notice,
// report it and fall back to a state that keeps the fabric served.
#include <algorithm>

#include "tests/policies/scenario_steps.h"

namespace smsupd::policy::testing {
namespace {

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

// The standby's OpenSM dies while the master hands over to it (before or
// just after it became MASTER): never two MASTERs, no window without one
// longer than a second, and at the end one MASTER with the other node's
// OpenSM back as its standby and the command answered.
TEST(ScenarioFailureTest, StandbyKilledMidHandoverNeverLeavesTheSubnetWithoutMaster) {
  FabricWorld w;
  Boot(w, true);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").policy->state() == SupervisorState::kHandingOver; }, 5), 0);
  w.KillOpenSm("s");
  int longest_none = 0, none = 0;
  for (int i = 0; i < 8000 / 150; ++i) {
    ASSERT_TRUE(CheckedStep(w));
    const std::size_t masters = w.Masters().size();
    EXPECT_LE(masters, 1u) << "two MASTERs at step " << i;
    none = masters == 0 ? none + 1 : 0;
    longest_none = std::max(longest_none, none);
  }
  EXPECT_LE(longest_none, 1000 / 150) << "masterless for " << longest_none << " steps of 150 ms";
  ASSERT_EQ(w.Masters().size(), 1u);
  const std::string standby = w.MasterName() == "m" ? "s" : "m";
  EXPECT_EQ(w.node(standby).state, SmState::kStandby);
  EXPECT_LT(w.node(standby).priority, w.node(w.MasterName()).priority);
  EXPECT_FALSE(w.node("m").replies.empty()) << "the failover command was never answered";
}

// Two role masters, only one of them preempting (a config mismatch): the
// preempting one takes mastership back after its hold time once, the other
// never claims, and repeated failures of either never make it flip-flop.
TEST(ScenarioFailureTest, DifferentPreemptSettingsNeverFlipFlop) {
  FabricWorld w;
  w.AddNode("a", kM, Role::kMaster, /*preempt=*/true);
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "a"; }, 60), 0);
  w.AddNode("b", kS, Role::kMaster, /*preempt=*/false);
  ASSERT_GE(StepsUntil(w, [&] { return w.node("b").state == SmState::kStandby; }, 80), 0);
  for (int cycle = 0; cycle < 3; ++cycle) {
    w.NodeDown("a");
    ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "b"; }, 3000 / 150 + 10), 0) << "cycle " << cycle;
    w.NodeUp("a");
    const int changes = w.master_changes();
    ASSERT_TRUE(RunChecked(w, 3 * kHoldSteps));
    EXPECT_EQ(w.MasterName(), "a") << "cycle " << cycle << ": the preempting node did not claim back";
    EXPECT_EQ(w.master_changes() - changes, 1) << "cycle " << cycle << ": mastership flip-flops";
  }
  w.NodeDown("b");
  const int changes = w.master_changes();
  ASSERT_TRUE(RunChecked(w, 2 * kHoldSteps));
  w.NodeUp("b");
  ASSERT_TRUE(RunChecked(w, 3 * kHoldSteps));
  EXPECT_EQ(w.MasterName(), "a");
  EXPECT_EQ(w.master_changes(), changes) << "a non-preempting node claimed on its return";
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
    ASSERT_GE(StepsUntil(w, [&] { return w.node("m").state == SmState::kStandby; }, 10 + kRestartQuietSteps), 0);
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
