#include "tests/testbed/smsupd_config.h"

#include <algorithm>
#include <cstdio>

#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {
namespace {

std::string Hex16(std::uint16_t value) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%04x", value);
  return buffer;
}

std::string PartitionYaml(const PartitionSpec& partition) {
  std::string yaml = "  - name: " + partition.name + "\n    pkey: " + Hex16(partition.pkey) + "\n";
  if (partition.ipoib) yaml += "    ipoib: true\n";
  if (partition.mtu) yaml += "    mtu: " + std::to_string(*partition.mtu) + "\n";
  yaml += "    members:\n";
  for (const std::string& member : partition.members) yaml += "      - " + member + "\n";
  return yaml;
}

std::string SmYaml(const SmsupdConfig& config) {
  std::string yaml = "sm:\n  role: " + config.role + "\n  port_guid: " + FormatGuid(config.port_guid) + "\n";
  if (config.preempt) yaml += std::string("  preempt: ") + (*config.preempt ? "true" : "false") + "\n";
  if (config.hold_time_s || config.master_sweep_timeout_ms || config.inventory_interval_ms)
    yaml += "  failover:\n";
  if (config.inventory_interval_ms)
    yaml += "    inventory_interval_ms: " + std::to_string(*config.inventory_interval_ms) + "\n";
  if (config.hold_time_s) yaml += "    hold_time_s: " + std::to_string(*config.hold_time_s) + "\n";
  if (config.master_sweep_timeout_ms)
    yaml += "    master_sweep_timeout_ms: " + std::to_string(*config.master_sweep_timeout_ms) + "\n";
  if (config.sm_key_file) yaml += "  sm_key_file: " + *config.sm_key_file + "\n";
  if (config.m_key_file) yaml += "  m_key_file: " + *config.m_key_file + "\n";
  if (config.sa_key_file) yaml += "  sa_key_file: " + *config.sa_key_file + "\n";
  yaml += "  opensm:\n    log_file: " + config.OpenSmLog() + "\n";
  if (config.opensm_binary) yaml += "    binary: " + *config.opensm_binary + "\n";
  std::map<std::string, std::string> options = config.opensm_options;
  if (TestBedDebug()) {
    options.emplace("log_flags", "0xff");
    options.emplace("force_log_flush", "true");
  }
  if (!options.empty()) {
    yaml += "    options:\n";
    for (const auto& [name, value] : options) yaml += "      " + name + ": " + value + "\n";
  }
  return yaml;
}

// Port 1's GUID (0 for a name the topology lacks: ManagementNode::Create
// refuses that node).
Guid PortOneGuid(const Topology& topology, const std::string& name) {
  const TopoNode* node = topology.Find(name);
  return node == nullptr ? 0 : node->PortGuid(1);
}

}  // namespace

std::string HostMember(const std::string& host, const std::string& membership) {
  return "{ host: " + host + ", membership: " + membership + " }";
}

std::string PortsMember(const std::string& keyword, const std::string& membership) {
  return "{ ports: " + keyword + ", membership: " + membership + " }";
}

std::string GroupMember(const std::string& group, const std::string& membership) {
  return "{ group: " + group + ", membership: " + membership + " }";
}

PartitionSpec* SmsupdConfig::Find(const std::string& name) {
  for (PartitionSpec& partition : partitions)
    if (partition.name == name) return &partition;
  return nullptr;
}

void SmsupdConfig::Remove(const std::string& name) {
  partitions.erase(std::remove_if(partitions.begin(), partitions.end(),
                                  [&](const PartitionSpec& p) { return p.name == name; }),
                   partitions.end());
}

std::string SmsupdConfig::Yaml() const {
  std::string yaml = "version: 1\nnode: " + node + "\n" + SmYaml(*this);
  yaml += "state_dir: " + StateDir() + "\ncontrol:\n  socket: " + Socket() + "\n";
  if (control_group) yaml += "  group: " + *control_group + "\n";
  yaml += "hosts:\n";
  for (const auto& [name, guid] : hosts) yaml += "  " + name + ": " + FormatGuid(guid) + "\n";
  if (!groups.empty()) {
    yaml += "groups:\n";
    for (const auto& [name, list] : groups) {
      std::string joined;
      for (const std::string& member : list) joined += (joined.empty() ? "" : ", ") + member;
      yaml += "  " + name + ": [" + joined + "]\n";
    }
  }
  yaml += "partitions:\n";
  for (const PartitionSpec& partition : partitions) yaml += PartitionYaml(partition);
  return yaml + extra;
}

SmsupdConfig SmNodesConfig(const Topology& topology, const std::string& node, const std::string& role,
                           const std::vector<std::string>& sm_nodes) {
  SmsupdConfig config;
  config.node = node;
  config.role = role;
  config.port_guid = PortOneGuid(topology, node);
  for (const std::string& host : sm_nodes.empty() ? std::vector<std::string>{node} : sm_nodes)
    config.hosts[host] = PortOneGuid(topology, host);
  config.partitions.push_back({"Default", 0x7fff, true, std::nullopt, {PortsMember("ALL", "full")}});
  return config;
}

SmsupdConfig EveryHcaConfig(const Topology& topology, const std::string& node, const std::string& role) {
  SmsupdConfig config;
  config.node = node;
  config.role = role;
  config.port_guid = PortOneGuid(topology, node);
  for (const TopoNode* ca : topology.Cas()) config.hosts[ca->name] = ca->PortGuid(1);
  config.groups["mgmt"] = topology.management_nodes();
  config.partitions.push_back({"Default", 0x7fff, true, std::nullopt,
                               {PortsMember("ALL", "limited"), GroupMember("mgmt", "full")}});
  return config;
}

}  // namespace smsupd::testbed
