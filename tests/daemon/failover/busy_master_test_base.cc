#include "tests/daemon/failover/busy_master_test_base.h"

#include <iostream>

namespace smsupd::testbed {

void BusyMasterTest::RunBusyMaster(int drop_percent, std::chrono::milliseconds duration) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  ASSERT_OK(bed().DropMads(master_name(), drop_percent));
  // The standby's own link is clean: its SMInfo reads are reliable.
  const uint16_t standby_lid = bed().LidOf(standby_name());
  int reads = 0;
  EXPECT_OK(FailoverBed::Hold(
      "the standby staying a standby while the master drops " + std::to_string(drop_percent) + "% of MADs",
      [&](std::string& why) {
        Result<SmInfoView> sm = bed().probe().SmInfo(standby_lid);
        if (!sm) return true;  // no answer is no takeover; the monitor watches too
        ++reads;
        why = std::string("standby SM is ") + SmStateText(sm->state);
        return !sm->is_master();
      },
      duration, std::chrono::milliseconds(200)));
  std::cerr << "busy master: " << reads << " SMInfo reads of the standby over " << duration.count() << " ms\n";
  ASSERT_OK(bed().DropMads(master_name(), 0));
  ExpectSoleMaster(master_name());
  MonitorReport report = bed().monitor()->Snapshot();
  EXPECT_EQ(report.master_samples.count(standby_name()), 0u) << "the standby was MASTER: " << report.Describe();
  EXPECT_TRUE(bed().EventsOfKind(standby_name(), "master-lost").empty()) << bed().Diagnostics();
}

}  // namespace smsupd::testbed
