#include "daemon/cabling/cabling_links.h"

#include <map>

#include "daemon/ports/port_rates.h"

namespace smsupd {
namespace {

using Key = std::pair<Guid, int>;

std::map<Guid, const TopologyNode*> NodesByGuid(const FabricTopology& topology) {
  std::map<Guid, const TopologyNode*> nodes;
  for (const TopologyNode& node : topology.nodes) nodes[node.node_guid] = &node;
  return nodes;
}

bool IsSwitch(const std::map<Guid, const TopologyNode*>& nodes, Guid guid) {
  auto it = nodes.find(guid);
  return it != nodes.end() && it->second->type == NodeType::kSwitch;
}

}  // namespace

std::vector<config::DiscoveredLink> LinksOf(const FabricTopology& topology, const PortNames& names) {
  const auto nodes = NodesByGuid(topology);
  std::map<Key, const TopologyPort*> ports;
  for (const TopologyPort& port : topology.ports) ports[{port.node_guid, port.port_num}] = &port;
  std::set<std::pair<Key, Key>> seen;
  std::vector<config::DiscoveredLink> links;
  for (const TopologyPort& port : topology.ports) {
    if (port.port_num == 0 || port.peer_node == 0) continue;
    Key here{port.node_guid, port.port_num}, there{port.peer_node, port.peer_port};
    if (!seen.insert(here < there ? std::pair{here, there} : std::pair{there, here}).second) continue;
    config::DiscoveredLink link;
    link.a = {port.node_guid, names.Node(port.node_guid), port.port_num, IsSwitch(nodes, port.node_guid)};
    link.b = {port.peer_node, names.Node(port.peer_node), port.peer_port, IsSwitch(nodes, port.peer_node)};
    link.active = ActiveRate(port.info);
    if (!link.active) {
      auto peer = ports.find(there);
      if (peer != ports.end()) link.active = ActiveRate(peer->second->info);
    }
    links.push_back(std::move(link));
  }
  return links;
}

std::set<std::pair<std::string, int>> UnreadPositions(const FabricTopology& topology, const PortNames& names) {
  std::set<Key> read;
  std::set<std::pair<std::string, int>> unread;
  for (const TopologyPort& port : topology.ports) {
    read.insert({port.node_guid, port.port_num});
    // A live port with no neighbour recorded: the node behind it did not answer.
    if (port.port_num > 0 && port.peer_node == 0 && port.info.port_state >= kPortStateInit)
      unread.insert({names.Node(port.node_guid), port.port_num});
  }
  for (const TopologyNode& node : topology.nodes) {
    if (node.type != NodeType::kSwitch) continue;
    for (int port = 1; port <= node.num_ports; ++port)
      if (!read.count({node.node_guid, port})) unread.insert({names.Node(node.node_guid), port});
  }
  return unread;
}

std::set<std::string> ReachedDevices(const FabricTopology& topology, const PortNames& names) {
  std::set<std::string> devices;
  for (const TopologyNode& node : topology.nodes) devices.insert(names.Node(node.node_guid));
  return devices;
}

}  // namespace smsupd
