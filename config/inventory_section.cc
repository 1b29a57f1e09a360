// hosts: and groups: sections of smsupd.yaml.
#include <algorithm>
#include <set>

#include "config/edit_distance.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

constexpr size_t kMaxInventoryName = 64;
const char* kNameRule = "letters, digits, _ . - (at most 64 characters)";

void ReadHostGuid(const YAML::Node& node, const std::string& host, const std::string& path,
                  ValidationState& state) {
  std::optional<Guid> guid = ReadGuid(node, path, state.sink);
  if (!guid) return;
  auto [it, inserted] = state.guid_nodes.try_emplace(*guid, node);
  if (!inserted) {
    const std::string& owner = state.guid_hosts[*guid];
    std::string where = owner == host ? "is listed twice in host '" + host + "'"
                                      : "is already claimed by host '" + owner + "'";
    state.sink.Error(node, path,
                     "GUID " + FormatGuid(*guid) + " " + where + " (line " +
                         std::to_string(LineOf(it->second)) + ")",
                     "give each port GUID to one host only, once");
    return;
  }
  state.guid_hosts.emplace(*guid, host);
  state.config.hosts[host].push_back(*guid);
}

// "a -> b -> c -> a" for the cycle that closes at stack[from..], cut to
// about kMaxDiagnosticPartBytes however long the cycle is.
std::string CycleText(const std::vector<std::string>& stack, std::size_t from) {
  std::string text;
  for (std::size_t i = from; i < stack.size(); ++i) {
    if (text.size() > kMaxDiagnosticPartBytes) return text + "... -> " + stack[from];
    text += stack[i] + " -> ";
  }
  return text + stack[from];
}

// Reports every cycle among the groups, each where a group names the group
// that closes it. Depth-first, with an explicit stack: a chain of groups is
// as long as the caller writes it (bounded by kMaxYamlNodes only), far
// deeper than the thread's stack would allow a recursion.
void CheckCycles(ValidationState& state) {
  enum class Mark { kNew, kActive, kDone };
  std::map<std::string, Mark> marks;
  std::map<std::string, std::size_t> position;  // of each active group in `path`
  std::vector<std::string> path;                 // the active groups, outermost first
  std::vector<std::size_t> next_member;          // per entry of `path`
  for (const auto& [root, unused] : state.config.groups) {
    if (marks[root] != Mark::kNew) continue;
    marks[root] = Mark::kActive, position[root] = 0, path = {root}, next_member = {0};
    while (!path.empty()) {
      state.deadline.Check();
      const std::string& group = path.back();
      const std::vector<std::string>& members = state.config.groups[group];
      if (next_member.back() == members.size()) {
        marks[group] = Mark::kDone;
        position.erase(group);
        path.pop_back(), next_member.pop_back();
        continue;
      }
      const std::string& member = members[next_member.back()++];
      if (state.config.groups.count(member) == 0) continue;
      if (marks[member] == Mark::kActive) {
        state.sink.Error(state.group_nodes[group], "groups." + group,
                         "group cycle: " + CycleText(path, position[member]),
                         "a group may not contain itself");
      } else if (marks[member] == Mark::kNew) {
        marks[member] = Mark::kActive, position[member] = path.size();
        path.push_back(member), next_member.push_back(0);
      }
    }
  }
}

}  // namespace

// Only for "did you mean" hints: the list is long in big inventories.
std::vector<std::string_view> KnownNames(const Config& config) {
  std::vector<std::string_view> known;
  for (const auto& [host, guids] : config.hosts) known.push_back(host);
  for (const auto& [group, members] : config.groups) known.push_back(group);
  return known;
}

void ReadHosts(const YAML::Node& node, ValidationState& state) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    state.sink.Error(node, "hosts", "is not a mapping", "expected 'name: 0xGUID' or 'name: [0xGUID, ...]'");
    return;
  }
  for (const auto& entry : node) {
    state.deadline.Check();
    std::string name = entry.first.Scalar();
    std::string path = "hosts." + name;
    if (!IsValidName(name, kMaxInventoryName)) {
      state.sink.Error(entry.first, path, "'" + name + "' is not a valid host name", kNameRule);
      continue;
    }
    if (!state.host_nodes.try_emplace(name, entry.first).second) {
      state.sink.Error(entry.first, path, "duplicate host '" + name + "'", "give each host once");
      continue;
    }
    state.config.hosts[name];
    const YAML::Node& value = entry.second;
    if (value.IsSequence() && value.size() > 0) {
      for (size_t i = 0; i < value.size(); ++i)
        ReadHostGuid(value[i], name, path + "[" + std::to_string(i) + "]", state);
    } else if (value.IsScalar()) {
      ReadHostGuid(value, name, path, state);
    } else {
      state.sink.Error(value.IsNull() ? entry.first : value, path, "has no port GUID",
                       "expected 0xGUID or [0xGUID, ...]");
    }
  }
}

void ReadGroups(const YAML::Node& node, ValidationState& state) {
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    state.sink.Error(node, "groups", "is not a mapping", "expected 'name: [host or group, ...]'");
    return;
  }
  for (const auto& entry : node) {
    state.deadline.Check();
    std::string name = entry.first.Scalar();
    std::string path = "groups." + name;
    if (!IsValidName(name, kMaxInventoryName)) {
      state.sink.Error(entry.first, path, "'" + name + "' is not a valid group name", kNameRule);
    } else if (state.host_nodes.count(name) != 0) {
      state.sink.Error(entry.first, path, "'" + name + "' is already a host name",
                       "give groups and hosts different names");
    } else if (!state.group_nodes.try_emplace(name, entry.first).second) {
      state.sink.Error(entry.first, path, "duplicate group '" + name + "'", "give each group once");
    } else {
      state.config.groups[name];
      continue;
    }
    state.group_nodes.erase(name);  // only well-formed groups are resolved below
  }
  for (const auto& entry : node) {
    std::string name = entry.first.Scalar();
    if (state.config.groups.count(name) == 0) continue;
    const YAML::Node& value = entry.second;
    std::string path = "groups." + name;
    if (!value.IsSequence()) {
      state.sink.Error(value.IsNull() ? entry.first : value, path, "is not a list",
                       "expected [host or group, ...]");
      continue;
    }
    for (size_t i = 0; i < value.size(); ++i) {
      state.deadline.Check();
      std::string member_path = path + "[" + std::to_string(i) + "]";
      std::optional<std::string> member = ReadString(value[i], member_path, state.sink);
      if (!member) continue;
      bool is_known = state.config.hosts.count(*member) || state.config.groups.count(*member);
      if (!is_known) {
        std::string nearest = state.sink.full() ? "" : NearestName(*member, KnownNames(state.config));
        state.sink.Error(value[i], member_path, "unknown host or group '" + *member + "'",
                         nearest.empty() ? "define it under hosts: or groups:"
                                         : "did you mean '" + nearest + "'?");
        continue;
      }
      state.config.groups[name].push_back(*member);
    }
  }
  CheckCycles(state);
}

}  // namespace smsupd::config
