// Sequences of observations from a modelled subnet with two supervised SMs:
// fail / return / fail again under both policies, busy masters, races,
// operator commands. After every step the SM the fabric has as MASTER must be
// the one OpenSM's own election would keep (the plan and OpenSM agree), and no
// step may use the raise-a-standby path seen to fail (docs/opensm-behaviour.md "Controlled
// failover: safe and unsafe priority changes").
#include <gtest/gtest.h>

#include "tests/policies/scenario_steps.h"

namespace smsupd::policy::testing {
namespace {

// Parameters: steps a SIGHUP-forced heavy sweep takes (0, and ~1 s as
// measured), and how often the SA list reaches the daemons (every poll, or
// every 3 s as a slow inventory poll would).
class ScenarioTest : public ::testing::TestWithParam<std::tuple<int, int>> {
 protected:
  static int Sweep() { return std::get<0>(GetParam()); }
  static int Sa() { return std::get<1>(GetParam()); }
};
INSTANTIATE_TEST_SUITE_P(Timing, ScenarioTest,
                         ::testing::Combine(::testing::Values(0, 7), ::testing::Values(1, 20)));

TEST_P(ScenarioTest, BootGivesTheRoleMasterTheTopPriority) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  EXPECT_EQ(w.node("m").policy->state(), SupervisorState::kMaster);
  EXPECT_EQ(w.node("s").policy->state(), SupervisorState::kStandby);
  EXPECT_TRUE(w.node("m").policy->problems().empty());
}

TEST_P(ScenarioTest, KilledMasterHandsOverAtOnce) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.KillOpenSm("m");
  w.Step();  // m's smsupd sees the exit and sends the HANDOVER in this step
  EXPECT_TRUE(Emitted(w.node("m"), Action::Kind::kSendHandover));
  EXPECT_EQ(w.MasterName(), "s");
  // The restart waits until the new master shows on m's port (its sweep
  // reached m), so that the new OpenSM's walk does not slow that sweep.
  EXPECT_FALSE(Emitted(w.node("m"), Action::Kind::kRestartOpenSm));
  EXPECT_GE(StepsUntil(w, [&] { return Emitted(w.node("m"), Action::Kind::kRestartOpenSm); }, 25), 0);
}

// preempt: fail, come back (hold time, then take back), fail again.
TEST_P(ScenarioTest, PreemptFailReturnFail) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.KillOpenSm("m");
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "s"; }, 2), 0);
  const int rejoin =
      StepsUntil(w, [&] { return w.node("m").state == SmState::kStandby; }, 10 + kRestartQuietSteps);
  ASSERT_GE(rejoin, 0);
  // The master raises itself to the top once an SM list confirms it alone.
  EXPECT_GE(StepsUntil(w, [&] { return w.node("s").priority == 15; }, 25), 0);
  // Not before the hold time: no flapping.
  ASSERT_TRUE(RunChecked(w, kHoldSteps - 2));
  EXPECT_EQ(w.MasterName(), "s");
  const int back = StepsUntil(w, [&] { return w.MasterName() == "m"; }, 40);
  ASSERT_GE(back, 0);
  EXPECT_GE(StepsUntil(w, [&] {
              return w.node("m").priority == 15 && w.node("s").priority == 5;
            }, 25), 0);

  w.NodeDown("m");  // fail again, the whole node this time
  const int takeover = StepsUntil(w, [&] { return w.MasterName() == "s"; }, 20);
  ASSERT_GE(takeover, 0);
  EXPECT_LE(takeover, 4);  // 3 missed polls at 150 ms, then HANDOVER to itself
  w.NodeUp("m");
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, kHoldSteps + 80), 0);
  EXPECT_TRUE(RunChecked(w, 10));
}

// sticky: whoever is master stays master; the returning node is a standby.
TEST_P(ScenarioTest, StickyFailReturnFail) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, false);
  w.KillOpenSm("m");
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "s"; }, 2), 0);
  ASSERT_TRUE(RunChecked(w, 4 * kHoldSteps));
  EXPECT_EQ(w.MasterName(), "s");
  EXPECT_EQ(w.node("s").priority, 15);
  EXPECT_EQ(w.node("m").priority, 5);
  EXPECT_EQ(w.node("m").state, SmState::kStandby);

  w.KillOpenSm("s");
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, 2), 0);
  ASSERT_TRUE(RunChecked(w, 4 * kHoldSteps));
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.node("s").state, SmState::kStandby);
  EXPECT_EQ(w.master_changes(), 3);  // m, s, m: no double failover
}

