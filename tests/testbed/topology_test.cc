#include <gtest/gtest.h>

#include <set>

#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

TEST(FatTreeTest, LargestSupportedSizeHas648HcasAnd54Switches) {
  Result<Topology> topo = MakeFatTree(36, 18, 18);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  EXPECT_EQ(topo->Cas().size(), 648u);
  EXPECT_EQ(topo->Switches().size(), 54u);
  EXPECT_EQ(topo->links().size(), 648u + 36u * 18u);
  EXPECT_TRUE(topo->Validate().ok());
}

TEST(FatTreeTest, NamesAndGuidsArePredictable) {
  Result<Topology> topo = MakeFatTree(4, 4, 2);
  ASSERT_TRUE(topo.ok());
  const TopoNode* ca = topo->Find("H3_2");
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(ca->node_guid, CaGuid(3, 2));
  EXPECT_EQ(ca->PortGuid(1), CaGuid(3, 2) + 1);  // ibsim: port GUID = node GUID + port
  const TopoNode* spine = topo->Find("S2");
  ASSERT_NE(spine, nullptr);
  EXPECT_EQ(spine->PortGuid(7), spine->node_guid);  // switch ports share the node GUID
  EXPECT_EQ(topo->management_nodes(), (std::vector<std::string>{"H1_1", "H1_2"}));
  EXPECT_EQ(topo->FarCa().name, "H4_4");
}

TEST(FatTreeTest, EveryLeafReachesEverySpineOnce) {
  Result<Topology> topo = MakeFatTree(3, 5, 4);
  ASSERT_TRUE(topo.ok());
  std::set<std::pair<std::string, std::string>> uplinks;
  for (const TopoLink& link : topo->links()) {
    if (link.b[0] == 'S') uplinks.insert({link.a, link.b});
  }
  EXPECT_EQ(uplinks.size(), 12u);
}

TEST(FatTreeTest, TheLargeTwoLevelTreeHas2592HcasOn72PortSwitches) {
  Result<Topology> topo = MakeFatTree(72, 36, 36);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  EXPECT_EQ(topo->Cas().size(), 2592u);
  EXPECT_EQ(topo->Switches().size(), 108u);
  EXPECT_EQ(topo->links().size(), 2592u + 72u * 36u);
  EXPECT_EQ(topo->Find("S36")->ports, kLargeSwitchPorts);
  EXPECT_EQ(topo->FarCa().name, "H72_36");
  // ibsim's built-in 2,048 nodes are too few: the test bed raises them.
  const IbsimLimits limits = topo->Limits();
  EXPECT_GE(limits.nodes, 2592 + 108);
  EXPECT_GE(limits.switches, 108);
  EXPECT_GE(limits.ports, 2592 + 108 * 73);
  // A tree that fits 36-port switches keeps them.
  EXPECT_EQ(MakeFatTree(36, 18, 18)->Find("S1")->ports, kSwitchPorts);
}

TEST(FatTreeTest, TheThreeLevelTreeHas10000HcasAndEveryPodReachesEveryCore) {
  Result<Topology> topo = MakeThreeLevelFatTree(10, 25, 40, 4, 8);
  ASSERT_TRUE(topo.ok()) << topo.error().message;
  EXPECT_EQ(topo->Cas().size(), 10000u);
  EXPECT_EQ(topo->Switches().size(), 250u + 40u + 8u);
  // HCA links, leaf-spine links, spine-core links.
  EXPECT_EQ(topo->links().size(), 10000u + 250u * 4u + 40u * 8u);
  std::set<std::pair<std::string, std::string>> spine_core;
  for (const TopoLink& link : topo->links())
    if (link.a[0] == 'S' && link.b[0] == 'C') spine_core.insert({link.a, link.b});
  EXPECT_EQ(spine_core.size(), 40u * 8u);
  EXPECT_EQ(topo->management_nodes(), (std::vector<std::string>{"H1_1", "H1_2"}));
  EXPECT_EQ(topo->FarCa().name, "H250_40");
  EXPECT_GE(topo->Limits().nodes, 10298);
  // The spec strings the benches take.
  EXPECT_EQ(MakeFatTreeFromSpec("10x25x40x4x8")->Cas().size(), 10000u);
  EXPECT_EQ(MakeFatTreeFromSpec("72x36x36")->Cas().size(), 2592u);
  EXPECT_FALSE(MakeFatTreeFromSpec("72x36").ok());
  EXPECT_FALSE(MakeFatTreeFromSpec("4x4x2x").ok());
  EXPECT_FALSE(MakeThreeLevelFatTree(40, 25, 20, 2, 8).ok());  // 80-port core switches
}

TEST(FatTreeTest, RefusesSizesThatDoNotFitTheSwitchesOrIbsim) {
  EXPECT_FALSE(MakeFatTree(4, 60, 13).ok());  // 73 leaf ports
  EXPECT_FALSE(MakeFatTree(73, 2, 2).ok());   // 73 spine ports
  EXPECT_FALSE(MakeFatTree(2, 4, 0).ok());    // leaves with no spine
  EXPECT_FALSE(MakeFatTree(1, 1, 0).ok());    // no room for two SMs
  EXPECT_TRUE(MakeFatTree(1, 2, 0).ok());
}

TEST(TopologyTest, ValidateCatchesDuplicatesAndBadPorts) {
  Topology topo = MakeTwoSwitchTopology();
  EXPECT_TRUE(topo.Validate().ok());
  Topology twice = topo;
  twice.AddLink({"L1", 3, "H2_1", 1});
  EXPECT_FALSE(twice.Validate().ok());
  Topology bad_port = topo;
  bad_port.AddLink({"L1", 9, "L2", 7});
  EXPECT_FALSE(bad_port.Validate().ok());
  Topology dup = topo;
  dup.AddNode({"H1_1", NodeKind::kCa, 0x42, 1});
  EXPECT_FALSE(dup.Validate().ok());
}

TEST(TopologyTest, NetFileGivesEachNodeItsGuidAndBothLinkEnds) {
  const std::string text = MakeTwoSwitchTopology().NetFileText();
  EXPECT_NE(text.find("switchguid=0x0002c90200000010\nSwitch\t8 \"L1\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("caguid=" + FormatGuid(CaGuid(2, 1)) + "\nHca\t1 \"H2_1\"\n[1]\t\"L2\"[1]\n\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("[3]\t\"L2\"[3]"), std::string::npos);
  EXPECT_NE(text.find("[3]\t\"L1\"[3]"), std::string::npos);
}

}  // namespace
}  // namespace smsupd::testbed
