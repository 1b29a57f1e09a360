// PlanConfigChange: partitions and ports. Options and the other settings are
// in plan_settings.cc, the printed forms in plan_format.cc.
#include "config/plan.h"

#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "common/guid.h"

namespace smsupd::config {
namespace {

std::string Optional(const std::optional<int>& value) {
  return value ? std::to_string(*value) : "none";
}

std::string RateText(const std::optional<double>& gbps) {
  if (!gbps) return "none";
  char text[32];
  std::snprintf(text, sizeof text, "%g", *gbps);
  return text;
}

// A partition's definition, field by field, as the plan prints it.
std::vector<std::pair<const char*, std::string>> DefinitionFields(const Partition& partition) {
  return {{"pkey", FormatHex(partition.pkey, 4)},
          {"ipoib", partition.ipoib ? "true" : "false"},
          {"mtu", Optional(partition.mtu)},
          {"rate", RateText(partition.rate_gbps)},
          {"sl", Optional(partition.sl)},
          {"scope", Optional(partition.scope)},
          {"qkey", partition.qkey ? FormatHex(*partition.qkey, 8) : "none"},
          {"tclass", Optional(partition.tclass)},
          {"indx0", partition.indx0 ? "true" : "false"},
          {"defmember", partition.defmember ? MembershipName(*partition.defmember) : "none"}};
}

std::vector<std::string> DefinitionChanges(const Partition& before, const Partition& after) {
  std::vector<std::string> changes;
  if (before.name != after.name) changes.push_back("name " + before.name + " -> " + after.name);
  auto old_fields = DefinitionFields(before);
  auto new_fields = DefinitionFields(after);
  for (size_t i = 0; i < old_fields.size(); ++i)
    if (old_fields[i].second != new_fields[i].second)
      changes.push_back(std::string(old_fields[i].first) + " " + old_fields[i].second + " -> " +
                        new_fields[i].second);
  return changes;
}

// An added partition's settings: every flag that is set (the P_Key has its
// own field).
std::vector<std::string> DefinitionSettings(const Partition& partition) {
  std::vector<std::string> settings;
  for (const auto& [field, text] : DefinitionFields(partition)) {
    if (text == "false" || text == "none" || std::string_view(field) == "pkey") continue;
    settings.push_back(text == "true" ? std::string(field) : std::string(field) + " " + text);
  }
  return settings;
}

// Host name of every GUID either inventory knows (`after` wins).
std::map<Guid, std::string> HostNames(const Config& before, const Config& after) {
  std::map<Guid, std::string> names;
  for (const Config* config : {&after, &before})
    for (const auto& [host, guids] : config->hosts)
      for (Guid guid : guids) names.try_emplace(guid, host);
  return names;
}

// Every change is counted in `total`; only the first `listed` are kept.
std::vector<MemberChange> MemberChanges(const std::map<Guid, Membership>& before,
                                        const std::map<Guid, Membership>& after,
                                        const std::map<Guid, std::string>& names,
                                        std::size_t listed, std::size_t& total) {
  std::set<Guid> guids;
  for (const auto& [guid, membership] : before) guids.insert(guid);
  for (const auto& [guid, membership] : after) guids.insert(guid);
  auto name_of = [](const std::map<Guid, Membership>& ports, Guid guid) -> std::string {
    auto it = ports.find(guid);
    return it == ports.end() ? "" : MembershipName(it->second);
  };
  std::vector<MemberChange> changes;
  for (Guid guid : guids) {
    MemberChange change{guid, "", name_of(before, guid), name_of(after, guid)};
    if (change.before == change.after) continue;
    if (++total > listed) continue;
    if (auto it = names.find(guid); it != names.end()) change.host = it->second;
    changes.push_back(std::move(change));
  }
  return changes;
}

// The port the applying SM binds: what SELF and OpenSM's 0x7fff base mean.
std::optional<Guid> SmPortOf(const Config& after, const std::vector<FabricPort>& ports,
                             Guid local_sm_port) {
  if (local_sm_port != 0) return local_sm_port;
  if (after.sm.port_guid) return after.sm.port_guid;
  for (const FabricPort& port : ports)
    if (port.is_sm_port) return port.guid;
  return std::nullopt;
}

void AddNamedPorts(const Config& config, std::set<Guid>& guids) {
  for (const auto& [host, host_guids] : config.hosts)
    guids.insert(host_guids.begin(), host_guids.end());
  for (const Partition& partition : config.partitions)
    for (const Member& member : partition.members)
      if (member.kind == Member::Kind::kGuid) guids.insert(member.guid);
  if (config.sm.port_guid) guids.insert(*config.sm.port_guid);
}

// `ports` plus every port either config names, exactly one marked as the SM's.
std::vector<FabricPort> PortUniverse(const Config& before, const Config& after,
                                     const std::vector<FabricPort>& ports, Guid local_sm_port) {
  std::optional<Guid> sm_port = SmPortOf(after, ports, local_sm_port);
  std::vector<FabricPort> universe;
  std::set<Guid> known;
  for (FabricPort port : ports) {
    if (!known.insert(port.guid).second) continue;
    port.is_sm_port = sm_port && port.guid == *sm_port;
    universe.push_back(port);
  }
  std::set<Guid> named;
  AddNamedPorts(before, named);
  AddNamedPorts(after, named);
  if (sm_port) named.insert(*sm_port);
  for (Guid guid : named)
    if (known.insert(guid).second)
      universe.push_back(FabricPort{guid, PortKind::kCa, sm_port && guid == *sm_port});
  return universe;
}

// Pairs each unpaired partition of `after`, in order, with the first unused
// one of `before` whose `key` is the same. A map per key: a config may hold
// many thousands of partitions, and a scan of `before` for each would be
// quadratic.
template <typename KeyOf>
void PairBy(const std::vector<PartitionMembership>& before,
            const std::vector<PartitionMembership>& after,
            std::vector<const PartitionMembership*>& match, std::vector<bool>& used, KeyOf key_of) {
  std::map<decltype(key_of(before[0].partition)), std::deque<std::size_t>> unused;
  for (std::size_t j = 0; j < before.size(); ++j)
    if (!used[j]) unused[key_of(before[j].partition)].push_back(j);
  for (std::size_t i = 0; i < after.size(); ++i) {
    auto candidates = unused.find(key_of(after[i].partition));
    if (match[i] != nullptr || candidates == unused.end()) continue;
    std::deque<std::size_t>& queue = candidates->second;
    while (!queue.empty() && used[queue.front()]) queue.pop_front();
    if (queue.empty()) continue;
    match[i] = &before[queue.front()];
    used[queue.front()] = true;
    queue.pop_front();
  }
}

// Pairs each partition of `after` with the one of `before` of the same name,
// else the same P_Key (a rename); unpaired ones are added or removed.
std::vector<std::pair<const PartitionMembership*, const PartitionMembership*>> PairPartitions(
    const std::vector<PartitionMembership>& before, const std::vector<PartitionMembership>& after) {
  std::vector<const PartitionMembership*> match(after.size(), nullptr);
  std::vector<bool> used(before.size(), false);
  PairBy(before, after, match, used, [](const Partition& p) { return p.name; });
  PairBy(before, after, match, used, [](const Partition& p) { return p.pkey; });
  std::vector<std::pair<const PartitionMembership*, const PartitionMembership*>> pairs;
  for (size_t i = 0; i < after.size(); ++i) pairs.emplace_back(match[i], &after[i]);
  for (std::size_t j = 0; j < before.size(); ++j)
    if (!used[j]) pairs.emplace_back(&before[j], nullptr);
  return pairs;
}

// `listed`: how many more member changes the plan may list.
std::optional<PartitionPlan> PlanPartition(const PartitionMembership* before,
                                           const PartitionMembership* after,
                                           const std::map<Guid, std::string>& names,
                                           std::size_t listed) {
  static const std::map<Guid, Membership> kNone;
  const Partition& shown = after != nullptr ? after->partition : before->partition;
  PartitionPlan plan;
  plan.name = shown.name;
  plan.pkey = shown.pkey;
  plan.members = MemberChanges(before ? before->ports : kNone, after ? after->ports : kNone, names,
                               listed, plan.members_total);
  if (before == nullptr) {
    plan.kind = PartitionPlan::Kind::kAdded;
    plan.changes = DefinitionSettings(shown);
  } else if (after == nullptr) {
    plan.kind = PartitionPlan::Kind::kRemoved;
  } else {
    plan.kind = PartitionPlan::Kind::kChanged;
    plan.changes = DefinitionChanges(before->partition, after->partition);
    if (plan.changes.empty() && plan.members_total == 0) return std::nullopt;
  }
  return plan;
}

int CountChangedPorts(const std::vector<PartitionMembership>& before,
                      const std::vector<PartitionMembership>& after,
                      const std::vector<FabricPort>& ports) {
  auto old_tables = PKeyEntriesOf(before, ports);
  auto new_tables = PKeyEntriesOf(after, ports);
  int changed = 0;
  for (const FabricPort& port : ports) changed += old_tables[port.guid] != new_tables[port.guid];
  return changed;
}

}  // namespace

const char* PartitionPlanKindName(PartitionPlan::Kind kind) {
  switch (kind) {
    case PartitionPlan::Kind::kAdded:
      return "added";
    case PartitionPlan::Kind::kRemoved:
      return "removed";
    case PartitionPlan::Kind::kChanged:
      return "changed";
  }
  return "changed";
}

ConfigPlan PlanConfigChange(const Config& before, const Config& after,
                            const std::vector<FabricPort>& ports, Guid local_sm_port,
                            const Deadline& deadline) {
  ConfigPlan plan;
  std::vector<FabricPort> universe = PortUniverse(before, after, ports, local_sm_port);
  std::vector<PartitionMembership> old_partitions = PartitionMemberships(before, universe);
  deadline.CheckNow();
  std::vector<PartitionMembership> new_partitions = PartitionMemberships(after, universe);
  deadline.CheckNow();
  std::map<Guid, std::string> names = HostNames(before, after);
  std::size_t listed = 0;
  for (const auto& [old_one, new_one] : PairPartitions(old_partitions, new_partitions)) {
    deadline.Check();
    if (auto partition = PlanPartition(old_one, new_one, names, kMaxListedMemberChanges - listed)) {
      listed += partition->members.size();
      plan.partitions.push_back(std::move(*partition));
    }
  }
  deadline.CheckNow();
  plan.ports_changed = CountChangedPorts(old_partitions, new_partitions, universe);
  deadline.CheckNow();
  plan.options = plan_internal::PlanOptions(before, after, local_sm_port);
  for (const OptionPlan& option : plan.options) plan.needs_restart |= option.needs_restart;
  plan.other = plan_internal::PlanOtherSettings(before, after);
  plan.opensm_affected = !plan.partitions.empty() || !plan.options.empty() ||
                         plan.ports_changed > 0 || before.sm.priority != after.sm.priority ||
                         before.sm.sm_key != after.sm.sm_key;
  plan.changed = !plan.partitions.empty() || !plan.options.empty() || !plan.other.empty() ||
                 plan.ports_changed > 0;
  return plan;
}

}  // namespace smsupd::config
