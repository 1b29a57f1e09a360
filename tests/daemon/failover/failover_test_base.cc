#include "tests/daemon/failover/failover_test_base.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {

void FailoverTest::SetUp() {
  SmctlResult help = RunSmctl({"failover", "--help"}, std::chrono::milliseconds(10000), ::testing::TempDir());
  ASSERT_EQ(help.exit_code, 0) << "`smctl failover --help` failed: " << help.Describe();
}

void FailoverTest::StartPair(FailoverBedOptions options, std::optional<Topology> topology) {
  if (!topology) {
    Result<Topology> small = MakeFatTree(4, 4, 2);
    ASSERT_TRUE(small.ok()) << small.error().message;
    topology = std::move(*small);
  }
  ASSERT_TRUE(StartFabric(*topology));
  options.setup_deadline = kSetupDeadline;
  bed_ = std::make_unique<FailoverBed>(fabric(), std::move(options));
  Status started = bed_->Start();
  ASSERT_TRUE(started.ok()) << "setup: " << started.message();
}

void FailoverTest::TearDown() {
  if (bed_) {
    if (bed_->monitor()) {
      ExpectNoLongDualMaster();
      MonitorReport report = bed_->monitor()->Stop();
      if (HasFailure()) std::cerr << "master monitor: " << report.Describe() << "\n";
    }
    if (HasFailure()) std::cerr << bed_->Diagnostics();
    bed_->StopAll();
    bed_.reset();
  }
  FabricTest::TearDown();
}

void FailoverTest::ExpectSoleMaster(const std::string& node, std::chrono::milliseconds deadline) {
  Status s = bed_->WaitForSoleMaster(node, deadline);
  EXPECT_TRUE(s.ok()) << s.message();
}

void FailoverTest::ExpectEveryCaFollows(const std::string& node, std::chrono::milliseconds deadline) {
  Status s = WaitForEveryCaSmLid(bed_->probe(), fabric().topology(), bed_->LidOf(node), deadline);
  EXPECT_TRUE(s.ok()) << s.message();
}

void FailoverTest::ExpectNoLongDualMaster() {
  MonitorReport report = bed_->monitor()->Snapshot();
  EXPECT_LT(report.longest_dual_master.count(), kMaxDualMaster.count())
      << "two MASTERs for longer than OpenSM's own handover: " << report.Describe();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace smsupd::testbed
