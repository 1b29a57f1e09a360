#include "config/validator.h"

#include <unistd.h>

#include <algorithm>
#include <tuple>

#include "common/atomic_file.h"
#include "config/validator_internal.h"
#include "config/yaml_bounds.h"

namespace smsupd::config {
namespace {

const std::vector<std::string_view> kTopLevelKeys = {
    "version", "node",   "sm",          "state_dir", "control",
    "hosts",   "groups", "limits", "generations", "verify", "apply",
    "metrics", "hooks",   "partitions", "cabling"};

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

void ReadVersion(MappingView& root, ValidationState& state) {
  const YAML::Node* node = root.Require("version", "add 'version: 1' at the top");
  if (node == nullptr) return;
  std::optional<std::int64_t> version;
  if (node->IsScalar()) version = ParseIntegerText(node->Scalar());
  if (version != kSchemaVersion)
    state.sink.Error(*node, "version",
                     "unsupported version '" + (node->IsScalar() ? node->Scalar() : "?") + "'",
                     "valid: 1");
}

void ReadControl(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "control", {"socket", "group"}, state.sink);
  if (const YAML::Node* socket = view.Get("socket"))
    if (auto value = ReadAbsolutePath(*socket, "control.socket", state.sink))
      state.config.control.socket = *value;
  if (const YAML::Node* group = view.Get("group"))
    if (auto value = ReadString(*group, "control.group", state.sink)) {
      if (IsValidName(*value, 32))
        state.config.control.group = *value;
      else
        state.sink.Error(*group, "control.group", "'" + *value + "' is not a group name",
                         "letters, digits, _ . - (at most 32)");
    }
}

void ReadLimits(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "limits", {"pkeys_per_port"}, state.sink);
  if (const YAML::Node* size = view.Get("pkeys_per_port"))
    if (auto value = ReadInteger(*size, "limits.pkeys_per_port", 1, 32768, state.sink))
      state.config.limits.pkeys_per_port = static_cast<int>(*value);
}

void ReadDocument(const YAML::Node& document, ValidationState& state) {
  MappingView root(document, "", kTopLevelKeys, state.sink);
  if (!root.valid()) return;
  ReadVersion(root, state);
  if (const YAML::Node* node = root.Get("node"))
    if (auto value = ReadString(*node, "node", state.sink)) state.config.node = *value;
  if (const YAML::Node* sm = root.Require("sm", "add an 'sm:' section with at least 'role'"))
    ReadSmSection(*sm, state);
  if (const YAML::Node* dir = root.Get("state_dir"))
    if (auto value = ReadAbsolutePath(*dir, "state_dir", state.sink)) state.config.state_dir = *value;
  if (const YAML::Node* control = root.Get("control")) ReadControl(*control, state);
  if (const YAML::Node* hosts = root.Get("hosts")) ReadHosts(*hosts, state);
  if (const YAML::Node* groups = root.Get("groups")) ReadGroups(*groups, state);
  if (const YAML::Node* limits = root.Get("limits")) ReadLimits(*limits, state);
  if (const YAML::Node* generations = root.Get("generations"))
    ReadGenerationsSection(*generations, state);
  if (const YAML::Node* verify = root.Get("verify")) ReadVerifySection(*verify, state);
  if (const YAML::Node* apply = root.Get("apply")) ReadApplySection(*apply, state);
  if (const YAML::Node* metrics = root.Get("metrics")) ReadMetricsSection(*metrics, state);
  if (const YAML::Node* hooks = root.Get("hooks")) ReadHooksSection(*hooks, state);
  if (const YAML::Node* cabling = root.Get("cabling")) ReadCablingSection(*cabling, state);
  if (const YAML::Node* partitions = root.Get("partitions"))
    ReadPartitions(*partitions, state);
  else
    ReadPartitions(YAML::Node(), state);
  if (!state.sink.has_errors() && root.Get("partitions") != nullptr)
    CheckDefaultPartitionKeepsSmFull(*root.Get("partitions"), state);
  if (!state.sink.has_errors()) CheckPKeysPerPort(root.Get("limits") ? *root.Get("limits") : document, state);
}

// File order; findings without a position (about the file as a whole) last;
// the YAML's own findings before those of a file it names (cabling.file).
void SortByPosition(std::vector<Diagnostic>& diagnostics, const std::string& yaml_file) {
  std::stable_sort(diagnostics.begin(), diagnostics.end(),
                   [&](const Diagnostic& a, const Diagnostic& b) {
                     return std::make_tuple(a.file != yaml_file, a.line == 0, a.line, a.column) <
                            std::make_tuple(b.file != yaml_file, b.line == 0, b.line, b.column);
                   });
}

}  // namespace

bool IsValidName(const std::string& name, size_t max_length) {
  if (name.empty() || name.size() > max_length) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
  });
}

namespace {

int ShownErrors(const std::vector<Diagnostic>& diagnostics) {
  return static_cast<int>(std::count_if(diagnostics.begin(), diagnostics.end(),
                                        [](const Diagnostic& d) { return d.severity == Severity::kError; }));
}

}  // namespace

// The summary of hidden diagnostics is one diagnostic too: not counted.
int ValidationOutcome::ErrorCount() const {
  return ShownErrors(diagnostics) - (hidden_errors > 0 ? 1 : 0) + hidden_errors;
}

int ValidationOutcome::WarningCount() const {
  const int summary = hidden_errors == 0 && hidden_warnings > 0 ? 1 : 0;
  return static_cast<int>(diagnostics.size()) - ShownErrors(diagnostics) - summary + hidden_warnings;
}

ValidationOutcome ValidateText(std::string_view yaml, const std::string& file_name,
                               KeyFile key_file, const Deadline& deadline) {
  DiagnosticSink sink(file_name);
  ValidationState state(sink, deadline);
  state.read_key_file = key_file == KeyFile::kRead;
  state.config.source_path = sink.file();
  try {
    if (auto out = CheckYamlBounds(yaml, deadline)) {
      sink.ErrorAt(out->line, out->column, "", out->what, out->valid);
    } else {
      state.config.source_text = std::string(yaml);
      YAML::Node document = YAML::Load(state.config.source_text);
      ReadDocument(document, state);
    }
  } catch (const YAML::Exception& error) {
    sink.ErrorAt(error.mark.line + 1, error.mark.column + 1, "", "YAML syntax error: " + error.msg,
                 "fix the YAML syntax");
  } catch (const DeadlineExceeded&) {
    sink.ErrorAt(0, 0, "", "validation stopped: it took longer than the time a request may take",
                 "validate a smaller config, or on the node with smsupd --check");
  }
  ValidationOutcome outcome;
  outcome.hidden_errors = sink.hidden_errors();
  outcome.hidden_warnings = sink.hidden_warnings();
  outcome.diagnostics = sink.TakeDiagnostics();
  SortByPosition(outcome.diagnostics, sink.file());
  if (outcome.ErrorCount() == 0) {
    if (state.config.node.empty()) state.config.node = HostName();
    outcome.config = std::move(state.config);
  }
  return outcome;
}

ValidationOutcome LoadAndValidate(const std::string& path, const Deadline& deadline) {
  Result<std::string> text = ReadWholeFile(path, kMaxConfigBytes);
  if (!text.ok()) {
    ValidationOutcome outcome;
    outcome.unreadable = true;
    outcome.diagnostics.push_back(
        Diagnostic{Severity::kError, path, 0, 0, "", text.error().message, ""});
    return outcome;
  }
  return ValidateText(*text, path, KeyFile::kRead, deadline);
}

}  // namespace smsupd::config
