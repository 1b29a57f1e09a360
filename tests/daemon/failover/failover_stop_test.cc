// `systemctl stop smsupd` (SIGTERM) on the master hands over first: the
// standby is MASTER while the old OpenSM still runs, and the probe never
// sees a moment without a master.
#include <gtest/gtest.h>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

// smsupd gives a handover handover_timeout_ms (5 s) and then stops OpenSM.
constexpr milliseconds kStopDeadline(30000);

class FailoverStopTest : public FailoverTest {};

TEST_F(FailoverStopTest, SigtermOnTheMasterHandsOverBeforeOpenSmStops) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  std::optional<pid_t> old_opensm = master().OpenSmPid();
  ASSERT_TRUE(old_opensm.has_value());
  ASSERT_OK(master().Terminate());

  // Read the standby's SMInfo first, then whether the old OpenSM is alive:
  // alive after the read means it was alive when the standby was MASTER.
  bool standby_master_while_old_alive = false;
  bool old_gone_first = false;
  Status s = WaitFor(
      "the standby to be MASTER",
      [&](std::string& why) {
        Result<SmInfoView> sm = bed().probe().SmInfo(bed().LidOf(standby_name()));
        bool alive = ProcessAlive(*old_opensm);
        why = (sm ? SmStateText(sm->state) : sm.error().message) + (alive ? ", old OpenSM alive" : ", old OpenSM gone");
        if (sm && sm->is_master()) {
          standby_master_while_old_alive = alive;
          return true;
        }
        old_gone_first = old_gone_first || !alive;
        return false;
      },
      kStopDeadline, milliseconds(10));
  ASSERT_TRUE(s.ok()) << s.message() << "\n" << bed().Diagnostics();
  EXPECT_FALSE(old_gone_first) << "the old OpenSM stopped before the standby was MASTER";
  EXPECT_TRUE(standby_master_while_old_alive) << "the old OpenSM was gone when the standby became MASTER";

  Result<ExitStatus> exited = master().Wait(kStopDeadline);
  ASSERT_TRUE(exited.ok()) << "smsupd did not exit on SIGTERM: " << exited.error().message;
  EXPECT_FALSE(exited->signaled) << exited->Describe();
  EXPECT_EQ(exited->code, 0) << exited->Describe();
  EXPECT_OK(WaitFor("the old OpenSM to stop", [&] { return !ProcessAlive(*old_opensm); }, kStopDeadline));

  ExpectSoleMaster(standby_name());
  ExpectEveryCaFollows(standby_name());
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.no_master_samples, 0) << "a moment without master: " << report.Describe();
}

TEST_F(FailoverStopTest, SigtermOnTheStandbyLeavesTheMasterAlone) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  ASSERT_OK(standby().Terminate());
  Result<ExitStatus> exited = standby().Wait(kStopDeadline);
  ASSERT_TRUE(exited.ok()) << "smsupd did not exit on SIGTERM: " << exited.error().message;
  EXPECT_EQ(exited->code, 0) << exited->Describe();
  ExpectSoleMaster(master_name());
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.no_master_samples, 0) << report.Describe();
  EXPECT_EQ(report.master_samples.count(standby_name()), 0u) << report.Describe();
}

}  // namespace
}  // namespace smsupd::testbed
