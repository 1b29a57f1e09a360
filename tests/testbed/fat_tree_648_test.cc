// OpenSM on the largest generated fabric (36 x 18 x 18: 648 HCAs, 54
// switches). Labelled slow. The bring-up time is printed and recorded as a
// test property, never asserted (bench/fabric_up.sh measures it).
#include <gtest/gtest.h>

#include <iostream>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kBringUpDeadline(300000);

class FatTree648Test : public FabricTest {};

TEST_F(FatTree648Test, EveryHcaSeesTheMaster) {
  Result<Topology> topo = MakeFatTree(36, 18, 18);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  ASSERT_EQ(topo->Cas().size(), 648u);
  ASSERT_TRUE(StartFabric(*topo));
  // Before any SM, the walk already reaches every node.
  Result<std::vector<WalkedPort>> walk = probe().Discover();
  ASSERT_TRUE(walk.ok()) << walk.error().message;
  EXPECT_EQ(walk->size(), fabric().topology().nodes().size());

  const std::string master_node = fabric().topology().management_nodes()[0];
  const auto start = Clock::now();
  ASSERT_TRUE(StartOpenSm(fabric(), OpenSmOn(master_node, 15)).ok());
  Result<uint16_t> master_lid = WaitForCaLid(probe(), fabric().topology(), master_node, kBringUpDeadline);
  ASSERT_TRUE(master_lid.ok()) << master_lid.error().message;
  Status all = WaitForEveryCaSmLid(probe(), fabric().topology(), *master_lid, kBringUpDeadline);
  ASSERT_TRUE(all.ok()) << all.message();
  const auto elapsed = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  std::cout << "648-HCA fabric: every HCA sees the master SM LID " << *master_lid << " after " << elapsed.count()
            << " ms\n";
  RecordProperty("bring_up_ms", static_cast<int>(elapsed.count()));
  Result<SmInfoView> sm = probe().SmInfo(*master_lid);
  ASSERT_TRUE(sm.ok()) << sm.error().message;
  EXPECT_TRUE(sm->is_master());
}

}  // namespace
}  // namespace smsupd::testbed
