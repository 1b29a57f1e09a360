// A busy master is never taken over: the master's OpenSM runs one forced
// heavy sweep of the 648-HCA fat tree (SMSUPD_BUSY_FAT_TREE: another size,
// e.g. 72x36x36) after another (SIGHUP every 2 s), so
// its SMInfo answers queue behind thousands of sweep MADs and come late,
// while it still serves the subnet. For the whole run the standby must never
// be MASTER, and the master must still be the only MASTER afterwards.
//
// Not ibsim's error rate: ibsim applies a port's error rate also to the MADs
// the master's OpenSM sends its own port, which never cross a link on real
// hardware; OpenSM then logs "SM port is down" and leaves MASTER
// (docs/known-issues.md).
#pragma once

#include <chrono>

#include "tests/daemon/failover/failover_test_base.h"

namespace smsupd::testbed {

class BusyMasterTest : public FailoverTest {
 protected:
  void RunBusyMaster(std::chrono::milliseconds duration);
};

}  // namespace smsupd::testbed
