// The master is lost: its OpenSM killed with -9, or its whole node gone (the
// HCA port unlinked in ibsim). The standby must be the only MASTER and every
// HCA must follow it, as the test bed's own MAD queries show; `smctl events`
// must tell the story.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <sstream>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

class FailoverLossTest : public FailoverTest {
 protected:
  // Waits until `node`'s smsupd lists an event of `kind` (with `field` ==
  // `value` when given).
  void ExpectEvent(const std::string& node, const std::string& kind, const std::string& field = "",
                   const std::string& value = "") {
    Status s = WaitFor(
        "an event '" + kind + "' from smsupd on " + node,
        [&] {
          for (const auto& event : bed().EventsOfKind(node, kind)) {
            if (field.empty()) return true;
            const auto& details = event.value("details", nlohmann::json::object());
            if (details.value(field, std::string()) == value) return true;
          }
          return false;
        },
        kFailoverDeadline, milliseconds(200));
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << bed().Diagnostics();
  }
};

// The master's smsupd must know its standby (status sms[], no NO_STANDBY
// problem): a kill -9 hands over to the best STANDBY it knows.
TEST_F(FailoverLossTest, TheMasterListsTheStandby) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  EXPECT_OK(bed().WaitForListedSm(master_name(), standby_name(), "STANDBY", kFailoverDeadline));
  Result<nlohmann::json> status = master().StatusJson();
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->dump().find("NO_STANDBY"), std::string::npos) << status->dump();
}

// The standby takes mastership by a claim (`smctl failover` run on it: the
// old master yields and its OpenSM stays, STANDBY), and its OpenSM is
// killed at once. Its last SM list, read before, still names the old master
// MASTER: the exit is decided on a fresh list, and the old master gets the
// HANDOVER (no restart in place, no second without a master). The
// claimer's list is read only every 60 s here, so it is surely stale, and
// the kill waits for its first sweep, after which its port names itself
// and the old master is no longer read directly either.
TEST_F(FailoverLossTest, AMastersOpenSmKilledRightAfterAClaimHandsOverOnAFreshList) {
  FailoverBedOptions options;
  options.preempt = false;
  options.configure = [](int index, SmsupdConfig& config) {
    if (index == 1) config.inventory_interval_ms = 60000;
  };
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  SmctlResult claimed = standby().Smctl({"--json", "failover", "--wait", "--timeout", "20"});
  ASSERT_EQ(claimed.exit_code, 0) << claimed.Describe() << "\n" << bed().Diagnostics();
  // Its first sweep done (the ports name it), long before its next list.
  ExpectSoleMaster(standby_name());
  Result<pid_t> killed = standby().KillOpenSm();
  ASSERT_TRUE(killed.ok()) << killed.error().message;

  ExpectEvent(standby_name(), "handover-sent");
  ExpectSoleMaster(master_name());
  ExpectEveryCaFollows(master_name());
  EXPECT_TRUE(bed().EventsOfKind(standby_name(), "master-lost").empty())
      << "restarted in place\n" << bed().Diagnostics();
}

TEST_F(FailoverLossTest, KillOfTheMasterOpenSmMakesTheStandbyMaster) {
  FailoverBedOptions options;
  options.preempt = false;  // the returning node must stay a standby here
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  Result<pid_t> killed = master().KillOpenSm();
  ASSERT_TRUE(killed.ok()) << killed.error().message;

  ExpectSoleMaster(standby_name());
  ExpectEveryCaFollows(standby_name());
  // The master's smsupd restarts its OpenSM, which joins as a standby.
  EXPECT_OK(bed().WaitForProbeState(master_name(), SmStateValue::kStandby, kFailoverDeadline));
  std::optional<pid_t> restarted = master().OpenSmPid();
  ASSERT_TRUE(restarted.has_value()) << bed().Diagnostics();
  EXPECT_NE(*restarted, *killed);
  ExpectSoleMaster(standby_name());

  ExpectEvent(master_name(), "opensm-exited");
  ExpectEvent(standby_name(), "master-changed", "to", FormatGuid(standby().port_guid()));
}

TEST_F(FailoverLossTest, LossOfTheMasterNodeMakesTheStandbyMasterAndItStaysSo) {
  FailoverBedOptions options;
  options.preempt = false;
  options.hold_time_s = 1;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(bed().UnlinkNode(master_name()));

  ExpectSoleMaster(standby_name());  // every HCA but the unlinked one follows
  ExpectEvent(standby_name(), "master-lost");

  // The node comes back: sticky mastership keeps H1_2 master, the returning
  // SM joins as a standby, and no second disruption follows.
  ASSERT_OK(bed().RelinkNode(master_name()));
  EXPECT_OK(bed().WaitForProbeState(master_name(), SmStateValue::kStandby, kFailoverDeadline));
  ExpectSoleMaster(standby_name());
  ExpectEveryCaFollows(standby_name());
  EXPECT_OK(bed().HoldSoleMaster(
      "sole master " + standby_name() + " after the old master returned", standby_name(),
      milliseconds(options.hold_time_s * 1000 + 5000)));
}

