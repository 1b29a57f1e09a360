// WalkSubnet on model subnets: what an operator gets from DiscoverPorts()
// (every end port once, with LID, name and SM flag) and how the walk copes
// with loops, down links, silent nodes and its time budget.
#include "daemon/fabric/subnet_walk.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace smsupd {
namespace {

using std::chrono::steady_clock;

// A subnet of nodes and links that answers directed-route SMPs the way
// IBA 14.2.2 routes them: a CA forwards nothing, a switch forwards out of
// the port named by the next hop.
class ModelSubnet : public SubnetReader {
 public:
  int AddSwitch(Guid guid, int ports, uint16_t lid, std::string name) {
    Node node{NodeType::kSwitch, guid, ports, std::move(name)};
    node.lids[0] = lid;
    nodes_.push_back(node);
    return static_cast<int>(nodes_.size()) - 1;
  }
  // Port p of a CA has GUID guid + p and LID lid + p - 1 (as ibsim does).
  int AddCa(Guid guid, int ports, uint16_t lid, std::string name) {
    Node node{NodeType::kCa, guid, ports, std::move(name)};
    for (int p = 1; p <= ports; ++p) node.lids[p] = static_cast<uint16_t>(lid + p - 1);
    nodes_.push_back(node);
    return static_cast<int>(nodes_.size()) - 1;
  }
  void Link(int a, int a_port, int b, int b_port) {
    nodes_[a].links[a_port] = {b, b_port};
    nodes_[b].links[b_port] = {a, a_port};
  }
  void SetLocal(int node, int port) { local_ = {node, port}; }
  void SetSm(int node, int port) { nodes_[node].sm_ports.insert(port); }
  void Silence(int node) { nodes_[node].silent = true; }
  void LinkDown(int node, int port) { nodes_[node].down.insert(port); }

  int node_info_batches() const { return node_info_batches_; }

  std::vector<Result<NodeInfo>> ReadNodeInfo(const std::vector<DirectedRoute>& routes) override {
    ++node_info_batches_;
    std::vector<Result<NodeInfo>> out;
    for (const DirectedRoute& route : routes) {
      auto at = Follow(route);
      if (!at) {
        out.push_back(Error{"no response"});
        continue;
      }
      const Node& node = nodes_[at->first];
      NodeInfo info;
      info.type = node.type;
      info.num_ports = node.ports;
      info.node_guid = node.guid;
      info.port_guid = node.type == NodeType::kSwitch ? node.guid : node.guid + at->second;
      info.local_port = at->second;
      out.push_back(info);
    }
    return out;
  }

  std::vector<Result<PortInfo>> ReadPortInfo(const std::vector<PortAt>& ports) override {
    std::vector<Result<PortInfo>> out;
    for (const PortAt& target : ports) {
      auto at = Follow(target.route);
      if (!at) {
        out.push_back(Error{"no response"});
        continue;
      }
      const Node& node = nodes_[at->first];
      PortInfo info;
      bool linked = node.links.count(target.port) && !node.down.count(target.port);
      info.port_state = target.port == 0 || linked ? kPortStateActive : kPortStateDown;
      auto lid = node.lids.find(target.port);
      info.lid = lid == node.lids.end() ? 0 : lid->second;
      if (node.sm_ports.count(target.port)) info.capability_mask = kCapabilityIsSm;
      out.push_back(info);
    }
    return out;
  }

  std::vector<Result<std::string>> ReadNodeDescription(const std::vector<DirectedRoute>& routes) override {
    std::vector<Result<std::string>> out;
    for (const DirectedRoute& route : routes) {
      auto at = Follow(route);
      if (at) {
        out.push_back(nodes_[at->first].name);
      } else {
        out.push_back(Error{"no response"});
      }
    }
    return out;
  }

 private:
  struct Node {
    Node(NodeType type, Guid guid, int ports, std::string name)
        : type(type), guid(guid), ports(ports), name(std::move(name)) {}
    NodeType type;
    Guid guid;
    int ports;
    std::string name;
    std::map<int, std::pair<int, int>> links;  // port -> (node, port)
    std::map<int, uint16_t> lids;               // port -> LID
    std::set<int> sm_ports;
    std::set<int> down;
    bool silent = false;
  };

  // (node, port entered by) at the end of `route`, or nullopt if the SMP is
  // lost on the way.
  std::optional<std::pair<int, int>> Follow(const DirectedRoute& route) const {
    std::pair<int, int> at = local_;
    for (size_t hop = 0; hop < route.size(); ++hop) {
      const Node& node = nodes_[at.first];
      if (hop > 0 && node.type != NodeType::kSwitch) return std::nullopt;
      auto link = node.links.find(route[hop]);
      if (link == node.links.end() || node.down.count(route[hop])) return std::nullopt;
      at = link->second;
    }
    if (nodes_[at.first].silent) return std::nullopt;
    return at;
  }

