// A warning for a default partition (0x7fff) that leaves the SM's own port a
// limited member: limited members cannot talk to each other, so SA queries
// from every other limited port would fail. OpenSM's base makes the SM port
// full, but an ALL / ALL_CAS line at limited names it too (docs/opensm-behaviour.md "The default
// partition base").
#include "config/partition_members.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

// The membership the product rule gives the SM port; nullopt: OpenSM's base (full).
std::optional<Membership> SmPortMembership(const ResolvedMembers& members, std::optional<Guid> sm_port) {
  if (members.keywords.count(PortsKeyword::kSelf) != 0) return members.keywords.at(PortsKeyword::kSelf);
  if (sm_port) {
    std::map<Guid, Membership> named = members.Named();
    if (auto it = named.find(*sm_port); it != named.end()) return it->second;
  }
  for (PortsKeyword keyword : {PortsKeyword::kAllCas, PortsKeyword::kAll})
    if (auto it = members.keywords.find(keyword); it != members.keywords.end()) return it->second;
  return std::nullopt;
}

}  // namespace

void CheckDefaultPartitionKeepsSmFull(const YAML::Node& partitions_node, ValidationState& state) {
  const std::vector<Partition>& partitions = state.config.partitions;
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (partitions[i].pkey != kDefaultPKey) continue;
    ResolvedMembers members = ResolveMembers(state.config, partitions[i], state.config.sm.port_guid);
    if (SmPortMembership(members, state.config.sm.port_guid) != Membership::kLimited) return;
    state.sink.Warning(partitions_node[i], "partitions[" + std::to_string(i) + "]",
                       "the SM's own port ends up a limited member of 0x7fff: limited ports cannot "
                       "reach the SA",
                       "add { ports: SELF, membership: full } (or the SM hosts, full)");
    return;
  }
}

}  // namespace smsupd::config
