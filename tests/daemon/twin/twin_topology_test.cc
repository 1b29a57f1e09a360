// The live walk written for the simulator: net file, guid2lid, SIM_HOST.
#include <gtest/gtest.h>

#include "daemon/twin/twin_topology.h"

namespace smsupd::twin {
namespace {

TopologyNode Node(Guid guid, NodeType type, int ports, const std::string& description) {
  TopologyNode node;
  node.node_guid = guid;
  node.type = type;
  node.num_ports = ports;
  node.node_description = description;
  return node;
}

TopologyPort Port(Guid node, int num, uint16_t lid, Guid peer, int peer_port) {
  TopologyPort port;
  port.node_guid = node;
  port.port_num = num;
  port.lid = lid;
  port.peer_node = peer;
  port.peer_port = peer_port;
  port.info.link_width_active = 2;  // 4x
  port.info.link_speed_active = 4;  // QDR
  return port;
}

DiscoveredPort End(Guid port, Guid node, NodeType type, int num, uint16_t lid) {
  DiscoveredPort p;
  p.port_guid = port;
  p.node_guid = node;
  p.node_type = type;
  p.port_num = num;
  p.lid = lid;
  return p;
}

// One switch (0xa0), an HCA whose port GUID is node + 1 (0x10 -> 0x11) and
// one whose port GUID equals its node GUID (0x20), as some HCAs report.
FabricTopology SmallFabric() {
  FabricTopology t;
  t.nodes = {Node(0x10, NodeType::kCa, 1, "h1 \"quoted\""), Node(0x20, NodeType::kCa, 1, "h2"),
             Node(0xa0, NodeType::kSwitch, 8, "leaf01")};
  t.ports = {Port(0x10, 1, 2, 0xa0, 1), Port(0x20, 1, 3, 0xa0, 2), Port(0xa0, 0, 1, 0, 0),
             Port(0xa0, 1, 1, 0x10, 1), Port(0xa0, 2, 1, 0x20, 1)};
  t.end_ports = {End(0x11, 0x10, NodeType::kCa, 1, 2), End(0x20, 0x20, NodeType::kCa, 1, 3),
                 End(0xa0, 0xa0, NodeType::kSwitch, 0, 1)};
  return t;
}

TEST(TwinTopologyTest, WritesEveryNodeAndLinkWithPortGuidsKept) {
  auto twin = BuildTwinTopology(SmallFabric(), 0x11);
  ASSERT_TRUE(twin.ok()) << twin.error().message;
  // The second HCA's node GUID becomes port GUID - 1, so its port keeps 0x20.
  EXPECT_NE(twin->net_file.find("caguid=0x000000000000001f\nHca\t1 \"H-000000000000001f\" # \"h2\"\n"
                                "[1]\t\"S-00000000000000a0\"[2]\t# lid 0 4xQDR\n"),
            std::string::npos)
      << twin->net_file;
  EXPECT_NE(twin->net_file.find("switchguid=0x00000000000000a0\nSwitch\t8 \"S-00000000000000a0\" # \"leaf01\"\n"
                                "[1]\t\"H-0000000000000010\"[1]\t# lid 0 4xQDR\n"
                                "[2]\t\"H-000000000000001f\"[1]\t# lid 0 4xQDR\n"),
            std::string::npos)
      << twin->net_file;
  // A quote would end ibsim's description early.
  EXPECT_NE(twin->net_file.find("# \"h1 'quoted'\""), std::string::npos) << twin->net_file;
  EXPECT_EQ(twin->sim_host, "H-0000000000000010");
  EXPECT_EQ(twin->links, 2);
  EXPECT_EQ(twin->guid_mismatches, 0);
  EXPECT_NE(twin->guid2lid.find("0x0000000000000011 0x0002 0x0002\n\n"), std::string::npos) << twin->guid2lid;
  EXPECT_NE(twin->guid2lid.find("0x00000000000000a0 0x0001 0x0001\n\n"), std::string::npos) << twin->guid2lid;
  EXPECT_GE(twin->nodes, kIbsimDefaultNodes);
}

TEST(TwinTopologyTest, RefusesAWalkWithoutTheLocalPort) {
  auto twin = BuildTwinTopology(SmallFabric(), 0x99);
  ASSERT_FALSE(twin.ok());
  EXPECT_NE(twin.error().message.find("0x0000000000000099"), std::string::npos);
}

TEST(TwinTopologyTest, CountsCaPortsWhoseGuidsIbsimCannotCopy) {
  FabricTopology t = SmallFabric();
  t.nodes[0].num_ports = 2;
  t.end_ports.push_back(End(0x55, 0x10, NodeType::kCa, 2, 4));  // not 0x10 + 2
  auto twin = BuildTwinTopology(t, 0x11);
  ASSERT_TRUE(twin.ok());
  EXPECT_EQ(twin->guid_mismatches, 1);
}

TEST(TwinTopologyTest, LongDescriptionsAreCutToIbsimsLimit) {
  FabricTopology t = SmallFabric();
  t.nodes[2].node_description = std::string(200, 'x');
  auto twin = BuildTwinTopology(t, 0x11);
  ASSERT_TRUE(twin.ok());
  EXPECT_NE(twin->net_file.find("# \"" + std::string(kIbsimMaxDescription, 'x') + "\"\n"), std::string::npos);
  EXPECT_EQ(twin->net_file.find(std::string(kIbsimMaxDescription + 1, 'x')), std::string::npos);
}

}  // namespace
}  // namespace smsupd::twin
