// A small subnet as the walk reports it (FabricTopology), written the way a
// port map is: switches, hosts and the cables between them. For the cabling
// tests; the walk itself is tested in tests/daemon/fabric/subnet_walk_test.cc.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "daemon/fabric/fabric.h"

namespace smsupd::testing_cabling {

// The devices the cabling tests name: leaf01, spine01 and gpu01..03.
inline constexpr Guid kLeaf = 0x0002c90300001000, kSpine = 0x0002c90300002000;
inline constexpr Guid kGpu01 = 0x0002c903000000b0, kGpu02 = 0x0002c903000000c0,
                      kGpu03 = 0x0002c903000000d0;

// PortInfo link masks: width 2 = 4x, extended speed 4 = HDR, 2 = EDR.
inline constexpr int kWidth4x = 2;
inline constexpr int kSpeedHdr = 4;
inline constexpr int kSpeedEdr = 2;

class ModelFabric {
 public:
  void Switch(Guid guid, const std::string& name, int ports) { nodes_[guid] = {guid, NodeType::kSwitch, ports, name, 1}; }
  void Host(Guid guid, const std::string& name) { nodes_[guid] = {guid, NodeType::kCa, 1, name, 2}; }
  void Cable(Guid a, int a_port, Guid b, int b_port, int ext_speed = kSpeedHdr) {
    cables_[{a, a_port}] = {b, b_port, ext_speed};
    cables_[{b, b_port}] = {a, a_port, ext_speed};
  }
  void Uncable(Guid a, int a_port) {
    auto it = cables_.find({a, a_port});
    if (it == cables_.end()) return;
    cables_.erase({std::get<0>(it->second), std::get<1>(it->second)});
    cables_.erase(it);
  }
  // The walk got no PortInfo from this switch port.
  void NoPortInfo(Guid node, int port) { no_port_info_.insert({node, port}); }
  // The node never answered: the port that leads to it is live, with no peer.
  void Unanswering(Guid node) { unanswering_.insert(node); }

  FabricTopology Build() const {
    FabricTopology topology;
    for (const auto& [guid, node] : nodes_) {
      if (unanswering_.count(guid)) continue;
      topology.nodes.push_back(node);
      const bool is_switch = node.type == NodeType::kSwitch;
      for (int port = is_switch ? 0 : 1; port <= node.num_ports; ++port) {
        if (no_port_info_.count({guid, port})) {
          topology.unread.push_back(node.node_description + " port " + std::to_string(port) + ": PortInfo: no response");
          ++topology.unread_total;
          continue;
        }
        topology.ports.push_back(Port(guid, port, topology));
        // End ports: a CA's ports (GUID = node GUID + port, as in ibsim) and a switch's port 0.
        if (is_switch == (port == 0))
          topology.end_ports.push_back({is_switch ? guid : guid + port, guid, node.type, port, 0, node.node_description});
      }
    }
    std::sort(topology.end_ports.begin(), topology.end_ports.end(),
              [](const DiscoveredPort& a, const DiscoveredPort& b) { return a.port_guid < b.port_guid; });
    return topology;
  }

 private:
  TopologyPort Port(Guid guid, int port, FabricTopology& topology) const {
    TopologyPort row;
    row.node_guid = guid;
    row.port_num = port;
    row.info.port_state = port == 0 ? kPortStateActive : 1;
    auto cable = cables_.find({guid, port});
    if (cable == cables_.end()) return row;
    auto [peer, peer_port, speed] = cable->second;
    row.info.port_state = kPortStateActive;
    row.info.link_width_active = kWidth4x;
    row.info.link_speed_active = 1;
    row.info.link_speed_ext_active = speed;
    if (unanswering_.count(peer)) {
      topology.unread.push_back(nodes_.at(guid).node_description + " port " + std::to_string(port) +
                                ": the node behind it did not answer NodeInfo");
      ++topology.unread_total;
      return row;
    }
    row.peer_node = peer;
    row.peer_port = peer_port;
    return row;
  }

  std::map<Guid, TopologyNode> nodes_;
  std::map<std::pair<Guid, int>, std::tuple<Guid, int, int>> cables_;
  std::set<std::pair<Guid, int>> no_port_info_;
  std::set<Guid> unanswering_;
};

}  // namespace smsupd::testing_cabling
