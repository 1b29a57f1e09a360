#include "daemon/ports/port_names.h"

namespace smsupd {

PortNames::PortNames(const config::Config& config, const FabricTopology& topology) {
  for (const auto& [host, guids] : config.hosts)
    for (Guid guid : guids) port_hosts_[guid] = host;
  for (const TopologyNode& node : topology.nodes) {
    types_[node.node_guid] = node.type;
    num_ports_[node.node_guid] = node.num_ports;
    if (!node.node_description.empty()) descriptions_[node.node_guid] = node.node_description;
  }
  for (const DiscoveredPort& port : topology.end_ports) {
    auto host = port_hosts_.find(port.port_guid);
    if (host == port_hosts_.end()) continue;
    declared_.emplace(port.node_guid, host->second);
    ++host_ports_[port.node_guid];
  }
  // The cabling's names win: they are the ones the site wrote for the node GUID.
  for (const config::DeclaredCable& cable : config.cabling.cables)
    for (const config::CableEnd* end : {&cable.a, &cable.b})
      if (end->node_guid) declared_[*end->node_guid] = end->device;
}

std::string PortNames::Node(Guid node_guid) const {
  if (auto it = declared_.find(node_guid); it != declared_.end()) return it->second;
  if (auto it = descriptions_.find(node_guid); it != descriptions_.end()) return it->second;
  return FormatGuid(node_guid);
}

std::string PortNames::Port(Guid node_guid, int port) const {
  auto type = types_.find(node_guid);
  const bool is_switch = type != types_.end() && type->second == NodeType::kSwitch;
  if (is_switch) return port == 0 ? Node(node_guid) : Node(node_guid) + " port " + std::to_string(port);
  // A CA: its name alone when the name stands for this one port.
  auto named = host_ports_.find(node_guid);
  auto ports = num_ports_.find(node_guid);
  const bool one_port = (named != host_ports_.end() && named->second == 1) ||
                        (ports != num_ports_.end() && ports->second == 1);
  return one_port ? Node(node_guid) : Node(node_guid) + " port " + std::to_string(port);
}

std::string PortNames::HostOfPort(Guid port_guid) const {
  auto it = port_hosts_.find(port_guid);
  return it == port_hosts_.end() ? "" : it->second;
}

bool PortNames::Declared(Guid node_guid) const { return declared_.count(node_guid) > 0; }

}  // namespace smsupd
