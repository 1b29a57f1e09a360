// The two management nodes are configured with different SM_Keys: their
// OpenSMs ignore each other (ERR 2F18) and both are MASTER. smsupd must say
// so (SM_KEY_MISMATCH) within seconds and must not flap: no priority
// ping-pong, no OpenSM restarts, no mastership moving back and forth.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>

#include "common/atomic_file.h"
#include "tests/daemon/failover/master_monitor.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// How long the split brain is watched for flapping once it is reported.
constexpr milliseconds kWatch(12000);  // two handover timeouts (5 s): a fight would show

class SmKeyTest : public FaultTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartSmallFabric()); }
  void TearDown() override {
    if (monitor_) monitor_->Stop();
    FaultTest::TearDown();
  }

  ManagementNode* KeyedNode(const std::string& name, const std::string& role, const std::string& key) {
    const std::string path = fabric().dir() + "/sm_key-" + name;
    EXPECT_TRUE(WriteFileAtomically(path, key + "\n", 0600).ok());
    SmsupdConfig config = SmNodesConfig(fabric().topology(), name, role, fabric().topology().management_nodes());
    config.sm_key_file = path;
    return AddNode(std::move(config));
  }

  // Events of `node` (kinds) since `from` events.
  static std::vector<std::string> KindsAfter(const ManagementNode& node, std::size_t from) {
    std::vector<std::string> kinds;
    Result<std::vector<json>> events = node.Events();
    if (!events) return {"(" + events.error().message + ")"};
    for (std::size_t i = from; i < events->size(); ++i) kinds.push_back((*events)[i].value("kind", std::string()));
    return kinds;
  }

  static bool HasProblem(const ManagementNode& node, const std::string& id) {
    for (const std::string& problem : ProblemIds(node))
      if (problem == id) return true;
    return false;
  }

  std::unique_ptr<MasterMonitor> monitor_;
};

TEST_F(SmKeyTest, MismatchIsReportedWithinSecondsAndNothingFlaps) {
  const auto& names = fabric().topology().management_nodes();
  ManagementNode* master = KeyedNode(names[0], "master", "0x00000000000a11ce");
  ManagementNode* standby = KeyedNode(names[1], "standby", "0x0000000000000b0b");
  ASSERT_TRUE(master != nullptr && standby != nullptr);
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*master, "MASTER"));
  Result<uint16_t> master_lid = WaitForCaLid(probe(), fabric().topology(), names[0], kStartDeadline);
  Result<uint16_t> standby_lid = WaitForCaLid(probe(), fabric().topology(), names[1], kStartDeadline);
  ASSERT_TRUE(master_lid.ok() && standby_lid.ok());

  const auto started = steady_clock::now();
  ASSERT_TRUE(standby->Start().ok());
  Status reported = WaitFor(
      "SM_KEY_MISMATCH on either node",
      [&](std::string& why) {
        why = "master: " + json(ProblemIds(*master)).dump() + ", standby: " + json(ProblemIds(*standby)).dump();
        return HasProblem(*master, "SM_KEY_MISMATCH") || HasProblem(*standby, "SM_KEY_MISMATCH");
      },
      kFabricDeadline, milliseconds(100));
  ASSERT_TRUE(reported.ok()) << reported.message();
  const auto reported_ms = std::chrono::duration_cast<milliseconds>(steady_clock::now() - started).count();
  std::cout << "SM_KEY_MISMATCH " << reported_ms << " ms after the second smsupd started; master "
            << json(ProblemIds(*master)).dump() << ", standby " << json(ProblemIds(*standby)).dump() << "\n";

  // From now on: nothing moves.
  monitor_ = std::make_unique<MasterMonitor>(
      fabric(), std::vector<WatchedSm>{{names[0], *master_lid}, {names[1], *standby_lid}});
  monitor_->Start();
  const std::size_t master_events = master->Events().ok() ? master->Events()->size() : 0;
  const std::size_t standby_events = standby->Events().ok() ? standby->Events()->size() : 0;
  const std::optional<pid_t> master_opensm = master->OpenSmPid(), standby_opensm = standby->OpenSmPid();
  Status held = WaitFor(
      "the split brain to stay reported",
      [&](std::string& why) {
        why = "";
        if (!HasProblem(*master, "SM_KEY_MISMATCH") && !HasProblem(*standby, "SM_KEY_MISMATCH"))
          why = "SM_KEY_MISMATCH cleared";
        return !why.empty();
      },
      kWatch, milliseconds(500));
  EXPECT_FALSE(held.ok()) << "SM_KEY_MISMATCH was cleared while the keys still differ";
  MonitorReport report = monitor_->Stop();
  std::cout << "over " << kWatch.count() << " ms: " << report.Describe() << "\n";
  std::vector<std::string> master_kinds = KindsAfter(*master, master_events);
  std::vector<std::string> standby_kinds = KindsAfter(*standby, standby_events);
  std::cout << "master events: " << json(master_kinds).dump() << "\nstandby events: " << json(standby_kinds).dump()
            << "\n";
  EXPECT_EQ(master->OpenSmPid(), master_opensm) << "the master's OpenSM was restarted";
  EXPECT_EQ(standby->OpenSmPid(), standby_opensm) << "the standby's OpenSM was restarted";
  // Both stay MASTER. A sample may miss one (a read the loaded simulator
  // dropped counts as "not MASTER"); a move would cost many samples.
  for (const std::string& name : {names[0], names[1]}) {
    EXPECT_GE(report.master_samples[name] * 100, report.samples * 95)
        << name << " was not MASTER in every sample: " << report.Describe();
  }
  for (const auto* kinds : {&master_kinds, &standby_kinds})
    for (const std::string& kind : *kinds)
      EXPECT_TRUE(kind != "priority-set" && kind != "handover-sent" && kind != "master-changed" &&
                  kind != "opensm-restarted")
          << "flapping: " << kind;
}

}  // namespace
}  // namespace smsupd::testbed::faults