TEST_P(ScenarioTest, BusyMasterWithLostPollsIsNeverTakenOver) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, false);
  for (int i = 0; i < 300; ++i) {
    if (i % 3 == 0) w.DropNextPolls("m", 2);  // 2 of every 3 polls lost
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_FALSE(Emitted(w.node("s"), Action::Kind::kTakeOver)) << "step " << i;
  }
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.master_changes(), 1);
}

TEST_P(ScenarioTest, SilentSmOnLiveNodeNeedsExtraMisses) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, false);
  w.node("m").smsupd_up = false;  // nobody on m hands over
  w.node("m").hung = true;        // SM silent, port (HCA) still answers
  const PolicyConfig& c = w.node("s").config;
  const int steps = StepsUntil(w, [&] { return w.node("s").state == SmState::kMaster; }, 20);
  ASSERT_GE(steps, 0);
  EXPECT_GE(steps, c.miss_threshold + c.silent_sm_extra_misses);
}

TEST_P(ScenarioTest, HungMasterThatRecoversBeforeTheThresholdKeepsMastership) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, false);
  w.node("m").hung = true;
  ASSERT_TRUE(RunChecked(w, 4));  // fewer than threshold + extra misses
  w.node("m").hung = false;
  ASSERT_TRUE(RunChecked(w, 50));
  EXPECT_EQ(w.MasterName(), "m");
}

TEST_P(ScenarioTest, OperatorFailoverBothWaysWithoutFlipBack) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  for (int i = 0; i < 10 && w.node("m").replies.empty(); ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_FALSE(w.MasterName().empty()) << "a moment without master";
  }
  ASSERT_EQ(w.node("m").replies.size(), 1u);
  EXPECT_EQ(w.node("m").replies[0].rfind("ok: ", 0), 0u) << w.node("m").replies[0];
  EXPECT_EQ(w.MasterName(), "s");
  ASSERT_TRUE(RunChecked(w, 3 * kHoldSteps));  // preempt must not take it back
  EXPECT_EQ(w.MasterName(), "s");

  w.Command("s", OperatorCommand{OperatorCommand::Kind::kFailover, kM});
  ASSERT_GE(StepsUntil(w, [&] { return !w.node("s").replies.empty(); }, 10), 0);
  EXPECT_EQ(w.node("s").replies[0].rfind("ok: ", 0), 0u) << w.node("s").replies[0];
  ASSERT_TRUE(RunChecked(w, 3 * kHoldSteps));
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.node("m").priority, 15);
  EXPECT_EQ(w.node("s").priority, 5);
}

// `smctl failover` run on the standby: it claims, the master yields.
TEST_P(ScenarioTest, FailoverFromTheStandbySideWithoutFlipBack) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("s", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  for (int i = 0; i < 60 && w.node("s").replies.empty(); ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_FALSE(w.MasterName().empty()) << "a moment without master";
  }
  ASSERT_EQ(w.node("s").replies.size(), 1u);
  EXPECT_EQ(w.node("s").replies[0].rfind("ok: ", 0), 0u) << w.node("s").replies[0];
  EXPECT_EQ(w.MasterName(), "s");
  ASSERT_TRUE(RunChecked(w, 3 * kHoldSteps));  // the preempting m stays put
  EXPECT_EQ(w.MasterName(), "s");
  EXPECT_EQ(w.node("m").priority, 5);
}

TEST_P(ScenarioTest, StandbySideFailoverTimesOutWithoutTheMastersSmsupd) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, false);
  w.node("m").smsupd_up = false;
  w.Command("s", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  ASSERT_GE(StepsUntil(w, [&] { return !w.node("s").replies.empty(); }, 100), 0);
  EXPECT_EQ(w.node("s").replies[0].rfind("refused: ", 0), 0u) << w.node("s").replies[0];
  ASSERT_TRUE(RunChecked(w, 3));
  EXPECT_EQ(w.MasterName(), "m");
  EXPECT_EQ(w.node("s").priority, 5);  // the claim is withdrawn
}

