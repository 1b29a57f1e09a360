// A busy master is never taken over: ibsim drops a share of the MADs that
// reach the master's port (its SMInfo answers come late or not at all, as
// from a master busy sweeping a large fabric, while it still serves the
// subnet). For the whole run the standby must never be MASTER, and the
// master must still be the only MASTER once the drops stop.
#pragma once

#include <chrono>

#include "tests/daemon/failover/failover_test_base.h"

namespace smsupd::testbed {

class BusyMasterTest : public FailoverTest {
 protected:
  void RunBusyMaster(int drop_percent, std::chrono::milliseconds duration);
};

}  // namespace smsupd::testbed