  std::vector<Node> nodes_;
  std::pair<int, int> local_{0, 1};
  int node_info_batches_ = 0;
};

Result<std::vector<DiscoveredPort>> Walk(ModelSubnet& subnet, SubnetWalkStats* stats = nullptr) {
  return WalkSubnet(subnet, steady_clock::now() + std::chrono::seconds(10), stats);
}

std::map<Guid, DiscoveredPort> ByGuid(const std::vector<DiscoveredPort>& ports) {
  std::map<Guid, DiscoveredPort> out;
  for (const DiscoveredPort& port : ports) {
    EXPECT_TRUE(out.emplace(port.port_guid, port).second) << "port listed twice: " << port.port_guid;
  }
  return out;
}

// Two leaf switches, both linked to two spines (loops), two hosts per leaf.
// The local host is h1 (port 1).
struct SmallFatTree {
  ModelSubnet subnet;
  int s1, s2, l1, l2, h1, h2, h3, h4;
  SmallFatTree() {
    s1 = subnet.AddSwitch(0x100, 4, 1, "S1");
    s2 = subnet.AddSwitch(0x200, 4, 2, "S2");
    l1 = subnet.AddSwitch(0x300, 4, 3, "L1");
    l2 = subnet.AddSwitch(0x400, 4, 4, "L2");
    h1 = subnet.AddCa(0x1000, 1, 10, "h1 HCA-1");
    h2 = subnet.AddCa(0x2000, 1, 11, "h2 HCA-1");
    h3 = subnet.AddCa(0x3000, 1, 12, "h3 HCA-1");
    h4 = subnet.AddCa(0x4000, 1, 13, "h4 HCA-1");
    subnet.Link(l1, 1, s1, 1);
    subnet.Link(l1, 2, s2, 1);
    subnet.Link(l2, 1, s1, 2);
    subnet.Link(l2, 2, s2, 2);
    subnet.Link(l1, 3, h1, 1);
    subnet.Link(l1, 4, h2, 1);
    subnet.Link(l2, 3, h3, 1);
    subnet.Link(l2, 4, h4, 1);
    subnet.SetLocal(h1, 1);
  }
};

TEST(SubnetWalkTest, FindsEveryEndPortOnceWithLidNameAndSmFlag) {
  SmallFatTree fabric;
  fabric.subnet.SetSm(fabric.h3, 1);
  SubnetWalkStats stats;
  auto ports = Walk(fabric.subnet, &stats);
  ASSERT_TRUE(ports.ok()) << ports.error().message;
  ASSERT_EQ(ports->size(), 8u);  // 4 HCA ports + 4 switch ports 0
  for (size_t i = 1; i < ports->size(); ++i) EXPECT_LT((*ports)[i - 1].port_guid, (*ports)[i].port_guid);
  auto by_guid = ByGuid(*ports);
  const DiscoveredPort& h3 = by_guid.at(0x3001);
  EXPECT_EQ(h3.node_guid, 0x3000u);
  EXPECT_EQ(h3.node_type, NodeType::kCa);
  EXPECT_EQ(h3.port_num, 1);
  EXPECT_EQ(h3.lid, 12);
  EXPECT_EQ(h3.node_description, "h3 HCA-1");
  EXPECT_TRUE(h3.is_sm);
  EXPECT_FALSE(by_guid.at(0x1001).is_sm);
  const DiscoveredPort& spine = by_guid.at(0x200);
  EXPECT_EQ(spine.node_type, NodeType::kSwitch);
  EXPECT_EQ(spine.port_num, 0);
  EXPECT_EQ(spine.lid, 2);
  EXPECT_EQ(spine.node_description, "S2");
  EXPECT_EQ(stats.unanswered, 0);
}

// The hops of each port and the far port (the failover timeline's last
// stage): h3 and h4 sit behind L1, a spine and L2; h4 wins the tie by GUID.
TEST(SubnetWalkTest, CountsHopsAndNamesTheFarthestHostPort) {
  SmallFatTree fabric;
  auto ports = Walk(fabric.subnet);
  ASSERT_TRUE(ports.ok()) << ports.error().message;
  auto by_guid = ByGuid(*ports);
  EXPECT_EQ(by_guid.at(0x1001).hops, 0);
  EXPECT_EQ(by_guid.at(0x2001).hops, 2);
  EXPECT_EQ(by_guid.at(0x4001).hops, 4);
  // The route each was reached by: h2 out of h1's port 1, then L1's port 4,
  // which is the switch port at the other end of h2's cable.
  EXPECT_TRUE(by_guid.at(0x1001).route.empty());
  EXPECT_EQ(by_guid.at(0x2001).route, (DirectedRoute{1, 4}));
  EXPECT_EQ(by_guid.at(0x4001).route.size(), 4u);
  EXPECT_EQ(by_guid.at(0x4001).route.back(), 4);
  const LinkPeerPort peer = LinkPeerOf(by_guid.at(0x2001).route);
  EXPECT_EQ(peer.node_route, (DirectedRoute{1}));
  EXPECT_EQ(peer.port, 4);
  auto far = FarthestCaPort(*ports, 0x1001);
  ASSERT_TRUE(far.has_value());
  EXPECT_EQ(far->port_guid, 0x4001u);
  EXPECT_EQ(far->lid, 13);
  // Never the local port, and never a port without a LID.
  std::vector<DiscoveredPort> only_local = {by_guid.at(0x1001)};
  EXPECT_FALSE(FarthestCaPort(only_local, 0x1001).has_value());
  DiscoveredPort no_lid = by_guid.at(0x4001);
  no_lid.lid = 0;
  EXPECT_FALSE(FarthestCaPort({no_lid}, 0x1001).has_value());
}

// One batch of NodeInfo per level: what lets a reader pipeline the SMPs.
TEST(SubnetWalkTest, AsksForOneLevelAtATime) {
  SmallFatTree fabric;
  SubnetWalkStats stats;
  ASSERT_TRUE(Walk(fabric.subnet, &stats).ok());
  // h1 -> L1 -> (h2, S1, S2) -> L2 -> (h3, h4)
  EXPECT_EQ(stats.levels, 5);
  EXPECT_EQ(fabric.subnet.node_info_batches(), 5);
}

TEST(SubnetWalkTest, DownLinksAreNotWalked) {
  SmallFatTree fabric;
  fabric.subnet.LinkDown(fabric.l2, 4);
  auto ports = Walk(fabric.subnet);
  ASSERT_TRUE(ports.ok());
  auto by_guid = ByGuid(*ports);
  EXPECT_EQ(by_guid.count(0x4001), 0u);
  EXPECT_EQ(by_guid.size(), 7u);
}

TEST(SubnetWalkTest, SilentNodeIsLeftOutWithWhatLiesBehindIt) {
  SmallFatTree fabric;
  // Both spines silent: L2 and its hosts are out of reach.
  fabric.subnet.Silence(fabric.s1);
  fabric.subnet.Silence(fabric.s2);
  SubnetWalkStats stats;
  auto ports = Walk(fabric.subnet, &stats);
  ASSERT_TRUE(ports.ok()) << ports.error().message;
  auto by_guid = ByGuid(*ports);
  EXPECT_EQ(by_guid.size(), 3u);  // h1, h2, L1
  EXPECT_EQ(by_guid.count(0x300), 1u);
  EXPECT_GT(stats.unanswered, 0);
}

TEST(SubnetWalkTest, SilentLocalNodeIsAnError) {
  SmallFatTree fabric;
  fabric.subnet.Silence(fabric.h1);
  auto ports = Walk(fabric.subnet);
  ASSERT_FALSE(ports.ok());
  EXPECT_NE(ports.error().message.find("local node"), std::string::npos);
}

TEST(SubnetWalkTest, RunsOutOfTime) {
  SmallFatTree fabric;
  auto ports = WalkSubnet(fabric.subnet, steady_clock::now() - std::chrono::seconds(1));
  ASSERT_FALSE(ports.ok());
  EXPECT_NE(ports.error().message.find("out of time"), std::string::npos);
}

// A dual-port HCA cabled to both leaves is two end ports; its ports are not
// forwarded through.
TEST(SubnetWalkTest, DualPortCaGivesTwoEndPorts) {
  SmallFatTree fabric;
  int dual = fabric.subnet.AddCa(0x5000, 2, 20, "dual");
  // Steal L1 port 4 and L2 port 4 from h2 and h4.
  fabric.subnet.Link(fabric.l1, 4, dual, 1);
  fabric.subnet.Link(fabric.l2, 4, dual, 2);
  auto ports = Walk(fabric.subnet);
  ASSERT_TRUE(ports.ok());
  auto by_guid = ByGuid(*ports);
  ASSERT_EQ(by_guid.count(0x5001), 1u);
  ASSERT_EQ(by_guid.count(0x5002), 1u);
  EXPECT_EQ(by_guid.at(0x5001).lid, 20);
  EXPECT_EQ(by_guid.at(0x5002).lid, 21);
  EXPECT_EQ(by_guid.at(0x5002).port_num, 2);
  EXPECT_EQ(by_guid.at(0x5002).node_guid, 0x5000u);
}

// An SM on a switch's management port: the walk starts at the switch and
// leaves through every live port.
TEST(SubnetWalkTest, StartsFromASwitch) {
  SmallFatTree fabric;
  fabric.subnet.SetLocal(fabric.s1, 0);
  auto ports = Walk(fabric.subnet);
  ASSERT_TRUE(ports.ok()) << ports.error().message;
  EXPECT_EQ(ports->size(), 8u);
}

TEST(SubnetWalkTest, FormatsRoutesAsIbnetdiscover) {
  EXPECT_EQ(FormatDirectedRoute({}), "0");
  EXPECT_EQ(FormatDirectedRoute({1, 3, 5}), "0,1,3,5");
}

}  // namespace
}  // namespace smsupd
