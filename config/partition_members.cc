#include "config/partition_members.h"

#include <algorithm>
#include <set>

namespace smsupd::config {
namespace {

void Strengthen(std::map<Guid, Membership>& ports, Guid guid, Membership membership) {
  auto [it, inserted] = ports.try_emplace(guid, membership);
  if (!inserted) it->second = std::max(it->second, membership);
}

// Every port of `name` and of the groups inside it. Iterative with an
// explicit stack: a chain of groups may be as long as the config (far
// deeper than a recursion could go), and each group is visited once.
void CollectGroup(const Config& config, const std::string& name, std::set<Guid>& out) {
  std::set<std::string> seen;
  std::vector<const std::string*> pending = {&name};
  while (!pending.empty()) {
    const std::string& next = *pending.back();
    pending.pop_back();
    if (!seen.insert(next).second) continue;  // cycles are refused by the validator
    if (auto host = config.hosts.find(next); host != config.hosts.end()) {
      out.insert(host->second.begin(), host->second.end());
      continue;
    }
    auto group = config.groups.find(next);
    if (group == config.groups.end()) continue;
    for (const std::string& member : group->second) pending.push_back(&member);
  }
}

}  // namespace

std::vector<Guid> ExpandGroup(const Config& config, const std::string& group) {
  std::set<Guid> guids;
  CollectGroup(config, group, guids);
  return {guids.begin(), guids.end()};
}

std::map<Guid, Membership> ResolvedMembers::Named() const {
  std::map<Guid, Membership> all = by_group;
  for (const auto& [guid, membership] : by_guid) all[guid] = membership;
  return all;
}

const std::vector<Guid>& MemberResolver::GroupPorts(const std::string& group) {
  auto it = groups_.find(group);
  if (it == groups_.end()) {
    it = groups_.emplace(group, ExpandGroup(config_, group)).first;
    remembered_ += it->second.size();
  }
  return it->second;
}

ResolvedMembers ResolveMembers(const Config& config, const Partition& partition,
                               std::optional<Guid> sm_port) {
  return MemberResolver(config).Resolve(partition, sm_port);
}

ResolvedMembers MemberResolver::Resolve(const Partition& partition, std::optional<Guid> sm_port) {
  const Config& config = config_;
  ResolvedMembers resolved;
  for (const Member& member : partition.members) {
    switch (member.kind) {
      case Member::Kind::kPorts:
        if (member.ports == PortsKeyword::kSelf && sm_port) {
          Strengthen(resolved.by_guid, *sm_port, member.membership);
        } else {
          auto [it, inserted] = resolved.keywords.try_emplace(member.ports, member.membership);
          if (!inserted) it->second = std::max(it->second, member.membership);
        }
        break;
      case Member::Kind::kGroup:
        for (Guid guid : GroupPorts(member.name))
          Strengthen(resolved.by_group, guid, member.membership);
        break;
      case Member::Kind::kHost: {
        auto host = config.hosts.find(member.name);
        if (host == config.hosts.end()) break;
        for (Guid guid : host->second) Strengthen(resolved.by_guid, guid, member.membership);
        break;
      }
      case Member::Kind::kGuid:
        Strengthen(resolved.by_guid, member.guid, member.membership);
        break;
    }
  }
  for (const auto& [guid, membership] : resolved.by_guid) resolved.by_group.erase(guid);
  return resolved;
}

}  // namespace smsupd::config
