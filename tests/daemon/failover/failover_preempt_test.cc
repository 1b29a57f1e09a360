// Both policies through fail / return / fail again, with kill -9 of the
// MASTER's OpenSM as the failure (its smsupd restarts it: the "return").
//   preempt: true   the role master takes mastership back once it has been
//                   a healthy standby for hold_time, and loses it again on
//                   the next failure;
//   preempt: false  whoever is master stays master; the returning node is a
//                   standby, and the next failure moves mastership back.
#include <gtest/gtest.h>

#include "tests/daemon/failover/failover_test_base.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr int kHoldTimeS = 2;

class FailoverPreemptTest : public FailoverTest {
 protected:
  void StartWithPreempt(bool preempt) {
    FailoverBedOptions options;
    options.preempt = preempt;
    options.hold_time_s = kHoldTimeS;
    ASSERT_NO_FATAL_FAILURE(StartPair(options));
  }

  // From the steady state (node MASTER, its smsupd listing survivor as
  // STANDBY): kill -9 of `node`'s OpenSM; `survivor` must become the sole
  // MASTER and `node`'s restarted OpenSM a STANDBY.
  void FailAndReturn(const std::string& node, const std::string& survivor) {
    SCOPED_TRACE("kill -9 of the OpenSM on " + node);
    ASSERT_OK(bed().WaitForSteadyState(node, survivor, kFailoverDeadline));
    Result<pid_t> killed = bed().Node(node).KillOpenSm();
    ASSERT_TRUE(killed.ok()) << killed.error().message;
    ExpectSoleMaster(survivor);
    ASSERT_OK(bed().WaitForProbeState(node, SmStateValue::kStandby, kFailoverDeadline));
  }

  // `master` stays the sole MASTER for hold_time and a margin beyond it.
  void ExpectStaysMaster(const std::string& master) {
    EXPECT_OK(bed().HoldSoleMaster(
        "sole master " + master, master,
        milliseconds(kHoldTimeS * 1000 + 5000)));
  }
};

TEST_F(FailoverPreemptTest, PreemptTrueGivesMastershipBackAfterTheHoldTime) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt(true));
  ASSERT_NO_FATAL_FAILURE(FailAndReturn(master_name(), standby_name()));
  // Return: the role master claims after hold_time and is master again.
  ExpectSoleMaster(master_name(), kFailoverDeadline + milliseconds(kHoldTimeS * 1000));
  EXPECT_OK(bed().WaitForProbeState(standby_name(), SmStateValue::kStandby, kFailoverDeadline));
  ExpectEveryCaFollows(master_name());

  // Fail again: the standby takes over again, and mastership comes back again.
  ASSERT_NO_FATAL_FAILURE(FailAndReturn(master_name(), standby_name()));
  ExpectSoleMaster(master_name(), kFailoverDeadline + milliseconds(kHoldTimeS * 1000));
  ExpectEveryCaFollows(master_name());
}

TEST_F(FailoverPreemptTest, PreemptFalseKeepsWhoeverIsMaster) {
  ASSERT_NO_FATAL_FAILURE(StartWithPreempt(false));
  ASSERT_NO_FATAL_FAILURE(FailAndReturn(master_name(), standby_name()));
  ExpectStaysMaster(standby_name());
  ExpectEveryCaFollows(standby_name());

  // Fail again, on the node that is master now: mastership moves back to
  // the role master and stays there.
  ASSERT_NO_FATAL_FAILURE(FailAndReturn(standby_name(), master_name()));
  ExpectStaysMaster(master_name());
  ExpectEveryCaFollows(master_name());
}

}  // namespace
}  // namespace smsupd::testbed
