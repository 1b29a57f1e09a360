// The short version of the busy-master run, for the normal suite (30 s).
#include <gtest/gtest.h>

#include "tests/daemon/failover/busy_master_test_base.h"

namespace smsupd::testbed {
namespace {

TEST_F(BusyMasterTest, MasterSweepingTheLargeFabricIsNotTakenOverIn30Seconds) {
  RunBusyMaster(std::chrono::seconds(30));
}

}  // namespace
}  // namespace smsupd::testbed
