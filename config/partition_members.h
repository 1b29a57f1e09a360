// The product rule for partition members (docs/opensm-behaviour.md "Member order and the product
// rule"), in one place: within a partition the most specific selector that picks a port decides its
// membership (guid / host / SELF > group > ALL_CAS / ALL_SWITCHES / ALL_ROUTERS > ALL); between
// selectors of the same rank the stronger membership wins (both > full > limited). The order of the
// YAML list never matters. Used by the validator (P_Key counts), the renderer and
// ExpectedPKeyTables().
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/config.h"

namespace smsupd::config {

// One partition's members after resolving hosts, groups and (when the SM
// port is known) SELF.
struct ResolvedMembers {
  // Strongest membership per keyword selector; kSelf appears only when the
  // SM port GUID was not known.
  std::map<PortsKeyword, Membership> keywords;
  // Ports picked by a group only (rank group), and by guid/host/SELF (rank
  // specific). A GUID is in at most one of the two maps.
  std::map<Guid, Membership> by_group;
  std::map<Guid, Membership> by_guid;

  // The final membership of every GUID named by group, host, guid or SELF.
  std::map<Guid, Membership> Named() const;
};

// The port memberships a valid config may stand for: summed over
// partitions, the ports its groups, hosts, GUIDs and SELF pick (each group's
// expansion counted where it is used), plus, for each partition with a
// keyword (ALL, ALL_CAS...) or the default one, every port there may be: the
// config's GUIDs and kMaxFabricPorts. The validator refuses a config past
// it, so what is done with a valid config (rendering, planning, verifying)
// is bounded by it too. bench/config_bench.sh's config (10,000 hosts of two
// ports, 1,000 partitions of groups, hosts and GUIDs) stands for ~280,000.
inline constexpr std::size_t kMaxPortMemberships = 2'000'000;
// End ports a subnet can address: the unicast LIDs 0x0001-0xbfff.
inline constexpr std::size_t kMaxFabricPorts = 0xbfff;

// Resolves the partitions of one config, remembering each group's
// expansion (big inventories name the same groups in many partitions).
// Requires a validated config (hosts and groups exist, no cycles) that
// outlives the resolver.
class MemberResolver {
 public:
  explicit MemberResolver(const Config& config) : config_(config) {}
  ResolvedMembers Resolve(const Partition& partition, std::optional<Guid> sm_port);
  const std::vector<Guid>& GroupPorts(const std::string& group);
  // GUIDs held by the remembered expansions.
  std::size_t remembered() const { return remembered_; }

 private:
  const Config& config_;
  std::map<std::string, std::vector<Guid>> groups_;
  std::size_t remembered_ = 0;
};

// One-off form of MemberResolver::Resolve().
ResolvedMembers ResolveMembers(const Config& config, const Partition& partition,
                               std::optional<Guid> sm_port);

// Every host GUID a group (transitively) names, sorted, without duplicates.
std::vector<Guid> ExpandGroup(const Config& config, const std::string& group);

}  // namespace smsupd::config