// A flap of the master's cable that its smsupd never saw (shorter than a
// watch round; here the smsupd is paused over the whole outage). The
// standby takes over at the first Down read of the switch port at the
// other end of the cable; the old master's OpenSM ran through the outage
// and still answers MASTER at 15, which wins OpenSM's election against the
// new master at 5. Its smsupd, resumed, sees its former STANDBY as MASTER,
// stops that OpenSM and starts a fresh standby; the new master holds on
// meanwhile instead of yielding: the fabric is not handed back.
TEST_F(FailoverLossTest, AMasterLinkFlapItsSmsupdNeverSawLeavesTheNewMasterInCharge) {
  FailoverBedOptions options;
  options.preempt = false;
  options.hold_time_s = 1;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  // The master's smsupd has listed its STANDBY during this mastership.
  ASSERT_OK(bed().WaitForListedSm(master_name(), standby_name(), "STANDBY", kFailoverDeadline));
  ASSERT_OK(master().Signal(SIGSTOP));
  struct Resume {
    ManagementNode& node;
    ~Resume() { (void)node.Signal(SIGCONT); }
  } resume{master()};
  ASSERT_OK(bed().UnlinkNode(master_name()));
  ExpectEvent(standby_name(), "master-lost");
  ASSERT_OK(bed().RelinkNode(master_name()));
  // ibsim takes console commands in its own time: resumed before the link
  // is back, the smsupd would read its port Down (the isolated path). Every
  // HCA, the old master's included, following the new master shows the
  // link back and swept by it.
  ExpectEveryCaFollows(standby_name());
  ASSERT_OK(master().Signal(SIGCONT));

  ExpectEvent(master_name(), "superseded-master-stopped");
  EXPECT_OK(bed().WaitForProbeState(master_name(), SmStateValue::kStandby, kFailoverDeadline));
  ExpectSoleMaster(standby_name());
  ExpectEveryCaFollows(standby_name());
  EXPECT_OK(bed().HoldSoleMaster(
      "sole master " + standby_name() + " after the old master's smsupd resumed", standby_name(),
      milliseconds(options.hold_time_s * 1000 + 5000)));
  EXPECT_TRUE(bed().EventsOfKind(master_name(), "isolated-master-stopped").empty())
      << "the paused smsupd read its port Down\n" << bed().Diagnostics();
}

// Node loss seen where the fabric sees it first: the switch port at the
// other end of the master's cable goes Down when the master's HCA port is
// unlinked (ibsim sets both ends Down), and the standby reads that port
// every poll once its walk found the route. The take-over names that
// signal, in the master-lost event and in the failover timeline.
TEST_F(FailoverLossTest, LossOfTheMasterNodeIsSeenAtTheSwitchPortOfItsCable) {
  FailoverBedOptions options;
  options.preempt = false;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  // The standby says in its journal once it watches the master's cable.
  ASSERT_OK(WaitFor(
      "MASTER_LINK_WATCHED in the standby's log",
      [&] {
        std::ifstream log(standby().smsupd_log());
        std::stringstream text;
        text << log.rdbuf();
        return text.str().find("MASTER_LINK_WATCHED") != std::string::npos;
      },
      kFailoverDeadline, milliseconds(100)));
  ASSERT_OK(bed().UnlinkNode(master_name()));

  ExpectSoleMaster(standby_name());
  ExpectEvent(standby_name(), "master-lost");
  std::vector<nlohmann::json> lost = bed().EventsOfKind(standby_name(), "master-lost");
  ASSERT_FALSE(lost.empty());
  const std::string text = lost.front().value("details", nlohmann::json::object()).value("text", "");
  EXPECT_NE(text.find("the switch port at the other end of its cable reads Down"), std::string::npos)
      << text << "\n" << bed().Diagnostics();
  nlohmann::json timeline;
  ASSERT_OK(WaitFor(
      "a failover-timeline event on the standby",
      [&] {
        auto events = bed().EventsOfKind(standby_name(), "failover-timeline");
        if (events.empty()) return false;
        timeline = events.front().value("details", nlohmann::json::object());
        return true;
      },
      kFailoverDeadline, milliseconds(200)));
  EXPECT_EQ(timeline.value("cause", ""), "master_lost") << timeline.dump();
  EXPECT_EQ(timeline.value("fault_signal", ""), "neighbour_port_down") << timeline.dump();
}

TEST_F(FailoverLossTest, LossOfTheMasterNodeWithPreemptGivesMastershipBackAfterTheHoldTime) {
  FailoverBedOptions options;
  options.preempt = true;
  options.hold_time_s = 2;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(bed().UnlinkNode(master_name()));
  ExpectSoleMaster(standby_name());
  ExpectEvent(standby_name(), "master-lost");

  ASSERT_OK(bed().RelinkNode(master_name()));
  ExpectSoleMaster(master_name(), kFailoverDeadline + milliseconds(options.hold_time_s * 1000));
  EXPECT_OK(bed().WaitForProbeState(standby_name(), SmStateValue::kStandby, kFailoverDeadline));
  ExpectEveryCaFollows(master_name());
}

}  // namespace
}  // namespace smsupd::testbed
