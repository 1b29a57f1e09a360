#include "tests/daemon/pkey_apply/pkey_config.h"

#include <algorithm>
#include <cstdio>

namespace smsupd::testbed::pkey {
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

PartitionSpec* ConfigSpec::Find(const std::string& name) {
  for (PartitionSpec& partition : partitions)
    if (partition.name == name) return &partition;
  return nullptr;
}

void ConfigSpec::Remove(const std::string& name) {
  partitions.erase(std::remove_if(partitions.begin(), partitions.end(),
                                  [&](const PartitionSpec& p) { return p.name == name; }),
                   partitions.end());
}

std::string ConfigSpec::Yaml() const {
  std::string yaml = "version: 1\nnode: " + node + "\nsm:\n  role: " + role + "\n  port_guid: " +
                     FormatGuid(port_guid) + "\n  opensm:\n    log_file: " + OpenSmLog() + "\n";
  if (!opensm_options.empty()) {
    yaml += "    options:\n";
    for (const auto& [name, value] : opensm_options) yaml += "      " + name + ": " + value + "\n";
  }
  yaml += "state_dir: " + StateDir() + "\ncontrol:\n  socket: " + Socket() + "\nhosts:\n";
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

ConfigSpec BaseConfig(const Topology& topology, const std::string& node, const std::string& role,
                      const std::string& home) {
  ConfigSpec spec;
  spec.node = node;
  spec.role = role;
  spec.home = home;
  spec.port_guid = topology.Find(node)->PortGuid(1);
  for (const TopoNode* ca : topology.Cas()) spec.hosts[ca->name] = ca->PortGuid(1);
  spec.groups["mgmt"] = topology.management_nodes();
  spec.partitions.push_back({"Default", 0x7fff, true, std::nullopt,
                             {PortsMember("ALL", "limited"), GroupMember("mgmt", "full")}});
  return spec;
}

}  // namespace smsupd::testbed::pkey
