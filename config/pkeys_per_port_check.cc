// limits.pkeys_per_port: a port in more P_Keys than its HCA's table holds
// silently loses the ones OpenSM applies last (docs/opensm-behaviour.md "P_Key table capacity").
// Counted on the resolved membership: every P_Key a port ends up in, `both` taking two entries, the
// default partition always included (OpenSM's base puts every port in 0x7fff). Ports named nowhere
// are assumed to be CA ports.
#include <algorithm>
#include <unordered_map>

#include "config/partition_members.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

constexpr int kMaxReportedPorts = 10;

int Entries(Membership membership) { return membership == Membership::kBoth ? 2 : 1; }

// The membership keywords give a CA port nobody names, if any.
std::optional<Membership> KeywordMembership(const ResolvedMembers& members) {
  auto cas = members.keywords.find(PortsKeyword::kAllCas);
  if (cas != members.keywords.end()) return cas->second;
  auto all = members.keywords.find(PortsKeyword::kAll);
  if (all != members.keywords.end()) return all->second;
  return std::nullopt;
}

// The running total of kMaxPortMemberships.
class MembershipCount {
 public:
  explicit MembershipCount(const Config& config) {
    std::size_t guids = 0;
    for (const auto& [host, ports] : config.hosts) guids += ports.size();
    every_port_ = guids + kMaxFabricPorts;
    bool has_default = false;
    for (const Partition& partition : config.partitions) has_default |= partition.pkey == kDefaultPKey;
    if (!has_default) total_ = every_port_;  // OpenSM's implicit Default
  }
  // False once the total is past the bound.
  bool Add(const Partition& partition, const ResolvedMembers& members, const MemberResolver& resolver) {
    const bool every_port = !members.keywords.empty() || partition.pkey == kDefaultPKey;
    total_ += every_port ? every_port_ : members.by_group.size() + members.by_guid.size();
    return std::max(total_, resolver.remembered()) <= kMaxPortMemberships;
  }

 private:
  std::size_t every_port_ = 0;
  std::size_t total_ = 0;
};

}  // namespace

void CheckPKeysPerPort(const YAML::Node& limits_node, ValidationState& state) {
  const Config& config = state.config;
  int unnamed = 0;  // entries of a port that no guid/host/group names
  std::unordered_map<Guid, int> adjustment;
  bool has_default = false;
  MemberResolver resolver(config);
  MembershipCount memberships(config);
  for (const Partition& partition : config.partitions) {
    state.deadline.CheckNow();  // a partition may name every port of a large group
    has_default |= partition.pkey == kDefaultPKey;
    ResolvedMembers members = resolver.Resolve(partition, config.sm.port_guid);
    if (!memberships.Add(partition, members, resolver)) {
      state.sink.Error(limits_node, "partitions",
                       "the partitions stand for more than " + std::to_string(kMaxPortMemberships) +
                           " port memberships (each group counted with its ports in every "
                           "partition that names it; ALL and the default partition with every "
                           "port a subnet may have)",
                       "name fewer ports in fewer partitions");
      return;
    }
    std::optional<Membership> keyword = KeywordMembership(members);
    int base = keyword ? Entries(*keyword) : (partition.pkey == kDefaultPKey ? 1 : 0);
    unnamed += base;
    for (const auto* named : {&members.by_group, &members.by_guid})
      for (const auto& [guid, membership] : *named) adjustment[guid] += Entries(membership) - base;
  }
  if (!has_default) unnamed += 1;
  int limit = config.limits.pkeys_per_port;
  std::string valid = "at most limits.pkeys_per_port = " + std::to_string(limit) +
                      " (the HCA's P_Key table size, Default included)";
  if (unnamed > limit)
    state.sink.Error(limits_node, "partitions",
                     "every port picked by ALL or ALL_CAS would be in " + std::to_string(unnamed) + " P_Key entries",
                     valid);
  int reported = 0;
  int over = 0;
  std::vector<Guid> over_limit;
  for (const auto& [guid, delta] : adjustment)
    if (unnamed + delta > limit) over_limit.push_back(guid);
  std::sort(over_limit.begin(), over_limit.end());  // a stable report
  for (Guid guid : over_limit) {
    int delta = adjustment[guid];
    if (++over > kMaxReportedPorts) continue;
    auto where = state.guid_nodes.find(guid);
    YAML::Node at = where != state.guid_nodes.end() ? where->second : limits_node;
    state.sink.Error(at, "partitions",
                     "port " + FormatGuid(guid) + " would be in " + std::to_string(unnamed + delta) +
                         " P_Key entries",
                     valid);
    ++reported;
  }
  if (over > reported)
    state.sink.Error(limits_node, "partitions",
                     std::to_string(over - reported) + " more ports are over the P_Key limit", valid);
}

}  // namespace smsupd::config
