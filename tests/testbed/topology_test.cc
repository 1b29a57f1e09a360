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

TEST(FatTreeTest, RefusesSizesThatDoNotFitTheSwitchesOrIbsim) {
  EXPECT_FALSE(MakeFatTree(4, 30, 7).ok());   // 37 leaf ports
  EXPECT_FALSE(MakeFatTree(37, 2, 2).ok());   // 37 spine ports
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
