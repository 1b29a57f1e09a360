#include "daemon/twin/twin_topology.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace smsupd::twin {
namespace {

// ibnetdiscover's rate words, as ibsim's net parser reads them
// ("lid 0 4xQDR"); empty when PortInfo says nothing usable.
std::string RateWord(const PortInfo& info) {
  int width = 0;
  switch (info.link_width_active) {
    case 1: width = 1; break;
    case 2: width = 4; break;
    case 4: width = 8; break;
    case 8: width = 12; break;
    case 16: width = 2; break;
    default: return "";
  }
  const char* speed = nullptr;
  switch (info.link_speed_ext_active) {
    case 1: speed = "FDR"; break;
    case 2: speed = "EDR"; break;
    case 4: speed = "HDR"; break;
    case 8: speed = "NDR"; break;
    default:
      switch (info.link_speed_active) {
        case 1: speed = "SDR"; break;
        case 2: speed = "DDR"; break;
        case 4: speed = "QDR"; break;
        default: return "";
      }
  }
  return std::to_string(width) + "x" + speed;
}

std::string Description(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  std::replace(text.begin(), text.end(), '#', ' ');
  if (text.size() > kIbsimMaxDescription) text.resize(kIbsimMaxDescription);
  return text;
}

struct TwinNode {
  const TopologyNode* node = nullptr;
  Guid twin_guid = 0;
  std::string id;
};

// The twin's node GUID: a switch keeps its own (its port 0 has it); a CA
// takes port GUID - port number of the first port the walk saw.
std::map<Guid, TwinNode> TwinNodes(const FabricTopology& topology, int& mismatches) {
  std::map<Guid, Guid> base;
  for (const DiscoveredPort& port : topology.end_ports) {
    if (port.node_type == NodeType::kSwitch) continue;
    const Guid derived = port.port_guid - static_cast<Guid>(port.port_num);
    auto [it, inserted] = base.emplace(port.node_guid, derived);
    if (!inserted && it->second != derived) ++mismatches;
  }
  std::map<Guid, TwinNode> nodes;
  for (const TopologyNode& node : topology.nodes) {
    TwinNode twin;
    twin.node = &node;
    twin.twin_guid = node.node_guid;
    if (node.type != NodeType::kSwitch)
      if (auto it = base.find(node.node_guid); it != base.end()) twin.twin_guid = it->second;
    twin.id = TwinNodeId(node.type, twin.twin_guid);
    nodes.emplace(node.node_guid, std::move(twin));
  }
  return nodes;
}

using PortKey = std::pair<Guid, int>;

// Every link once per end, from whichever end the walk saw it.
std::map<PortKey, PortKey> Links(const FabricTopology& topology) {
  std::map<PortKey, PortKey> links;
  for (const TopologyPort& port : topology.ports) {
    if (port.peer_node == 0 || port.peer_port <= 0) continue;
    links[{port.node_guid, port.port_num}] = {port.peer_node, port.peer_port};
    links[{port.peer_node, port.peer_port}] = {port.node_guid, port.port_num};
  }
  return links;
}

void WriteNode(std::ostringstream& out, const TwinNode& twin, const std::map<PortKey, PortKey>& links,
               const std::map<Guid, TwinNode>& nodes, const std::map<PortKey, const PortInfo*>& info) {
  const TopologyNode& node = *twin.node;
  const bool is_switch = node.type == NodeType::kSwitch;
  const bool is_router = node.type == NodeType::kRouter;
  out << (is_switch ? "switchguid=" : is_router ? "rtguid=" : "caguid=") << FormatGuid(twin.twin_guid) << "\n";
  out << (is_switch ? "Switch\t" : (is_router ? "Rt\t" : "Hca\t")) << node.num_ports << " \""
      << twin.id << "\" # \"" << Description(node.node_description) << "\"\n";
  for (int port = 1; port <= node.num_ports; ++port) {
    auto link = links.find({node.node_guid, port});
    if (link == links.end()) continue;
    auto peer = nodes.find(link->second.first);
    if (peer == nodes.end()) continue;
    out << "[" << port << "]\t\"" << peer->second.id << "\"[" << link->second.second << "]";
    auto own = info.find({node.node_guid, port});
    if (own != info.end())
      if (std::string rate = RateWord(*own->second); !rate.empty()) out << "\t# lid 0 " << rate;
    out << "\n";
  }
  out << "\n";
}

}  // namespace

std::string TwinNodeId(NodeType type, Guid twin_node_guid) {
  char id[32];
  std::snprintf(id, sizeof id, "%s-%016llx", type == NodeType::kSwitch ? "S" : "H",
                static_cast<unsigned long long>(twin_node_guid));
  return id;
}

Result<TwinTopology> BuildTwinTopology(const FabricTopology& topology, Guid local_port) {
  if (topology.nodes.size() > static_cast<std::size_t>(kMaxTwinNodes))
    return Error{"the fabric has " + std::to_string(topology.nodes.size()) + " nodes; a twin holds at most " +
                 std::to_string(kMaxTwinNodes)};
  TwinTopology twin;
  const std::map<Guid, TwinNode> nodes = TwinNodes(topology, twin.guid_mismatches);
  const std::map<PortKey, PortKey> links = Links(topology);
  std::map<PortKey, const PortInfo*> info;
  for (const TopologyPort& port : topology.ports) info[{port.node_guid, port.port_num}] = &port.info;

  std::ostringstream net;
  net << "# the live subnet as smsupd's walk read it, for ibsim\n\n";
  int lids = 0;
  for (const auto& [guid, node] : nodes) {
    WriteNode(net, node, links, nodes, info);
    ++twin.nodes;
    if (node.node->type == NodeType::kSwitch) ++twin.switches;
    twin.ports += node.node->num_ports + 1;
    lids += node.node->type == NodeType::kSwitch ? 1 : node.node->num_ports;
  }
  twin.links = static_cast<int>(links.size() / 2);
  if (lids > kMaxUnicastLid)
    return Error{"the fabric needs " + std::to_string(lids) + " LIDs; the simulator holds at most " +
                 std::to_string(kMaxUnicastLid)};

  std::ostringstream guid2lid;
  for (const DiscoveredPort& port : topology.end_ports) {
    if (port.port_guid == local_port) {
      auto node = nodes.find(port.node_guid);
      if (node != nodes.end()) twin.sim_host = node->second.id;
    }
    if (port.lid == 0) continue;
    int lmc = 0;
    if (auto it = info.find({port.node_guid, port.port_num}); it != info.end()) lmc = it->second->lmc & 7;
    const unsigned last = std::min<unsigned>(port.lid + (1u << lmc) - 1, kMaxUnicastLid);
    guid2lid << FormatGuid(port.port_guid) << " " << FormatHex(port.lid, 4) << " " << FormatHex(last, 4) << "\n\n";
  }
  if (twin.sim_host.empty())
    return Error{"the walk did not find this node's port " + FormatGuid(local_port)};
  twin.nodes = std::max(kIbsimDefaultNodes, twin.nodes * 5 / 4 + 16);
  twin.switches = std::max(kIbsimDefaultSwitches, twin.switches * 5 / 4 + 16);
  twin.ports = std::max(kIbsimDefaultPorts, twin.ports * 5 / 4 + 64);
  twin.net_file = net.str();
  twin.guid2lid = guid2lid.str();
  return twin;
}

}  // namespace smsupd::twin
