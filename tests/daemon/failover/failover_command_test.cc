// `smctl failover [--to GUID] [--wait]`: a controlled handover, run on the
// master or on the standby, with no moment without a master and no flip
// back afterwards; refused with exit 1 and a reason when there is no
// standby or the target is not an SM of this subnet.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "tests/daemon/failover/failover_test_base.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr int kCommandHoldTimeS = 2;

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

class FailoverCommandTest : public FailoverTest {
 protected:
  void StartWithPreempt() {
    FailoverBedOptions options;
    options.preempt = true;  // the strongest pull back: a flip back would show
    options.hold_time_s = kCommandHoldTimeS;
    ASSERT_NO_FATAL_FAILURE(StartPair(options));
  }

  // Runs `smctl --json failover --wait [args]` on `node`; exit 0 and the
  // reply names `expected` as master.
  void Failover(const std::string& node, const std::vector<std::string>& args, const std::string& expected) {
    std::vector<std::string> argv = {"--json", "failover", "--wait", "--timeout", "20"};
    argv.insert(argv.end(), args.begin(), args.end());
    SmctlResult r = bed().Node(node).Smctl(argv);
    ASSERT_EQ(r.exit_code, 0) << r.Describe() << "\n" << bed().Diagnostics();
    json reply = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(reply.is_discarded()) << r.Describe();
    const json& body = reply.contains("arguments") ? reply["arguments"] : reply;
    EXPECT_EQ(body.value("master", std::string()), FormatGuid(bed().Node(expected).port_guid())) << r.out;
    EXPECT_EQ(body.value("to", std::string()), FormatGuid(bed().Node(expected).port_guid())) << r.out;
  }

  // After a handover to `master`: it is the only MASTER, every HCA follows
  // it, the old one is STANDBY, it was never without a master, and it does
  // not flip back (not even after the hold time, with preempt on).
  void ExpectHandedOverTo(const std::string& master, const std::string& old) {
    ExpectSoleMaster(master);
    ExpectEveryCaFollows(master);
    EXPECT_OK(bed().WaitForProbeState(old, SmStateValue::kStandby, kFailoverDeadline));
    // The priorities end as planned: the new master's raise to 15 is applied
    // by OpenSM (a heavy sweep after the old master's return, or a SIGHUP),
    // and the old master moves to the standby priority under it.
    EXPECT_OK(bed().WaitForProbePriority(master, 15, kFailoverDeadline));
    EXPECT_OK(bed().WaitForProbePriority(old, 5, kFailoverDeadline));
    EXPECT_OK(bed().HoldSoleMaster(
        "sole master " + master + " (no flip back)", master,
        milliseconds(kCommandHoldTimeS * 1000 + 5000)));
    MonitorReport report = bed().monitor()->Snapshot();
    EXPECT_EQ(report.no_master_samples, 0) << "a moment without master: " << report.Describe();
  }

  // Exit 1, a reason mentioning one of `words`, and nothing changed.
  void ExpectRefused(const SmctlResult& r, const std::vector<std::string>& words) {
    EXPECT_EQ(r.exit_code, 1) << r.Describe();
    std::string text = Lower(r.err + r.out);
    EXPECT_TRUE(std::any_of(words.begin(), words.end(), [&](const std::string& w) {
      return text.find(Lower(w)) != std::string::npos;
    })) << "no clear reason: " << r.Describe();
    ExpectSoleMaster(master_name());
  }
};

TEST_F(FailoverCommandTest, FromTheMaster) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt());
  ASSERT_NO_FATAL_FAILURE(Failover(master_name(), {}, standby_name()));
  ExpectHandedOverTo(standby_name(), master_name());
}

TEST_F(FailoverCommandTest, FromTheStandby) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt());
  ASSERT_NO_FATAL_FAILURE(Failover(standby_name(), {}, standby_name()));
  ExpectHandedOverTo(standby_name(), master_name());
}

// The master reads its STANDBY's SMInfo every watch round, so the claim
// (the standby at priority 14) is seen within a round and not only at the
// master's next SM list: here the master takes a list only every 30 s.
// Once a list shows the standby (the second, ~30 s in), the claim is made
// at once; the next list comes ~30 s later, 10 s after the command's 20 s
// timeout, and the claim is served before it.
TEST_F(FailoverCommandTest, FromTheStandbyWithoutWaitingForTheMastersNextList) {
  FailoverBedOptions options;
  options.preempt = false;
  options.configure = [](int index, SmsupdConfig& config) {
    if (index == 0) config.inventory_interval_ms = 30000;
  };
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(bed().WaitForListedSm(master_name(), standby_name(), "STANDBY", milliseconds(75000)));
  ASSERT_NO_FATAL_FAILURE(Failover(standby_name(), {}, standby_name()));
  ExpectHandedOverTo(standby_name(), master_name());
}

TEST_F(FailoverCommandTest, WithToBothWays) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt());
  const std::string to_standby = FormatGuid(standby().port_guid());
  ASSERT_NO_FATAL_FAILURE(Failover(master_name(), {"--to", to_standby}, standby_name()));
  ExpectHandedOverTo(standby_name(), master_name());
  // And back, run this time on the node that takes mastership.
  const std::string to_master = FormatGuid(master().port_guid());
  ASSERT_NO_FATAL_FAILURE(Failover(master_name(), {"--to", to_master}, master_name()));
  ExpectHandedOverTo(master_name(), standby_name());
}

TEST_F(FailoverCommandTest, RefusedWithoutAStandby) {
  FailoverBedOptions options;
  options.start_standby = false;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  SmctlResult r = master().Smctl({"failover", "--wait", "--timeout", "20"});
  ExpectRefused(r, {"standby"});
}

TEST_F(FailoverCommandTest, RefusedForAGuidThatIsNoSmOfThisSubnet) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt());
  // A real HCA of the fabric that runs no SM, and a GUID nobody has.
  const std::string far_hca = FormatGuid(fabric().topology().FarCa().PortGuid(1));
  const std::string nobody = "0x00000000deadbeef";
  for (const std::string& target : {far_hca, nobody}) {
    SCOPED_TRACE("--to " + target);
    for (ManagementNode* node : {&master(), &standby()}) {
      SmctlResult r = node->Smctl({"failover", "--to", target, "--wait", "--timeout", "20"});
      ExpectRefused(r, {target, "not an sm", "unknown", "no sm"});
    }
  }
  EXPECT_TRUE(bed().monitor()->Snapshot().master_samples.count(standby_name()) == 0)
      << bed().monitor()->Snapshot().Describe();
}

}  // namespace
}  // namespace smsupd::testbed
