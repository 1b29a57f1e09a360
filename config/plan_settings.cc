// PlanConfigChange: opensm.conf options and every other setting.
#include <algorithm>

#include "common/secrets.h"
#include "config/node_name_map.h"
#include "config/opensm_options.h"
#include "config/plan.h"
#include "config/renderer.h"

namespace smsupd::config::plan_internal {
namespace {

// Reported in ConfigPlan::other, not as options: the failover policy decides
// the rendered sm_priority (RenderInputs::sm_priority), and the key is secret.
bool ReportedElsewhere(std::string_view option) {
  return option == "sm_priority" || option == "sm_key";
}

// The port the daemon renders `guid` with: sm.port_guid, else the port it runs on.
RenderInputs InputsFor(const Config& config, Guid local_sm_port) {
  RenderInputs inputs;
  if (config.sm.port_guid)
    inputs.port_guid = config.sm.port_guid;
  else if (local_sm_port != 0)
    inputs.port_guid = local_sm_port;
  return inputs;
}

std::string ValueOr(const std::map<std::string, std::string>& values, const OpenSmOption& option) {
  auto it = values.find(std::string(option.name));
  return it != values.end() ? it->second : std::string(option.default_value);
}

// Above this many hosts (or groups) changed, one count line replaces the list.
constexpr size_t kListedInventoryChanges = 10;

class SettingLines {
 public:
  template <typename T>
  void Compare(const std::string& path, const T& before, const T& after) {
    if (before != after) lines_.push_back(path + " " + Text(before) + " -> " + Text(after));
  }
  void Add(std::string line) { lines_.push_back(std::move(line)); }
  std::vector<std::string> Take() { return std::move(lines_); }

