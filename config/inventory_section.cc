// hosts: and groups: sections of smsupd.yaml.
#include <algorithm>
#include <functional>
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
    std::string owner;
    for (const auto& [name, guids] : state.config.hosts)
      for (Guid known : guids)
        if (known == *guid) owner = name;
    std::string where = owner == host ? "is listed twice in host '" + host + "'"
                                      : "is already claimed by host '" + owner + "'";
    state.sink.Error(node, path,
                     "GUID " + FormatGuid(*guid) + " " + where + " (line " +
                         std::to_string(LineOf(it->second)) + ")",
                     "give each port GUID to one host only, once");
    return;
  }
  state.config.hosts[host].push_back(*guid);
}

// Reports the cycle through `start`, if any, once per cycle.
void CheckCycles(ValidationState& state) {
  enum class Mark { kNew, kActive, kDone };
  std::map<std::string, Mark> marks;
  std::vector<std::string> stack;
  std::function<void(const std::string&)> visit = [&](const std::string& group) {
    marks[group] = Mark::kActive;
    stack.push_back(group);
    for (const std::string& member : state.config.groups[group]) {
      if (state.config.groups.count(member) == 0) continue;
      if (marks[member] == Mark::kActive) {
        std::string cycle;
        auto from = std::find(stack.begin(), stack.end(), member);
        for (auto it = from; it != stack.end(); ++it) cycle += *it + " -> ";
        state.sink.Error(state.group_nodes[group], "groups." + group,
                         "group cycle: " + cycle + member, "a group may not contain itself");
      } else if (marks[member] == Mark::kNew) {
        visit(member);
      }
    }
    stack.pop_back();
    marks[group] = Mark::kDone;
  };
  for (const auto& [group, members] : state.config.groups)
    if (marks[group] == Mark::kNew) visit(group);
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
      std::string member_path = path + "[" + std::to_string(i) + "]";
      std::optional<std::string> member = ReadString(value[i], member_path, state.sink);
      if (!member) continue;
      bool is_known = state.config.hosts.count(*member) || state.config.groups.count(*member);
      if (!is_known) {
        std::string nearest = NearestName(*member, KnownNames(state.config));
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