TEST_P(ScenarioTest, FailoverIsRefusedWithAReason) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, Guid{0x77}});
  w.Step();
  ASSERT_EQ(w.node("m").replies.size(), 1u);
  EXPECT_NE(w.node("m").replies[0].find("not an SM of this subnet"), std::string::npos);

  w.Command("s", OperatorCommand{OperatorCommand::Kind::kFailover, kM});
  w.Step();
  ASSERT_EQ(w.node("s").replies.size(), 1u);
  EXPECT_NE(w.node("s").replies[0].find("can only take mastership itself"), std::string::npos);

  w.NodeDown("s");
  ASSERT_TRUE(RunChecked(w, 25));  // until the SA list no longer shows it
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kFailover, std::nullopt});
  // A peer seen within command_standby_wait may be an OpenSM restarting:
  // the refusal comes once that wait is over.
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").replies.size() == 2; }, 3000 / 150 + 2), 0);
  EXPECT_NE(w.node("m").replies[1].find("no healthy STANDBY"), std::string::npos);
  EXPECT_EQ(w.MasterName(), "m");
}

TEST_P(ScenarioTest, SigtermOnMasterHandsOverBeforeStopping) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kStop, std::nullopt});
  for (int i = 0; i < 20 && w.node("m").policy->state() != SupervisorState::kStopped; ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_FALSE(w.MasterName().empty()) << "a moment without master";
  }
  EXPECT_EQ(w.node("m").policy->state(), SupervisorState::kStopped);
  EXPECT_FALSE(w.node("m").running);
  EXPECT_EQ(w.MasterName(), "s");
}

TEST_P(ScenarioTest, DualMasterRaceIsEnded) {
  FabricWorld w(Sweep(), Sa());
  w.AddNode("m", kM, Role::kMaster, true);
  w.AddNode("s", kS, Role::kStandby, true);
  // Both entered MASTER: docs/opensm-behaviour.md "Start-up races: dual master and no master".
  w.StartRacing("m", "s");
  ASSERT_EQ(w.Masters().size(), 2u);
  const int steps = StepsUntil(w, [&] { return w.MasterName() == "m"; }, 60);
  ASSERT_GE(steps, 0);
  if (Sa() == 1) {
    EXPECT_LE(steps, 2000 / 150 + 1) << "two MASTERs for more than 2 s";
  }
  EXPECT_TRUE(RunChecked(w, 10));
  EXPECT_EQ(w.node("s").priority, 5);
  EXPECT_FALSE(w.node("s").policy->problems().count(kProblemDualMaster));
}

TEST_P(ScenarioTest, NoMasterRaceIsEnded) {
  FabricWorld w(Sweep(), Sa());
  w.AddNode("m", kM, Role::kMaster, true).smsupd_up = false;
  w.AddNode("s", kS, Role::kStandby, true).smsupd_up = false;
  w.StartRaw("s", 5);
  w.Step();
  // Both end STANDBY: docs/opensm-behaviour.md "Start-up races: dual master and no master".
  w.StartRaw("m", 15);
  ASSERT_TRUE(w.MasterName().empty());
  w.NodeUp("m");
  w.NodeUp("s");
  const int steps = StepsUntil(w, [&] { return w.Masters().size() == 1; }, 20);
  ASSERT_GE(steps, 0);
  EXPECT_LE(steps, 1000 / 150 + 1);  // ended within a second (no_master_grace + a poll)
  EXPECT_EQ(w.MasterName(), "m");  // the 15 was the best-ranked standby
  EXPECT_TRUE(RunChecked(w, 20));
}