 private:
  static std::string Text(const std::string& value) { return value.empty() ? "none" : value; }
  static std::string Text(int value) { return std::to_string(value); }
  static std::string Text(bool value) { return value ? "true" : "false"; }
  std::vector<std::string> lines_;
};

// "hosts: gpu03 added", ... or "hosts: +120, -3, 2 changed" for many.
template <typename Value>
void CompareInventory(const char* what, const std::map<std::string, Value>& before,
                      const std::map<std::string, Value>& after, SettingLines& lines) {
  std::vector<std::string> added, removed, changed;
  for (const auto& [name, value] : after) {
    auto it = before.find(name);
    if (it == before.end())
      added.push_back(name);
    else if (it->second != value)
      changed.push_back(name);
  }
  for (const auto& [name, value] : before)
    if (after.count(name) == 0) removed.push_back(name);
  if (added.size() + removed.size() + changed.size() > kListedInventoryChanges) {
    lines.Add(std::string(what) + ": +" + std::to_string(added.size()) + ", -" +
              std::to_string(removed.size()) + ", " + std::to_string(changed.size()) + " changed");
    return;
  }
  for (const std::string& name : added) lines.Add(std::string(what) + ": " + name + " added");
  for (const std::string& name : removed) lines.Add(std::string(what) + ": " + name + " removed");
  for (const std::string& name : changed) lines.Add(std::string(what) + ": " + name + " changed");
}

void CompareSm(const SmSettings& before, const SmSettings& after, SettingLines& lines) {
  lines.Compare("sm.role", std::string(RoleName(before.role)), std::string(RoleName(after.role)));
  lines.Compare("sm.priority", before.priority, after.priority);
  lines.Compare("sm.preempt", before.preempt, after.preempt);
  lines.Compare("sm.sm_key_file", before.sm_key_file, after.sm_key_file);
  lines.Compare("sm.m_key_file", before.m_key_file, after.m_key_file);
  lines.Compare("sm.sa_key_file", before.sa_key_file, after.sa_key_file);
  if (before.sm_key != after.sm_key)
    lines.Add(!before.sm_key  ? "sm.sm_key set"
              : !after.sm_key ? "sm.sm_key removed"
                              : "sm.sm_key changed");
  if (before.opensm.binary != after.opensm.binary)
    lines.Add("sm.opensm.binary " + before.opensm.binary + " -> " + after.opensm.binary +
              " (used when OpenSM next starts)");
  const FailoverSettings& a = before.failover;
  const FailoverSettings& b = after.failover;
  lines.Compare("sm.failover.poll_interval_ms", a.poll_interval_ms, b.poll_interval_ms);
  lines.Compare("sm.failover.miss_threshold", a.miss_threshold, b.miss_threshold);
  lines.Compare("sm.failover.inventory_interval_ms", a.inventory_interval_ms,
                b.inventory_interval_ms);
  lines.Compare("sm.failover.hold_time_s", a.hold_time_s, b.hold_time_s);
  lines.Compare("sm.failover.handover_timeout_ms", a.handover_timeout_ms, b.handover_timeout_ms);
  lines.Compare("sm.failover.master_sweep_timeout_ms", a.master_sweep_timeout_ms,
                b.master_sweep_timeout_ms);
}

bool SameCables(const std::vector<DeclaredCable>& before, const std::vector<DeclaredCable>& after) {
  return std::equal(before.begin(), before.end(), after.begin(), after.end(),
                    [](const DeclaredCable& a, const DeclaredCable& b) {
                      return a.a == b.a && a.b == b.b && a.cable_type == b.cable_type && a.length == b.length &&
                             a.rate == b.rate;
                    });
}

// The cabling (its rows, wherever they are) and the node-name map rendered
// from it, which OpenSM reads only when it starts.
void CompareCabling(const Config& before, const Config& after, SettingLines& lines) {
  lines.Compare("cabling.file", before.cabling.file, after.cabling.file);
  // A plan's text is validated without opening the files it names
  // (KeyFile::kNameOnly): its CSV rows are unknown, not gone.
  auto unread = [](const Config& config) { return !config.cabling.file.empty() && config.cabling.file_sha256.empty(); };
  if (unread(before) || unread(after)) return;
  const auto& old_cables = before.cabling.cables;
  const auto& new_cables = after.cabling.cables;
  if (old_cables.size() != new_cables.size())
    lines.Add("cabling: " + std::to_string(old_cables.size()) + " -> " + std::to_string(new_cables.size()) +
              " cables");
  else if (!SameCables(old_cables, new_cables))
    lines.Add("cabling: cables changed");
  std::map<std::uint64_t, std::string> old_names = NodeNamesFromConfig(before);
  std::map<std::uint64_t, std::string> new_names = NodeNamesFromConfig(after);
  if (old_names != new_names)
    lines.Add("node-name map: " + std::to_string(old_names.size()) + " -> " + std::to_string(new_names.size()) +
              " names (OpenSM reads it when it next starts; the diagnostic tools at once)");
}

}  // namespace

std::vector<OptionPlan> PlanOptions(const Config& before, const Config& after, Guid local_sm_port) {
  std::map<std::string, std::string> old_values =
      OpenSmOptionValues(before, InputsFor(before, local_sm_port));
  std::map<std::string, std::string> new_values =
      OpenSmOptionValues(after, InputsFor(after, local_sm_port));
  std::vector<OptionPlan> options;
  for (const OpenSmOption& option : AllOpenSmOptions()) {
    if (ReportedElsewhere(option.name)) continue;
    std::string old_value = ValueOr(old_values, option);
    std::string new_value = ValueOr(new_values, option);
    if (old_value == new_value) continue;
    if (IsSecretOption(option.name)) old_value = new_value = std::string(kRedacted);
    options.push_back(
        {std::string(option.name), old_value, new_value, !option.changeable_at_runtime});
  }
  return options;
}

std::vector<std::string> PlanOtherSettings(const Config& before, const Config& after) {
  SettingLines lines;
  lines.Compare("node", before.node, after.node);
  CompareSm(before.sm, after.sm, lines);
  lines.Compare("state_dir", before.state_dir, after.state_dir);
  lines.Compare("control.socket", before.control.socket, after.control.socket);
  lines.Compare("control.group", before.control.group, after.control.group);
  lines.Compare("limits.pkeys_per_port", before.limits.pkeys_per_port, after.limits.pkeys_per_port);
  lines.Compare("generations.keep", before.generations.keep, after.generations.keep);
  lines.Compare("verify.sample_ports", before.verify.sample_ports, after.verify.sample_ports);
  lines.Compare("verify.timeout_s", before.verify.timeout_s, after.verify.timeout_s);
  lines.Compare("apply.twin", std::string(TwinGateName(before.apply.twin)), std::string(TwinGateName(after.apply.twin)));
  lines.Compare("apply.twin_readiness_interval_s", before.apply.twin_readiness_interval_s,
                after.apply.twin_readiness_interval_s);
  lines.Compare("metrics.listen", before.metrics.listen, after.metrics.listen);
  lines.Compare("metrics.allow_remote", before.metrics.allow_remote, after.metrics.allow_remote);
  lines.Compare("hooks.directory", before.hooks.directory, after.hooks.directory);
  lines.Compare("hooks.timeout_ms", before.hooks.timeout_ms, after.hooks.timeout_ms);
  CompareInventory("hosts", before.hosts, after.hosts, lines);
  CompareInventory("groups", before.groups, after.groups, lines);
  CompareCabling(before, after, lines);
  return lines.Take();
}

}  // namespace smsupd::config::plan_internal
