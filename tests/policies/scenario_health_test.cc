// Scenarios about what the supervisors must NOT do (act blind, act twice,
// disturb an adopted OpenSM) and about the problems they raise and clear.
#include <algorithm>

#include "tests/policies/scenario_steps.h"

namespace smsupd::policy::testing {
namespace {

bool EverDid(const SimNode& n, Action::Kind kind, const std::string& id = "") {
  return std::any_of(n.history.begin(), n.history.end(), [&](const Action& a) {
    return a.kind == kind && (id.empty() || a.id == id);
  });
}

TEST(ScenarioHealthTest, StandbyWithItsPortDownNeverTakesOver) {
  FabricWorld w;
  Boot(w, false);
  w.node("s").port_down = true;
  ASSERT_TRUE(RunChecked(w, 100));
  EXPECT_FALSE(EverDid(w.node("s"), Action::Kind::kTakeOver));
  EXPECT_TRUE(Raised(w.node("s"), kProblemLocalPortDown));
  EXPECT_FALSE(Raised(w.node("s"), kProblemNoMaster));
  EXPECT_EQ(w.MasterName(), "m");
  w.node("s").port_down = false;
  ASSERT_TRUE(RunChecked(w, 3));
  EXPECT_FALSE(Raised(w.node("s"), kProblemLocalPortDown));
}

TEST(ScenarioHealthTest, OnlyTheBestOfTwoStandbysTakesOver) {
  FabricWorld w;
  Boot(w, false);
  SimNode& t = w.AddNode("t", 0x0002c90300000007, Role::kStandby, false);
  ASSERT_GE(StepsUntil(w, [&] { return t.state == SmState::kStandby; }, 30), 0);
  w.NodeDown("m");
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(CheckedStep(w));
    ASSERT_LE(w.Masters().size(), 1u) << "step " << i;
  }
  EXPECT_EQ(w.MasterName(), "s");  // equal priority 5: the lower GUID is best
  EXPECT_FALSE(EverDid(t, Action::Kind::kTakeOver));
  EXPECT_EQ(t.priority, 5);
}

TEST(ScenarioHealthTest, RestartedSmsupdAdoptsOpenSmWithoutTouchingIt) {
  FabricWorld w;
  Boot(w, true);
  for (const char* name : {"m", "s"}) {
    w.RestartSmsupd(name);
    w.node(name).history.clear();
  }
  ASSERT_TRUE(RunChecked(w, 30));
  for (const char* name : {"m", "s"}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(EverDid(w.node(name), Action::Kind::kStartOpenSm));
    EXPECT_FALSE(EverDid(w.node(name), Action::Kind::kSetLocalPriority));
    EXPECT_TRUE(EverDid(w.node(name), Action::Kind::kEmitEvent, "OPENSM_ADOPTED"));
  }
  EXPECT_EQ(w.node("m").policy->state(), SupervisorState::kMaster);
  EXPECT_EQ(w.node("s").policy->state(), SupervisorState::kStandby);
  EXPECT_EQ(w.master_changes(), 1);
}

TEST(ScenarioHealthTest, StopOnAStandbyStopsAtOnce) {
  FabricWorld w;
  Boot(w, true);
  w.Command("s", OperatorCommand{OperatorCommand::Kind::kStop, std::nullopt});
  ASSERT_TRUE(RunChecked(w, 3));
  EXPECT_EQ(w.node("s").policy->state(), SupervisorState::kStopped);
  EXPECT_EQ(w.MasterName(), "m");
}

TEST(ScenarioHealthTest, DualMasterIsRaisedThenCleared) {
  FabricWorld w;
  w.AddNode("m", kM, Role::kMaster, true);
  w.AddNode("s", kS, Role::kStandby, true);
  w.StartRacing("m", "s");
  ASSERT_GE(StepsUntil(w, [&] { return w.Masters().size() == 1; }, 40), 0);
  ASSERT_TRUE(RunChecked(w, 3));
  EXPECT_TRUE(EverDid(w.node("m"), Action::Kind::kRaiseProblem, kProblemDualMaster));
  EXPECT_TRUE(EverDid(w.node("m"), Action::Kind::kClearProblem, kProblemDualMaster));
  EXPECT_FALSE(Raised(w.node("m"), kProblemDualMaster));
}

TEST(ScenarioHealthTest, SmKeyMismatchIsRaisedAndCleared) {
  FabricWorld w;
  Boot(w, true);
  w.node("s").sm_key_mismatch = true;
  w.Step();
  EXPECT_FALSE(Raised(w.node("s"), kProblemSmKeyMismatch));  // not yet settled
  w.Step(1000 / 150 + 1);
  EXPECT_TRUE(Raised(w.node("s"), kProblemSmKeyMismatch));
  w.node("s").sm_key_mismatch = false;
  w.Step();
  EXPECT_FALSE(Raised(w.node("s"), kProblemSmKeyMismatch));
}

TEST(ScenarioHealthTest, FrozenActCountIsRaisedWithoutTakingOver) {
  FabricWorld w;
  Boot(w, true);
  w.node("m").act_frozen = true;
  const int stall_steps = 10000 / 150 + 2;
  ASSERT_TRUE(RunChecked(w, stall_steps));
  EXPECT_TRUE(Raised(w.node("s"), kProblemActCountStalled));
  EXPECT_EQ(w.MasterName(), "m");  // it answers: never taken over
  w.node("m").act_frozen = false;
  ASSERT_TRUE(RunChecked(w, 2));
  EXPECT_FALSE(Raised(w.node("s"), kProblemActCountStalled));
}

TEST(ScenarioHealthTest, ForeignSmAndEqualTopPriorityAreRaised) {
  FabricWorld w;
  w.AddNode("m", kM, Role::kMaster, true).config.inventory = {kM, kS};
  w.node("m").policy = std::make_unique<FailoverPolicy>(w.node("m").config, w.now());
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, 30), 0);
  SimNode& x = w.AddNode("x", 0x0002c90300000099, Role::kStandby, true);
  x.smsupd_up = false;
  w.StartRaw("x", 15);  // e.g. a switch-embedded SM at 15
  ASSERT_TRUE(RunChecked(w, 10));
  EXPECT_TRUE(Raised(w.node("m"), kProblemUnknownSm));
  EXPECT_TRUE(Raised(w.node("m"), kProblemEqualPriority));
  EXPECT_EQ(w.MasterName(), "m");
}

}  // namespace
}  // namespace smsupd::policy::testing
