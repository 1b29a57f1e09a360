// The failover timeline on a real pair: after a failover, `smctl events` on
// the node that became master holds one failover-timeline event with every
// stage, from the daemon's own records.
#include <gtest/gtest.h>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

class FailoverTimelineOnAPairTest : public FailoverTest {
 protected:
  // The node's first failover-timeline event (waits for it).
  nlohmann::json Timeline(const std::string& node) {
    nlohmann::json found;
    Status s = WaitFor(
        "a failover-timeline event from smsupd on " + node,
        [&] {
          auto events = bed().EventsOfKind(node, "failover-timeline");
          if (events.empty()) return false;
          found = events.front().value("details", nlohmann::json::object());
          return true;
        },
        kFailoverDeadline, milliseconds(200));
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << bed().Diagnostics();
    return found;
  }
  // The far port the timeline watched: the CA port farthest from the SMs.
  void ExpectFarPort(const nlohmann::json& timeline) {
    const TopoNode& far = fabric().topology().FarCa();
    ASSERT_TRUE(timeline.contains("far_port")) << timeline.dump();
    EXPECT_EQ(timeline["far_port"]["guid"], FormatGuid(far.PortGuid(1))) << timeline.dump();
  }
  static long Ms(const nlohmann::json& timeline, const char* stage) {
    const auto& value = timeline.value(stage, nlohmann::json());
    EXPECT_TRUE(value.is_number()) << stage << " missing: " << timeline.dump();
    return value.is_number() ? value.get<long>() : -1;
  }
};

// Loss of the master node: the standby sees every stage itself.
TEST_F(FailoverTimelineOnAPairTest, TheStandbyThatTakesOverRecordsEveryStage) {
  FailoverBedOptions options;
  options.preempt = false;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(bed().UnlinkNode(master_name()));
  ExpectSoleMaster(standby_name());

  nlohmann::json timeline = Timeline(standby_name());
  EXPECT_EQ(timeline.value("cause", ""), "master_lost") << timeline.dump();
  EXPECT_TRUE(timeline.value("complete", false)) << timeline.dump();
  const long fault = Ms(timeline, "fault_seen_ms");
  const long handover = Ms(timeline, "handover_sent_ms");
  const long master = Ms(timeline, "local_master_ms");
  const long subnet_up = Ms(timeline, "subnet_up_ms");
  const long far = Ms(timeline, "far_port_ms");
  EXPECT_EQ(fault, 0);
  EXPECT_LE(fault, handover);
  EXPECT_LE(handover, master);
  EXPECT_LE(master, subnet_up);
  EXPECT_LE(master, far);
  EXPECT_EQ(timeline.value("master_lid", 0), bed().LidOf(standby_name()));
  ExpectFarPort(timeline);

  // The text form names the stages.
  SmctlResult events = standby().Smctl({"events"});
  ASSERT_EQ(events.exit_code, 0) << events.Describe();
  EXPECT_NE(events.out.find("failover-timeline"), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("far port sees the new SM LID +"), std::string::npos) << events.out;
}

// kill -9 of the master's OpenSM: the old master records the fault and its
// HANDOVER, the new master the rest.
TEST_F(FailoverTimelineOnAPairTest, AKilledMastersTimelineIsSplitBetweenTheTwoNodes) {
  FailoverBedOptions options;
  options.preempt = false;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(bed().WaitForListedSm(master_name(), standby_name(), "STANDBY", kFailoverDeadline));
  Result<pid_t> killed = master().KillOpenSm();
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  ExpectSoleMaster(standby_name());

  nlohmann::json old_master = Timeline(master_name());
  EXPECT_EQ(old_master.value("cause", ""), "opensm_exit") << old_master.dump();
  EXPECT_EQ(Ms(old_master, "fault_seen_ms"), 0);
  EXPECT_GE(Ms(old_master, "handover_sent_ms"), 0);
  EXPECT_GE(Ms(old_master, "remote_master_ms"), 0);
  EXPECT_EQ(old_master.value("new_master", ""), FormatGuid(standby().port_guid())) << old_master.dump();

  nlohmann::json new_master = Timeline(standby_name());
  EXPECT_EQ(new_master.value("cause", ""), "handover_received") << new_master.dump();
  EXPECT_EQ(Ms(new_master, "local_master_ms"), 0);
  EXPECT_LE(0, Ms(new_master, "subnet_up_ms"));
  EXPECT_LE(0, Ms(new_master, "far_port_ms"));
  ExpectFarPort(new_master);
}

}  // namespace
}  // namespace smsupd::testbed
