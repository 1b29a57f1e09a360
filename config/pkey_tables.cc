#include "config/pkey_tables.h"

#include "config/partition_members.h"

namespace smsupd::config {
namespace {

PortsKeyword KeywordOf(PortKind kind) {
  switch (kind) {
    case PortKind::kCa:
      return PortsKeyword::kAllCas;
    case PortKind::kSwitch:
      return PortsKeyword::kAllSwitches;
    case PortKind::kRouter:
      return PortsKeyword::kAllRouters;
  }
  return PortsKeyword::kAllCas;
}

// The membership the product rule gives `port`, or nullopt when no selector
// of the partition picks it.
std::optional<Membership> Decide(const ResolvedMembers& members,
                                 const std::map<Guid, Membership>& named,
                                 const FabricPort& port) {
  if (auto it = named.find(port.guid); it != named.end()) return it->second;
  if (auto it = members.keywords.find(KeywordOf(port.kind)); it != members.keywords.end())
    return it->second;
  if (auto it = members.keywords.find(PortsKeyword::kAll); it != members.keywords.end())
    return it->second;
  return std::nullopt;
}

void AddEntries(std::set<std::uint16_t>& table, std::uint16_t pkey, Membership membership) {
  if (membership != Membership::kLimited) table.insert(pkey | kPKeyFullBit);
  if (membership != Membership::kFull) table.insert(pkey);
}

// What OpenSM does with no 0x7fff definition in the file: every port full.
Partition ImplicitDefault() {
  Partition partition;
  partition.name = "Default";
  partition.pkey = kDefaultPKey;
  partition.ipoib = true;
  Member all;
  all.membership = Membership::kFull;
  partition.members.push_back(all);
  return partition;
}

// Fills entry.ports with the membership of every port of `ports` (`known`:
// their GUIDs) that `members` picks.
void AssignPorts(const ResolvedMembers& members, const std::vector<FabricPort>& ports,
                 const std::set<Guid>& known, std::optional<Guid> sm_port,
                 PartitionMembership& entry) {
  std::map<Guid, Membership> named = members.Named();
  bool is_default = entry.partition.pkey == kDefaultPKey;
  // Without keywords (or OpenSM's 0x7fff base) only the named ports are
  // members: no need to visit every port (big fabrics, many partitions).
  if (members.keywords.empty() && !is_default) {
    for (const auto& [guid, membership] : named)
      if (known.count(guid) != 0) entry.ports.emplace(guid, membership);
    return;
  }
  for (const FabricPort& port : ports) {
    std::optional<Membership> membership = Decide(members, named, port);
    // OpenSM's base before the file: limited in 0x7fff, the SM port full.
    if (!membership && is_default)
      membership = port.guid == sm_port ? Membership::kFull : Membership::kLimited;
    if (membership) entry.ports[port.guid] = *membership;
  }
}

}  // namespace

std::vector<PartitionMembership> PartitionMemberships(const Config& config,
                                                      const std::vector<FabricPort>& ports) {
  std::optional<Guid> sm_port;
  for (const FabricPort& port : ports)
    if (port.is_sm_port && !sm_port) sm_port = port.guid;

  std::vector<PartitionMembership> result;
  bool has_default = false;
  for (const Partition& partition : config.partitions)
    has_default |= partition.pkey == kDefaultPKey;
  if (!has_default) result.push_back({ImplicitDefault(), {}});
  for (const Partition& partition : config.partitions) result.push_back({partition, {}});

  std::set<Guid> known;
  for (const FabricPort& port : ports) known.insert(port.guid);
  MemberResolver resolver(config);
  for (PartitionMembership& entry : result)
    AssignPorts(resolver.Resolve(entry.partition, sm_port), ports, known, sm_port, entry);
  return result;
}

std::map<Guid, std::set<std::uint16_t>> PKeyEntriesOf(
    const std::vector<PartitionMembership>& memberships, const std::vector<FabricPort>& ports) {
  std::map<Guid, std::set<std::uint16_t>> tables;
  for (const FabricPort& port : ports) tables[port.guid];
  for (const PartitionMembership& entry : memberships)
    for (const auto& [guid, membership] : entry.ports)
      AddEntries(tables[guid], entry.partition.pkey, membership);
  return tables;
}

std::map<Guid, std::set<std::uint16_t>> ExpectedPKeyEntries(const Config& config,
                                                            const std::vector<FabricPort>& ports) {
  return PKeyEntriesOf(PartitionMemberships(config, ports), ports);
}

std::map<Guid, std::map<std::uint16_t, bool>> ExpectedPKeyTables(
    const Config& config, const std::vector<FabricPort>& ports) {
  std::map<Guid, std::map<std::uint16_t, bool>> tables;
  for (const auto& [guid, entries] : ExpectedPKeyEntries(config, ports)) {
    std::map<std::uint16_t, bool>& table = tables[guid];
    for (std::uint16_t entry : entries) {
      bool full = (entry & kPKeyFullBit) != 0;
      bool& slot = table[entry & 0x7fff];
      slot = slot || full;
    }
  }
  return tables;
}

}  // namespace smsupd::config
