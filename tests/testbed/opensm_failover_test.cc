// The proof the test bed works: two real OpenSMs (priorities 15 and 5) on the
// two management nodes of a generated fat tree elect, serve the fabric and
// fail over, all checked with the test bed's own MAD queries.
#include <gtest/gtest.h>
#include <signal.h>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

// Generous: CI machines are slow and shared; a healthy run takes seconds.
constexpr milliseconds kSweepDeadline(60000);

class OpenSmFailoverTest : public FabricTest {
 protected:
  // Starts the master (15) and, once it is MASTER, the standby (5): two
  // OpenSMs started together can both become master
  // (docs/opensm-behaviour.md "Start-up races: dual master and no master").
  void StartMasterAndStandby() {
    Result<Topology> topo = MakeFatTree(4, 4, 2);
    ASSERT_TRUE(topo.ok()) << topo.error().message;
    ASSERT_TRUE(StartFabric(*topo));
    const auto& names = fabric().topology().management_nodes();
    Result<NodeProcess*> master = StartOpenSm(fabric(), OpenSmOn(names[0], 15, FastFailoverOptions()));
    ASSERT_TRUE(master.ok()) << master.error().message;
    master_ = *master;
    Result<uint16_t> master_lid = WaitForCaLid(probe(), fabric().topology(), names[0], kSweepDeadline);
    ASSERT_TRUE(master_lid.ok()) << master_lid.error().message;
    master_lid_ = *master_lid;
    ASSERT_TRUE(WaitForSmState(probe(), master_lid_, SmStateValue::kMaster, kSweepDeadline).ok());
    Result<NodeProcess*> standby = StartOpenSm(fabric(), OpenSmOn(names[1], 5, FastFailoverOptions()));
    ASSERT_TRUE(standby.ok()) << standby.error().message;
    standby_ = *standby;
    Result<uint16_t> standby_lid = WaitForCaLid(probe(), fabric().topology(), names[1], kSweepDeadline);
    ASSERT_TRUE(standby_lid.ok()) << standby_lid.error().message;
    standby_lid_ = *standby_lid;
  }

  Guid PortGuidOf(const std::string& node) { return fabric().topology().Find(node)->PortGuid(1); }

  NodeProcess* master_ = nullptr;
  NodeProcess* standby_ = nullptr;
  uint16_t master_lid_ = 0;
  uint16_t standby_lid_ = 0;
};

TEST_F(OpenSmFailoverTest, HigherPriorityIsMasterAndEveryHcaPointsAtIt) {
  ASSERT_NO_FATAL_FAILURE(StartMasterAndStandby());
  Result<SmInfoView> master = WaitForSmState(probe(), master_lid_, SmStateValue::kMaster, kSweepDeadline);
  ASSERT_TRUE(master.ok()) << master.error().message;
  EXPECT_EQ(master->priority, 15);
  EXPECT_EQ(master->guid, PortGuidOf(master_->node));
  Result<SmInfoView> standby = WaitForSmState(probe(), standby_lid_, SmStateValue::kStandby, kSweepDeadline);
  ASSERT_TRUE(standby.ok()) << standby.error().message;
  EXPECT_EQ(standby->priority, 5);
  EXPECT_EQ(standby->guid, PortGuidOf(standby_->node));
  Status all = WaitForEveryCaSmLid(probe(), fabric().topology(), master_lid_, kSweepDeadline);
  EXPECT_TRUE(all.ok()) << all.message();
}

TEST_F(OpenSmFailoverTest, StandbyTakesOverWhenTheMasterIsKilled) {
  ASSERT_NO_FATAL_FAILURE(StartMasterAndStandby());
  ASSERT_TRUE(WaitForSmState(probe(), standby_lid_, SmStateValue::kStandby, kSweepDeadline).ok());
  ASSERT_TRUE(WaitForEveryCaSmLid(probe(), fabric().topology(), master_lid_, kSweepDeadline).ok());

  ASSERT_TRUE(master_->process->Signal(SIGKILL).ok());
  ASSERT_TRUE(master_->process->Wait(milliseconds(5000)).ok());

  Result<SmInfoView> new_master = WaitForSmState(probe(), standby_lid_, SmStateValue::kMaster, kSweepDeadline);
  ASSERT_TRUE(new_master.ok()) << new_master.error().message;
  EXPECT_EQ(new_master->guid, PortGuidOf(standby_->node));
  Status all = WaitForEveryCaSmLid(probe(), fabric().topology(), standby_lid_, kSweepDeadline);
  EXPECT_TRUE(all.ok()) << all.message();
}

TEST_F(OpenSmFailoverTest, SmPortIsFullMemberOfTheDefaultPartition) {
  ASSERT_NO_FATAL_FAILURE(StartMasterAndStandby());
  ASSERT_TRUE(WaitForEveryCaSmLid(probe(), fabric().topology(), master_lid_, kSweepDeadline).ok());
  Result<PKeyTable> master_keys = probe().PKeys(master_lid_, 1);
  ASSERT_TRUE(master_keys.ok()) << master_keys.error().message;
  ASSERT_TRUE(master_keys->count(0x7fff));
  EXPECT_TRUE(master_keys->at(0x7fff));
  Result<std::map<Guid, PKeyTable>> all = probe().PKeysOfEveryPort();
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->size(), fabric().topology().nodes().size());
  for (const auto& [guid, table] : *all) EXPECT_TRUE(table.count(0x7fff)) << FormatGuid(guid);
}

}  // namespace
}  // namespace smsupd::testbed
