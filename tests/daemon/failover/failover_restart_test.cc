// `smctl restart-opensm` and `systemctl restart`-like restarts on two real
// smsupd + OpenSM nodes: the MASTER hands over before its OpenSM restarts,
// the subnet is never without a master, a standby restarts in place, a lone
// master refuses unless forced.
#include <gtest/gtest.h>

#include "tests/daemon/failover/failover_test_base.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

class FailoverRestartTest : public FailoverTest {
 protected:
  // smctl restart-opensm --wait on `node`: exit 0, a new OpenSM pid there.
  void Restart(ManagementNode& node, const std::vector<std::string>& extra = {}) {
    const auto before = node.OpenSmPid();
    ASSERT_TRUE(before.has_value());
    std::vector<std::string> argv = {"restart-opensm", "--wait", "--timeout", "30"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    SmctlResult r = node.Smctl(argv);
    ASSERT_EQ(r.exit_code, 0) << r.Describe() << "\n" << bed().Diagnostics();
    EXPECT_NE(r.out.find("OpenSM restarted"), std::string::npos) << r.Describe();
    const auto after = node.OpenSmPid();
    ASSERT_TRUE(after.has_value());
    EXPECT_NE(*after, *before) << "OpenSM was not restarted";
  }
};

TEST_F(FailoverRestartTest, OnTheMasterItHandsOverFirstAndNeverLeavesTheSubnetWithoutMaster) {
  FailoverBedOptions options;
  options.preempt = false;  // the restarted node stays a standby: easy to check
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_NO_FATAL_FAILURE(Restart(master()));
  ExpectSoleMaster(standby_name());
  EXPECT_OK(bed().WaitForProbeState(master_name(), SmStateValue::kStandby, kFailoverDeadline));
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.no_master_samples, 0) << "a moment without master: " << report.Describe();
}

TEST_F(FailoverRestartTest, OnTheStandbyItRestartsInPlace) {
  ASSERT_NO_FATAL_FAILURE(StartPair(FailoverBedOptions{}));
  ASSERT_NO_FATAL_FAILURE(Restart(standby()));
  ExpectSoleMaster(master_name());
  EXPECT_OK(bed().WaitForProbeState(standby_name(), SmStateValue::kStandby, kFailoverDeadline));
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.no_master_samples, 0) << report.Describe();
  EXPECT_TRUE(report.master_samples.count(standby_name()) == 0) << report.Describe();
}

TEST_F(FailoverRestartTest, ALoneMasterRefusesUnlessForced) {
  FailoverBedOptions options;
  options.start_standby = false;
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  const auto before = master().OpenSmPid();
  SmctlResult refused = master().Smctl({"restart-opensm", "--wait", "--timeout", "30"});
  EXPECT_EQ(refused.exit_code, 1) << refused.Describe();
  EXPECT_NE((refused.err + refused.out).find("--force"), std::string::npos) << refused.Describe();
  EXPECT_EQ(master().OpenSmPid(), before) << "refused, yet OpenSM was restarted";
  ASSERT_NO_FATAL_FAILURE(Restart(master(), {"--force"}));
  ExpectSoleMaster(master_name());
}

}  // namespace
}  // namespace smsupd::testbed
