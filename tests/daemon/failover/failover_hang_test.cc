// A MASTER that does not manage the fabric: the standby's OpenSM, handed
// the mastership by `smctl failover`, hangs in its first sweep (one
// SubnGet(NodeInfo) that never ends: SimulatedFabric::HangNextSweep, the
// test bed's MAD shim). Its smsupd sees no SUBNET UP within
// sm.failover.master_sweep_timeout_ms and treats it as failed, and the
// fabric has a working master again: one MASTER that every HCA follows.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr int kMasterSweepTimeoutMs = 5000;

class FailoverHangTest : public FailoverTest {};

TEST_F(FailoverHangTest, AMasterWhoseFirstSweepHangsIsReplaced) {
  FailoverBedOptions options;
  options.preempt = false;
  options.configure = [](int, SmsupdConfig& config) { config.master_sweep_timeout_ms = kMasterSweepTimeoutMs; };
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  ASSERT_OK(fabric().HangNextSweep(standby_name()));

  SmctlResult r = master().Smctl({"--json", "failover", "--wait", "--timeout", "60"}, milliseconds(90000));
  // The first sweep of the new master did hang: the shim took the request.
  EXPECT_FALSE(std::filesystem::exists(fabric().dir() + "/hang-sweep-" + standby_name()))
      << "the new master's sweep never sent a NodeInfo";
  std::printf("smctl failover --wait: %s\n", r.Describe().c_str());

  // The hung master is replaced: whichever node ends up MASTER, it is the
  // only one and every HCA follows it.
  std::string sole;
  Status settled = WaitFor(
      "one working MASTER",
      [&] {
        for (const std::string& node : {master_name(), standby_name()})
          if (bed().DescribeSoleMaster(node).empty()) {
            sole = node;
            return true;
          }
        return false;
      },
      kFailoverDeadline + milliseconds(kMasterSweepTimeoutMs), milliseconds(200));
  ASSERT_TRUE(settled.ok()) << settled.message() << "\n" << bed().Diagnostics();
  ExpectEveryCaFollows(sole);
  EXPECT_FALSE(bed().EventsOfKind(standby_name(), "master-not-sweeping").empty())
      << "the hung master was not acted on\n" << bed().Diagnostics();
  // Answered, one way or the other, within its timeout: a success only
  // once the new master's sweep (its restarted OpenSM's) reached the old
  // master's node, a failure when the old master's OpenSM had to start
  // again first (the policy's tests pin down which).
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.Describe();
}

}  // namespace
}  // namespace smsupd::testbed
