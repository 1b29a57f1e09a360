#include "policies/priority_plan.h"

#include <gtest/gtest.h>

namespace smsupd::policy {
namespace {

constexpr Guid kLow = 0x0002c90300000001;
constexpr Guid kHigh = 0x0002c90300000002;

PolicyConfig Config(Guid local, Role role) {
  PolicyConfig c;
  c.local_guid = local;
  c.role = role;
  return c;
}

TEST(PriorityPlanTest, ElectionOrderIsPriorityThenLowerGuid) {
  EXPECT_TRUE(OutRanks(15, kHigh, 5, kLow));
  EXPECT_FALSE(OutRanks(5, kLow, 15, kHigh));
  EXPECT_TRUE(OutRanks(5, kLow, 5, kHigh));   // equal priority: lower GUID wins
  EXPECT_FALSE(OutRanks(5, kHigh, 5, kLow));
  EXPECT_FALSE(OutRanks(5, kLow, 5, kLow));   // nobody outranks itself
}

TEST(PriorityPlanTest, ElectionWinnerIgnoresNotActiveSms) {
  std::vector<SmEntry> sms = {{kLow, 1, SmState::kNotActive, 15},
                              {kHigh, 2, SmState::kStandby, 5}};
  ASSERT_TRUE(ElectionWinner(sms));
  EXPECT_EQ(ElectionWinner(sms)->guid, kHigh);
  EXPECT_FALSE(ElectionWinner({}));
}

TEST(PriorityPlanTest, BestStandbySkipsMastersAndTheExcludedSm) {
  std::vector<SmEntry> sms = {{kLow, 1, SmState::kMaster, 15},
                              {kHigh, 2, SmState::kStandby, 5},
                              {0x3, 3, SmState::kStandby, 5}};
  EXPECT_EQ(BestStandby(sms, kLow)->guid, 0x3u);  // equal priority, lower GUID
  EXPECT_EQ(BestStandby(sms, 0x3)->guid, kHigh);
  EXPECT_FALSE(BestStandby({{kLow, 1, SmState::kMaster, 15}}, 0));
}

TEST(PriorityPlanTest, StandbyIsClampedBelowTheMaster) {
  // Standby with the lower GUID under a master at 5: 5 would win, so 4.
  EXPECT_EQ(HighestRankingBelow(5, kLow, 5, kHigh), 4);
  EXPECT_EQ(HighestRankingBelow(5, kHigh, 5, kLow), 5);
  EXPECT_EQ(HighestRankingBelow(14, kLow, 15, kHigh), 14);
  EXPECT_FALSE(HighestRankingBelow(5, kLow, 0, kHigh));
}

TEST(PriorityPlanTest, StandbyPriorityFollowsPlan) {
  const PolicyConfig c = Config(kLow, Role::kMaster);
  SmEntry master{kHigh, 2, SmState::kMaster, 15};
  EXPECT_EQ(StandbyPriority(c, false, master), 5);
  EXPECT_EQ(StandbyPriority(c, true, master), 14);  // claim
  master.priority = 5;                               // just took over
  EXPECT_EQ(StandbyPriority(c, true, master), 4);
  EXPECT_EQ(StandbyPriority(c, false, std::nullopt), 5);
  master.priority = kYieldPriority;  // handing over: do not follow it down
  EXPECT_EQ(StandbyPriority(c, false, master), 5);
  EXPECT_EQ(StandbyPriority(c, true, master), 14);
}

TEST(PriorityPlanTest, StartJoinsUnderAnExistingMasterElseUsesTheRole) {
  const SmEntry master{kHigh, 2, SmState::kMaster, 5};
  EXPECT_EQ(StartPriority(Config(kLow, Role::kMaster), master), 4);
  EXPECT_EQ(StartPriority(Config(kLow, Role::kMaster), std::nullopt), 15);
  EXPECT_EQ(StartPriority(Config(kLow, Role::kStandby), std::nullopt), 5);
}

TEST(PriorityPlanTest, ConfigCheckNamesTheProblem) {
  PolicyConfig c = Config(kLow, Role::kMaster);
  EXPECT_EQ(CheckPolicyConfig(c), "");
  c.master_priority = 6;
  EXPECT_NE(CheckPolicyConfig(c).find("at least 2"), std::string::npos);
  c = Config(0, Role::kMaster);
  EXPECT_NE(CheckPolicyConfig(c).find("GUID"), std::string::npos);
}

}  // namespace
}  // namespace smsupd::policy
