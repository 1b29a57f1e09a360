// The OpenSM of the master node cannot run: its binary is gone, or it
// exits at once. The standby ends up master (read off the fabric), stays
// master with no flapping, and the failing node stops fighting: it retries
// with back-off without ever taking mastership, and says why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <memory>

#include "common/atomic_file.h"
#include "tests/daemon/failover/failover_bed.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kHold(10000);

class OpenSmFaultTest : public FabricTest {
 protected:
  void SetUp() override {
    Result<Topology> topology = MakeFatTree(2, 4, 2);
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    ASSERT_TRUE(StartFabric(*topology));
    binary_ = fabric().dir() + "/opensm-of-the-master";
    ASSERT_EQ(::symlink("/usr/sbin/opensm", binary_.c_str()), 0);
  }
  void TearDown() override {
    if (bed_) {
      if (HasFailure()) std::cerr << bed_->Diagnostics();
      bed_->StopAll();
      bed_.reset();
    }
    FabricTest::TearDown();
  }

  // Both nodes steady; the role master runs OpenSM through binary_.
  void StartPair() {
    FailoverBedOptions options;
    options.preempt = true;  // the strongest pull back to the role master
    options.hold_time_s = 2;
    options.configure = [this](int, SmsupdConfig& config) {
      if (config.role == "master") config.opensm_binary = binary_;
    };
    bed_ = std::make_unique<FailoverBed>(fabric(), options);
    Status started = bed_->Start();
    ASSERT_TRUE(started.ok()) << started.message();
    bed_->monitor()->Reset();
  }

  // Kills the master's OpenSM; the standby must take over and keep the
  // mastership for kHold, the master node never MASTER again.
  void KillMasterOpenSmAndExpectTheStandbyToStay() {
    const auto killed_at = std::chrono::steady_clock::now();
    ASSERT_TRUE(bed_->master().KillOpenSm().ok());
    Status took_over = bed_->WaitForSoleMaster(bed_->standby_name(), kFabricDeadline);
    ASSERT_TRUE(took_over.ok()) << took_over.message();
    std::cout << "standby sole master "
              << std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - killed_at).count()
              << " ms after kill -9 of the master's OpenSM\n";
    Status held = FailoverBed::Hold(
        "sole master " + bed_->standby_name(),
        [&](std::string& why) { return (why = bed_->DescribeSoleMaster(bed_->standby_name())).empty(); }, kHold,
        milliseconds(200));
    EXPECT_TRUE(held.ok()) << held.message();
    MonitorReport report = bed_->monitor()->Snapshot();
    EXPECT_EQ(report.dual_master_samples, 0) << report.Describe();
    EXPECT_LT(report.longest_no_master.count(), 3000) << report.Describe();
    EXPECT_TRUE(bed_->master().Running()) << "smsupd on the failing node exited";
  }

  // The failing node's status names the problem and the reason.
  void ExpectTheFailingNodeSaysWhy(const std::string& why) {
    Result<json> status = bed_->master().WaitForStatus(
        [&](const json& s) {
          for (const json& problem : s["health"].value("problems", json::array()))
            if (problem.value("text", std::string()).find(why) != std::string::npos) return true;
          return false;
        },
        "a health problem on the failing node that says '" + why + "'", kFabricDeadline);
    ASSERT_TRUE(status.ok()) << status.error().message;
    std::cout << "failing node's status: " << (*status)["health"].dump() << "\n";
    EXPECT_NE((*status)["local_sm"].value("state", std::string()), "MASTER");
  }

  // Attempts to start OpenSM within kHold after the failure: back-off (1 s
  // doubling) allows a handful, fighting would be many.
  int StartAttempts() {
    int attempts = 0;
    for (const char* kind : {"opensm-start-failed", "opensm-restarted", "opensm-started"})
      attempts += static_cast<int>(bed_->EventsOfKind(bed_->master_name(), kind).size());
    return attempts;
  }

  std::string binary_;
  std::unique_ptr<FailoverBed> bed_;
};

TEST_F(OpenSmFaultTest, MasterBinaryMissing) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  ASSERT_EQ(::unlink(binary_.c_str()), 0);
  ASSERT_NO_FATAL_FAILURE(KillMasterOpenSmAndExpectTheStandbyToStay());
  ExpectTheFailingNodeSaysWhy(binary_ + ": No such file or directory");
  int attempts = StartAttempts();
  std::cout << "start attempts on the failing node: " << attempts << "\n";
  EXPECT_LE(attempts, 6);
}

TEST_F(OpenSmFaultTest, MasterOpenSmExitsAtOnce) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  ASSERT_EQ(::unlink(binary_.c_str()), 0);
  {
    std::ofstream script(binary_);
    script << "#!/bin/sh\necho 'opensm: cannot bind to the port' >&2\nexit 1\n";
  }
  ASSERT_EQ(::chmod(binary_.c_str(), 0755), 0);
  ASSERT_NO_FATAL_FAILURE(KillMasterOpenSmAndExpectTheStandbyToStay());
  ExpectTheFailingNodeSaysWhy("exit status 1 after");
  ExpectTheFailingNodeSaysWhy("opensm: cannot bind to the port");
  int attempts = StartAttempts();
  std::cout << "start attempts on the failing node: " << attempts << "\n";
  EXPECT_LE(attempts, 6);
}

// The master node's smsupd is restarted (it hands over first) and its
// OpenSM binary is gone by then: the start fails with the reason and smsupd
// exits 1, which systemd sees; the standby keeps the mastership.
TEST_F(OpenSmFaultTest, MasterBinaryMissingAtStart) {
  ASSERT_NO_FATAL_FAILURE(StartPair());
  ManagementNode& master = bed_->master();
  ASSERT_TRUE(master.Terminate().ok());
  ASSERT_TRUE(master.Wait(milliseconds(30000)).ok());
  Status handed = bed_->WaitForSoleMaster(bed_->standby_name(), kFabricDeadline);
  ASSERT_TRUE(handed.ok()) << handed.message();
  ASSERT_EQ(::unlink(binary_.c_str()), 0);
  const std::size_t log_from = OutputSize(master);

  ASSERT_TRUE(master.Start().ok());
  Result<ExitStatus> exited = master.Wait(kFabricDeadline);
  ASSERT_TRUE(exited.ok()) << "smsupd kept running without an OpenSM: " << exited.error().message;
  EXPECT_FALSE(exited->signaled);
  EXPECT_EQ(exited->code, 1);
  std::vector<std::string> errors = ErrorLines(master, log_from);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.back().find("STARTUP_FAILED"), std::string::npos) << errors.back();
  EXPECT_NE(errors.back().find(binary_ + ": No such file or directory"), std::string::npos) << errors.back();
  std::cout << "failing node: " << errors.back() << "\n";
  Status held = FailoverBed::Hold(
      "sole master " + bed_->standby_name(),
      [&](std::string& why) { return (why = bed_->DescribeSoleMaster(bed_->standby_name())).empty(); },
      milliseconds(3000), milliseconds(200));
  EXPECT_TRUE(held.ok()) << held.message();
}

}  // namespace
}  // namespace smsupd::testbed::faults