TEST_P(ScenarioTest, LoneMasterRestartsAtItsRolePriority) {
  FabricWorld w(Sweep(), Sa());
  w.AddNode("m", kM, Role::kMaster, true);
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, 30), 0);
  w.Step(30);
  EXPECT_TRUE(w.node("m").policy->problems().count(kProblemNoStandby));
  w.KillOpenSm("m");
  w.Step();
  EXPECT_FALSE(Emitted(w.node("m"), Action::Kind::kSendHandover));
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, 10), 0);
  EXPECT_EQ(w.node("m").priority, 15);
}

// Restarting the MASTER's OpenSM (smctl restart-opensm, reload --restart)
// hands over first and stops OpenSM only once the new master is on the
// fabric: the subnet never lacks a master. With preempt the role master takes
// mastership back after its hold time.
TEST_P(ScenarioTest, RestartOfTheMastersOpenSmKeepsAMasterThroughout) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt});
  bool stopped = false;
  for (int i = 0; i < 80 && w.node("m").replies.empty(); ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_FALSE(w.MasterName().empty()) << "no master at step " << i;
    stopped = stopped || !w.node("m").running;
    if (!w.node("m").running) {
      EXPECT_EQ(w.MasterName(), "s") << "stopped before the handover";
    }
  }
  ASSERT_TRUE(stopped) << "OpenSM was never restarted";
  ASSERT_EQ(w.node("m").replies.size(), 1u);
  EXPECT_EQ(w.node("m").replies[0].rfind("ok: OpenSM restarted", 0), 0u) << w.node("m").replies[0];
  EXPECT_EQ(w.node("m").policy->counters().at("restart"), 1u);
  const int back = StepsUntil(w, [&] { return w.MasterName() == "m"; }, kHoldSteps + 60);
  EXPECT_GE(back, 0) << "preempt did not take mastership back";
}

TEST_P(ScenarioTest, RestartOnTheStandbyIsInPlaceAndTheMasterStays) {
  FabricWorld w(Sweep(), Sa());
  Boot(w, true);
  w.Command("s", OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt});
  bool stopped = false;
  for (int i = 0; i < 40 && w.node("s").replies.empty(); ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_EQ(w.MasterName(), "m");
    stopped = stopped || !w.node("s").running;
  }
  EXPECT_TRUE(stopped);
  ASSERT_EQ(w.node("s").replies.size(), 1u);
  EXPECT_EQ(w.node("s").replies[0], "ok: OpenSM restarted; this SM is STANDBY");
}

TEST_P(ScenarioTest, RestartOfALoneMasterNeedsForce) {
  FabricWorld w(Sweep(), Sa());
  w.AddNode("m", kM, Role::kMaster, true);
  ASSERT_GE(StepsUntil(w, [&] {
              return w.node("m").policy->state() == SupervisorState::kMaster;
            }, 30), 0);
  w.Command("m", OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt});
  w.Step(2);
  ASSERT_EQ(w.node("m").replies.size(), 1u);
  EXPECT_EQ(w.node("m").replies[0].rfind("refused: no healthy STANDBY", 0), 0u)
      << w.node("m").replies[0];
  EXPECT_TRUE(w.node("m").running);
  OperatorCommand forced{OperatorCommand::Kind::kRestart, std::nullopt};
  forced.force = true;
  w.Command("m", forced);
  ASSERT_GE(StepsUntil(w, [&] { return w.node("m").replies.size() == 2; }, 40), 0);
  EXPECT_EQ(w.node("m").replies[1], "ok: OpenSM restarted; this SM is MASTER");
}

// Two role masters, both with preempt: whichever is master yields to the
// other's claim once and then stays out (parked): never a flip-flop.
TEST_P(ScenarioTest, TwoRoleMastersWithPreemptNeverFlipFlop) {
  FabricWorld w(Sweep(), Sa());
  w.AddNode("a", kM, Role::kMaster, true);
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "a"; }, 60), 0);
  w.AddNode("b", kS, Role::kMaster, true);
  ASSERT_GE(StepsUntil(w, [&] { return w.node("b").state == SmState::kStandby; }, 80), 0);
  const int changes_before = w.master_changes();
  ASSERT_TRUE(RunChecked(w, 6 * kHoldSteps));
  EXPECT_LE(w.master_changes() - changes_before, 1) << "mastership flip-flops between a and b";
}

}  // namespace
}  // namespace smsupd::policy::testing
