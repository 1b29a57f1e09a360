// The fake's model is what other engineers' unit tests rely on: keep it
// honest against docs/opensm-behaviour.md ("SMInfo Get: ActCount and SM_Key", "SMInfo Set: HANDOVER
// and the GUID-0 trap").
#include "tests/daemon/fabric/fake_fabric.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

class FakeFabricTest : public ::testing::Test {
 protected:
  FakeFabricTest() {
    fabric_.AddSm(1, SmInfo{0x10, 0, 0, 15, SmState::kMaster});
    fabric_.AddSm(2, SmInfo{0x20, 0, 0, 5, SmState::kStandby});
  }
  FakeFabric fabric_;
};

TEST_F(FakeFabricTest, PollsRaiseActCount) {
  uint32_t first = fabric_.GetSmInfo(1)->act_count;
  EXPECT_EQ(fabric_.GetSmInfo(1)->act_count, first + 1);
}

TEST_F(FakeFabricTest, DeadSmProcessStillAnswersPortInfo) {
  fabric_.KillSm(1);
  EXPECT_FALSE(fabric_.GetSmInfo(1).ok());
  EXPECT_TRUE(fabric_.GetPortInfo(1, 0).ok());
  fabric_.RemoveNode(1);
  EXPECT_FALSE(fabric_.GetPortInfo(1, 0).ok());
}

TEST_F(FakeFabricTest, HandoverMakesAStandbyMaster) {
  ASSERT_TRUE(fabric_.SendHandover(2, SmInfo{0x10, 0, 0, 15, SmState::kMaster}).ok());
  EXPECT_EQ(fabric_.GetSmInfo(2)->state, SmState::kMaster);
  ASSERT_EQ(fabric_.handovers().size(), 1u);
  EXPECT_EQ(fabric_.handovers()[0].target_lid, 2);
}

TEST_F(FakeFabricTest, HandoverWithGuidZeroIsRefusedAndNotSent) {
  EXPECT_FALSE(fabric_.SendHandover(2, SmInfo{0, 0, 0, 15, SmState::kMaster}).ok());
  EXPECT_TRUE(fabric_.handovers().empty());
  EXPECT_EQ(fabric_.GetSmInfo(2)->state, SmState::kStandby);
}

TEST_F(FakeFabricTest, LidZeroIsTheLocalPort) {
  LocalPort local;
  local.lid = 2;
  local.port_state = kPortStateActive;
  fabric_.SetLocalPort(local);
  EXPECT_EQ(fabric_.GetSmInfo(0)->guid, 0x20u);
  EXPECT_FALSE(fabric_.SendHandover(0, SmInfo{0x10, 0, 0, 15, SmState::kMaster}).ok());
}

TEST_F(FakeFabricTest, RecordsListLiveSmsWhileAMasterExists) {
  auto records = fabric_.GetSmInfoRecords();
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->size(), 2u);
  fabric_.KillSm(1);
  EXPECT_FALSE(fabric_.GetSmInfoRecords().ok());
}

TEST_F(FakeFabricTest, DroppedCallsFailThenRecover) {
  fabric_.DropNext(2);
  EXPECT_FALSE(fabric_.GetSmInfo(1).ok());
  EXPECT_FALSE(fabric_.GetPortInfo(1, 0).ok());
  EXPECT_TRUE(fabric_.GetSmInfo(1).ok());
}

TEST_F(FakeFabricTest, DiscoverPortsReturnsTheScriptedList) {
  EXPECT_TRUE(fabric_.DiscoverPorts()->empty());
  DiscoveredPort port;
  port.port_guid = 0x11;
  port.lid = 1;
  fabric_.SetDiscoveredPorts({port});
  ASSERT_EQ(fabric_.DiscoverPorts()->size(), 1u);
  fabric_.FailDiscovery("walk failed");
  EXPECT_FALSE(fabric_.DiscoverPorts().ok());
  fabric_.SetDiscoveredPorts({port});
  fabric_.DropNext(1);
  EXPECT_FALSE(fabric_.DiscoverPorts().ok());
  EXPECT_TRUE(fabric_.DiscoverPorts().ok());
}

}  // namespace
}  // namespace smsupd
