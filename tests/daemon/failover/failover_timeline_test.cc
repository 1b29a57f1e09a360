// The failover timeline's stages, fed by hand with wall times.
#include <gtest/gtest.h>

#include <cstdlib>

#include "daemon/failover/failover_timeline.h"

namespace smsupd {
namespace {

using std::chrono::milliseconds;
using Wall = FailoverTimeline::WallTime;

const Wall kT0 = Wall{} + std::chrono::hours(24 * 365 * 56);

TEST(FailoverTimelineTest, ATakeOverHasEveryStageInMillisecondsFromTheFault) {
  FailoverTimeline timeline;
  timeline.FaultSeen("master_lost", kT0);
  timeline.HandoverSent(kT0 + milliseconds(2));
  timeline.LocalMaster(kT0 + milliseconds(9), 9);
  EXPECT_TRUE(timeline.wants_far_port());
  EXPECT_EQ(timeline.local_lid(), 9);
  timeline.FarPortSeen(kT0 + milliseconds(380), 0x0002c90300004042, 21);
  // SUBNET UP still missing: not finished yet.
  EXPECT_FALSE(timeline.TakeFinished(kT0 + milliseconds(390)));
  timeline.SubnetUp(kT0 + milliseconds(412));
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + milliseconds(420));
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["cause"], "master_lost");
  EXPECT_TRUE((*done)["complete"].get<bool>());
  EXPECT_EQ((*done)["fault_seen_ms"], 0);
  EXPECT_EQ((*done)["handover_sent_ms"], 2);
  EXPECT_EQ((*done)["local_master_ms"], 9);
  EXPECT_EQ((*done)["subnet_up_ms"], 412);
  EXPECT_EQ((*done)["far_port_ms"], 380);
  EXPECT_EQ((*done)["far_port"]["guid"], "0x0002c90300004042");
  EXPECT_EQ((*done)["far_port"]["lid"], 21);
  EXPECT_EQ((*done)["master_lid"], 9);
  EXPECT_EQ(FailoverTimeline::Describe(*done),
            "master_lost: fault seen +0 ms, HANDOVER sent +2 ms, local OpenSM MASTER +9 ms, SUBNET UP +412 ms, "
            "far port sees the new SM LID +380 ms");
  EXPECT_FALSE(timeline.active()) << "reported once";
  EXPECT_FALSE(timeline.TakeFinished(kT0 + milliseconds(500)));
}

// What decided a detection is part of the event and of the journal line.
TEST(FailoverTimelineTest, TheSignalThatDecidedTheFaultIsShown) {
  FailoverTimeline timeline;
  timeline.FaultSeen("master_lost", kT0, "neighbour_port_down");
  timeline.LocalMaster(kT0 + milliseconds(4), 9);
  timeline.FarPortUnknown();
  timeline.SubnetUp(kT0 + milliseconds(300));
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + milliseconds(320));
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["fault_signal"], "neighbour_port_down");
  EXPECT_EQ(FailoverTimeline::Describe(*done).rfind("master_lost (neighbour_port_down): fault seen +0 ms", 0), 0u)
      << FailoverTimeline::Describe(*done);

  timeline.FaultSeen("operator", kT0);
  timeline.RemoteMaster(kT0 + milliseconds(10), 0x22);
  done = timeline.TakeFinished(kT0 + milliseconds(20));
  ASSERT_TRUE(done);
  EXPECT_TRUE((*done)["fault_signal"].is_null());
}

// The standby that a dying master handed over to saw no fault of its own.
TEST(FailoverTimelineTest, AHandoverReceivedStartsAtLocalMaster) {
  FailoverTimeline timeline;
  timeline.LocalMaster(kT0, 9);
  timeline.SubnetUp(kT0 - milliseconds(200));  // the sweep of an earlier master: not this one
  timeline.SubnetUp(kT0 + milliseconds(300));
  timeline.FarPortSeen(kT0 + milliseconds(310), 0x22, 20);
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + milliseconds(320));
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["cause"], "handover_received");
  EXPECT_TRUE((*done)["fault_seen_ms"].is_null());
  EXPECT_TRUE((*done)["handover_sent_ms"].is_null());
  EXPECT_EQ((*done)["local_master_ms"], 0);
  EXPECT_EQ((*done)["subnet_up_ms"], 300);
}

