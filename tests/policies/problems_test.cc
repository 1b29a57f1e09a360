#include "policies/problems.h"

#include <gtest/gtest.h>

namespace smsupd::policy {
namespace {

constexpr Guid kLocalGuid = 0x10;
constexpr Guid kPeerGuid = 0x20;

ProblemInputs Healthy() {
  ProblemInputs in;
  in.local_guid = kLocalGuid;
  in.sms = {{kLocalGuid, 1, SmState::kMaster, 15}, {kPeerGuid, 2, SmState::kStandby, 5}};
  in.local_state = SmState::kMaster;
  in.local_port = LocalPort{4, 1, 1};
  in.opensm_running = true;
  in.sms_known = true;
  in.inventory = {kLocalGuid, kPeerGuid};
  return in;
}

TEST(ProblemsTest, HealthyPairHasNone) { EXPECT_TRUE(DetectProblems(Healthy()).empty()); }

TEST(ProblemsTest, EachConditionRaisesItsStableId) {
  ProblemInputs in = Healthy();
  in.sms[1].state = SmState::kNotActive;
  EXPECT_TRUE(DetectProblems(in).count(kProblemNoStandby));

  in = Healthy();
  in.sms[1].priority = 15;
  EXPECT_TRUE(DetectProblems(in).count(kProblemEqualPriority));

  in = Healthy();
  in.sms.push_back({0x99, 9, SmState::kStandby, 1});
  auto found = DetectProblems(in);
  ASSERT_TRUE(found.count(kProblemUnknownSm));
  EXPECT_NE(found[kProblemUnknownSm].find("0x0000000000000099"), std::string::npos);

  in = Healthy();
  in.sm_key_mismatch = true;
  EXPECT_TRUE(DetectProblems(in).count(kProblemSmKeyMismatch));

  in = Healthy();
  in.local_port = LocalPort{1, 0, 0};
  EXPECT_TRUE(DetectProblems(in).count(kProblemLocalPortDown));
  in.local_port.reset();
  EXPECT_TRUE(DetectProblems(in).count(kProblemLocalPortDown));

  in = Healthy();
  in.dual_master_settled = true;
  in.no_master_settled = true;
  in.act_count_stalled = true;
  found = DetectProblems(in);
  EXPECT_TRUE(found.count(kProblemDualMaster));
  EXPECT_TRUE(found.count(kProblemNoMaster));
  EXPECT_TRUE(found.count(kProblemActCountStalled));
}

TEST(ProblemsTest, EmptyInventoryTurnsTheUnknownSmCheckOff) {
  ProblemInputs in = Healthy();
  in.inventory.clear();
  in.sms.push_back({0x99, 9, SmState::kStandby, 1});
  EXPECT_FALSE(DetectProblems(in).count(kProblemUnknownSm));
}

TEST(ProblemsTest, TrackerRaisesOnceAndClearsWhenGone) {
  ProblemTracker tracker;
  Actions a = tracker.Update({{kProblemNoStandby, "x"}});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, Action::Kind::kRaiseProblem);
  EXPECT_TRUE(tracker.Update({{kProblemNoStandby, "x"}}).empty());
  a = tracker.Update({});
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, Action::Kind::kClearProblem);
  EXPECT_EQ(a[0].id, kProblemNoStandby);
}

TEST(ProblemsTest, TrackerRaisesOnlyWhatLastsTheSettleTime) {
  const TimePoint t0 = TimePoint{} + std::chrono::hours(1);
  ProblemTracker tracker(Duration(1000));
  EXPECT_TRUE(tracker.Update({{kProblemEqualPriority, "x"}}, t0).empty());
  EXPECT_TRUE(tracker.Update({}, t0 + Duration(500)).empty());  // gone: never raised
  EXPECT_TRUE(tracker.Update({{kProblemEqualPriority, "x"}}, t0 + Duration(600)).empty());
  Actions a = tracker.Update({{kProblemEqualPriority, "x"}}, t0 + Duration(1600));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].kind, Action::Kind::kRaiseProblem);
  tracker.SetSticky(kProblemHandoverFailed, "now");  // sticky: at once
  EXPECT_EQ(tracker.Update({{kProblemEqualPriority, "x"}}, t0 + Duration(1700)).size(), 1u);
}

TEST(ProblemsTest, StickyProblemsStayUntilClearedByThePolicy) {
  ProblemTracker tracker;
  tracker.SetSticky(kProblemHandoverFailed, "late");
  EXPECT_EQ(tracker.Update({}).size(), 1u);
  EXPECT_TRUE(tracker.Update({}).empty());
  tracker.ClearSticky(kProblemHandoverFailed);
  EXPECT_EQ(tracker.Update({})[0].kind, Action::Kind::kClearProblem);
}

}  // namespace
}  // namespace smsupd::policy
