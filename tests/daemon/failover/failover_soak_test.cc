// The soak (label "integration;slow"): minutes of a master whose port drops
// 40% of the MADs that reach it; the standby must never take over.
#include <gtest/gtest.h>

#include "tests/daemon/failover/busy_master_test_base.h"

namespace smsupd::testbed {
namespace {

TEST_F(BusyMasterTest, MasterDropping40PercentOfItsMadsIsNotTakenOverIn3Minutes) {
  RunBusyMaster(40, std::chrono::minutes(3));
}

}  // namespace
}  // namespace smsupd::testbed
