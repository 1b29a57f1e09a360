// The soak (label "integration;slow"): minutes of a master sweeping the
// 648-HCA fabric again and again; the standby must never take over.
#include <gtest/gtest.h>

#include "tests/daemon/failover/busy_master_test_base.h"

namespace smsupd::testbed {
namespace {

TEST_F(BusyMasterTest, MasterSweepingTheLargeFabricIsNotTakenOverIn3Minutes) {
  RunBusyMaster(std::chrono::minutes(3));
}

}  // namespace
}  // namespace smsupd::testbed