// The node whose OpenSM died: fault, HANDOVER to the standby, then the new
// MASTER seen by its watch.
TEST(FailoverTimelineTest, TheOldMasterEndsAtTheNewMasterItSees) {
  FailoverTimeline timeline;
  timeline.FaultSeen("opensm_exit", kT0);
  timeline.HandoverSent(kT0 + milliseconds(3));
  timeline.FaultSeen("master_lost", kT0 + milliseconds(5));  // one timeline per failover
  EXPECT_FALSE(timeline.wants_far_port());
  timeline.RemoteMaster(kT0 + milliseconds(160), 0x0002c90300001021);
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + milliseconds(170));
  ASSERT_TRUE(done);
  EXPECT_EQ((*done)["cause"], "opensm_exit");
  EXPECT_EQ((*done)["remote_master_ms"], 160);
  EXPECT_EQ((*done)["new_master"], "0x0002c90300001021");
  EXPECT_TRUE((*done)["local_master_ms"].is_null());
}

TEST(FailoverTimelineTest, AnUnfinishedTimelineIsReportedIncompleteAtTheLimit) {
  FailoverTimeline timeline;
  timeline.FaultSeen("no_master", kT0);
  timeline.LocalMaster(kT0 + milliseconds(5), 1);
  EXPECT_FALSE(timeline.TakeFinished(kT0 + kTimelineLimit - milliseconds(1)));
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + kTimelineLimit);
  ASSERT_TRUE(done);
  EXPECT_FALSE((*done)["complete"].get<bool>());
  EXPECT_TRUE((*done)["far_port_ms"].is_null());
  EXPECT_NE(FailoverTimeline::Describe(*done).find("incomplete"), std::string::npos);
}

TEST(FailoverTimelineTest, WithoutAFarPortTheTimelineEndsAtSubnetUp) {
  FailoverTimeline timeline;
  timeline.FaultSeen("master_lost", kT0);
  timeline.LocalMaster(kT0 + milliseconds(5), 1);
  timeline.FarPortUnknown();
  EXPECT_FALSE(timeline.wants_far_port());
  timeline.SubnetUp(kT0 + milliseconds(200));
  std::optional<nlohmann::json> done = timeline.TakeFinished(kT0 + milliseconds(210));
  ASSERT_TRUE(done);
  EXPECT_TRUE((*done)["complete"].get<bool>());
  EXPECT_TRUE((*done)["far_port_ms"].is_null());
}

TEST(OpenSmLogTimeTest, ReadsOpenSmsStampInLocalTime) {
  ::setenv("TZ", "UTC", 1);
  ::tzset();
  const auto now = std::chrono::system_clock::from_time_t(1796327111);  // 2026-12-03T19:45:11Z
  auto at = OpenSmLogTime("Dec 03 19:25:11 622645 [B5D9E6C0] 0x02 -> SUBNET UP", now);
  ASSERT_TRUE(at);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(now - *at).count(), 20LL * 60 * 1000000 - 622645);
  // A December stamp read in January is last year's.
  const auto january = now + std::chrono::hours(24 * 40);
  auto old = OpenSmLogTime("Dec 31 23:59:59 000001 [1] 0x02 -> SUBNET UP", january);
  ASSERT_TRUE(old);
  EXPECT_LT(*old, january);
  EXPECT_GT(*old, january - std::chrono::hours(24 * 30));
  EXPECT_FALSE(OpenSmLogTime("SUBNET UP", now));
  EXPECT_FALSE(OpenSmLogTime("Foo 03 19:25:11 622645 [B5D9E6C0] 0x02 -> SUBNET UP", now));
  EXPECT_FALSE(OpenSmLogTime("Dec 03 25:25:11 622645 [B5D9E6C0] 0x02 -> SUBNET UP", now));
  EXPECT_FALSE(OpenSmLogTime("", now));
}

}  // namespace
}  // namespace smsupd
