// sm: and sm.opensm: sections of smsupd.yaml.
#include "common/secrets.h"
#include "config/key_file.h"
#include "config/opensm_options.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

const std::vector<std::string_view> kSmKeys = {"port_guid",  "role",        "priority",
                                               "preempt",    "sm_key_file", "m_key_file",
                                               "sa_key_file", "opensm",     "failover"};

// sm.<name>_key_file: the path, and the key read from it unless the text
// comes from a caller the daemon opens no file for (KeyFile::kNameOnly).
void ReadKeyFileSetting(const YAML::Node& node, const std::string& path, std::string& file,
                        std::optional<std::uint64_t>& key, ValidationState& state) {
  std::optional<std::string> value = ReadAbsolutePath(node, path, state.sink);
  if (!value) return;
  file = *value;
  if (!state.read_key_file) return;
  std::string fix;
  Result<std::uint64_t> read = ReadKeyFile(file, fix);
  if (read.ok())
    key = *read;
  else
    state.sink.Error(node, path, read.error().message, fix);
}

// The failover policy drives OpenSM's election through priorities of its own
// (docs/failover.md): a configured 0 or 14 would be mistaken for a master
// yielding or a standby claiming mastership.
bool CheckPriorityNotReserved(const YAML::Node& at, int priority, ValidationState& state) {
  if (priority != kYieldingPriority && priority != kClaimPriority) return true;
  state.sink.Error(at, "sm.priority",
                   "priority " + std::to_string(priority) + " is reserved by the failover policy (" +
                       (priority == kYieldingPriority ? "0 = a master yielding mastership"
                                                      : "14 = a standby claiming mastership") +
                       ")",
                   "use 1..13 or 15 (defaults: 15 master, 5 standby)");
  return false;
}

void CheckPriorityForRole(const YAML::Node& at, ValidationState& state) {
  const SmSettings& sm = state.config.sm;
  if (sm.role == Role::kMaster && sm.priority <= kDefaultStandbyPriority)
    state.sink.Warning(at, "sm.priority",
                       "role master with priority " + std::to_string(sm.priority) +
                           " ranks no higher than a default standby",
                       "use a priority above 5 for a master (default 15)");
  if (sm.role == Role::kStandby && sm.priority >= kDefaultMasterPriority)
    state.sink.Warning(at, "sm.priority",
                       "role standby with priority " + std::to_string(sm.priority) +
                           " ranks as high as a master",
                       "use a priority below 15 for a standby (default 5)");
}

void ReadOption(const YAML::Node& key, const YAML::Node& value, const std::string& path,
                ValidationState& state) {
  std::string name = key.Scalar();
  std::string option_path = path + "." + name;
  const OpenSmOption* option = FindOpenSmOption(name);
  if (option == nullptr) {
    std::string nearest = NearestOptionName(name);
    state.sink.Error(key, option_path, "unknown OpenSM option '" + name + "'",
                     nearest.empty() ? "see `opensm -c FILE` for the option names"
                                     : "did you mean '" + nearest + "'?");
    return;
  }
  // A key in smsupd.yaml would be as readable as the file (0644 as
  // packaged) and shown by every diff of it: keys come from key files only.
  if (IsSecretOption(name)) {
    state.sink.Error(key, option_path, "'" + name + "' is a key, and smsupd.yaml holds no key",
                     "put it in a file owned by root, mode 0600, and name that file in " +
                         std::string(option->use_instead));
    return;
  }
  if (option->owned_by_smsupd) {
    state.sink.Error(key, option_path, "option '" + name + "' is owned by smsupd",
                     "use " + std::string(option->use_instead));
    return;
  }
  if (!value.IsScalar() || value.Scalar().empty()) {
    state.sink.Error(value, option_path, "has no value", "expected a scalar value");
    return;
  }
  bool is_yaml_bool = value.Tag() != "!" && (value.Scalar() == "true" || value.Scalar() == "false");
  Result<std::string> normalized = NormalizeOptionValue(*option, value.Scalar(), is_yaml_bool);
  if (!normalized.ok()) {
    const std::string shown = IsSecretOption(name) ? std::string(kRedacted) : value.Scalar();
    state.sink.Error(value, option_path, "'" + shown + "' is not valid for " + name,
                     "expected " + normalized.error().message);
    return;
  }
  state.config.sm.opensm.options[name] = *normalized;
}

void ReadOptions(const YAML::Node& node, const std::string& path, ValidationState& state) {
  if (!node.IsMap()) {
    state.sink.Error(node, path, "is not a mapping", "expected 'option_name: value' lines");
    return;
  }
  std::map<std::string, int> seen;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) continue;
    if (seen[entry.first.Scalar()]++ > 0) {
      state.sink.Error(entry.first, path + "." + entry.first.Scalar(), "duplicate option",
                       "give each option once");
      continue;
    }
    ReadOption(entry.first, entry.second, path, state);
  }
}

}  // namespace

void ReadOpenSmSection(const YAML::Node& node, const std::string& path, ValidationState& state) {
  MappingView view(node, path, {"binary", "log_file", "options"}, state.sink);
  OpenSmSettings& opensm = state.config.sm.opensm;
  if (const YAML::Node* binary = view.Get("binary"))
    if (auto value = ReadAbsolutePath(*binary, view.PathOf("binary"), state.sink)) opensm.binary = *value;
  if (const YAML::Node* log = view.Get("log_file"))
    if (auto value = ReadAbsolutePath(*log, view.PathOf("log_file"), state.sink)) opensm.log_file = *value;
  if (const YAML::Node* options = view.Get("options")) ReadOptions(*options, view.PathOf("options"), state);
}

void ReadSmSection(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "sm", kSmKeys, state.sink);
  if (!view.valid()) return;
  SmSettings& sm = state.config.sm;
  if (const YAML::Node* guid = view.Get("port_guid"))
    if (auto value = ReadGuid(*guid, "sm.port_guid", state.sink)) sm.port_guid = *value;
  if (const YAML::Node* role = view.Require("role", "add 'role: master' or 'role: standby'"))
    if (auto value = ReadChoice(*role, "sm.role", {"master", "standby"}, state.sink))
      sm.role = *value == "master" ? Role::kMaster : Role::kStandby;
  sm.priority = sm.role == Role::kMaster ? kDefaultMasterPriority : kDefaultStandbyPriority;
  if (const YAML::Node* priority = view.Get("priority"))
    if (auto value = ReadInteger(*priority, "sm.priority", 0, 15, state.sink);
        value && CheckPriorityNotReserved(*priority, static_cast<int>(*value), state)) {
      sm.priority = static_cast<int>(*value);
      CheckPriorityForRole(*priority, state);
    }
  if (const YAML::Node* preempt = view.Get("preempt"))
    if (auto value = ReadBool(*preempt, "sm.preempt", state.sink)) sm.preempt = *value;
  if (const YAML::Node* file = view.Get("sm_key_file"))
    ReadKeyFileSetting(*file, "sm.sm_key_file", sm.sm_key_file, sm.sm_key, state);
  if (const YAML::Node* file = view.Get("m_key_file"))
    ReadKeyFileSetting(*file, "sm.m_key_file", sm.m_key_file, sm.m_key, state);
  if (const YAML::Node* file = view.Get("sa_key_file"))
    ReadKeyFileSetting(*file, "sm.sa_key_file", sm.sa_key_file, sm.sa_key, state);
  if (const YAML::Node* opensm = view.Get("opensm")) ReadOpenSmSection(*opensm, "sm.opensm", state);
  if (const YAML::Node* failover = view.Get("failover")) ReadFailoverSection(*failover, state);
}

}  // namespace smsupd::config
