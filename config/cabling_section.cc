// cabling: section of smsupd.yaml (docs/cabling.md): the cabling as
// declared, either inline (cables:) or as the CSV file it names (file:).
// Both forms go through the same row checks (config/cabling_rows.h). A
// file is read here, at validation: its errors make the whole config
// invalid, like the YAML's own.
#include <sys/stat.h>

#include <array>
#include <set>

#include "common/atomic_file.h"
#include "config/cabling_rows.h"
#include "config/node_name_map.h"
#include "config/sha256.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

// A device name the node-name map cannot hold as it is (config/node_name_map.h)
// is written there escaped or cut: said once per name, at its first row.
void WarnAboutMapNames(const std::vector<DeclaredCable>& cables, const std::string& file, ValidationState& state) {
  std::set<std::string> seen;
  for (const DeclaredCable& cable : cables)
    for (const CableEnd* end : {&cable.a, &cable.b}) {
      if (!end->node_guid || !seen.insert(end->device).second) continue;
      std::string written = NodeNameMapName(end->device);
      if (written == end->device) continue;
      state.sink.AddFromFile(Diagnostic{Severity::kWarning, file, cable.line, 1, "",
                                        "'" + end->device + "' is written '" + written + "' in OpenSM's node-name map",
                                        "a name without '\"', '#', '\\', control characters or leading blanks, "
                                        "at most " + std::to_string(kMaxNodeNameMapNameBytes) + " bytes"});
    }
}

void ReadCablingFile(const YAML::Node& node, ValidationState& state) {
  auto path = ReadAbsolutePath(node, "cabling.file", state.sink);
  if (!path) return;
  CablingSettings& cabling = state.config.cabling;
  cabling.file = *path;
  // A text from someone the daemon opens no file for (smctl plan) only names it.
  if (!state.read_key_file) return;
  struct stat info {};
  if (::stat(path->c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    state.sink.Error(node, "cabling.file", "'" + *path + "' is not a regular file",
                     "a CSV file (docs/cabling.md)");
    return;
  }
  Result<std::string> text = ReadWholeFile(*path, kMaxCablingBytes);
  if (!text.ok()) {
    state.sink.Error(node, "cabling.file", "cannot read the cabling file: " + text.error().message,
                     "a readable CSV file of at most " + std::to_string(kMaxCablingBytes) + " bytes");
    return;
  }
  state.deadline.Check();
  CablingParse parse = ParseCablingCsv(*text, *path);
  for (const Diagnostic& diagnostic : parse.diagnostics) state.sink.AddFromFile(diagnostic);
  if (!parse.ok()) return;
  WarnAboutMapNames(parse.cables, *path, state);
  cabling.cables = std::move(parse.cables);
  cabling.file_sha256 = Sha256Hex(*text);
}

// One mapping of cabling.cables as a row for the checker; false when the
// YAML itself is wrong (an unknown key, a list for a name, a required key
// missing): reported here, and the row is not checked further.
bool InlineRow(const YAML::Node& item, const std::string& path, ValidationState& state, CablingRow* row) {
  MappingView view(item, path,
                   std::vector<std::string_view>(kCablingColumns.begin(), kCablingColumns.end()),
                   state.sink);
  if (!view.valid()) return false;
  bool good = true;
  for (std::string_view required : kCablingRequired)
    if (view.Require(required, "every cable names switch, switch_port, peer and peer_port") == nullptr)
      good = false;
  row->line = LineOf(item);
  row->column = ColumnOf(item);
  row->path = path;
  for (std::string_view column : kCablingColumns) {
    const YAML::Node* value = view.Get(column);
    if (value == nullptr || value->IsNull()) continue;
    if (!value->IsScalar()) {
      state.sink.Error(*value, view.PathOf(column), "is not a string", "a name or a number");
      good = false;
      continue;
    }
    if (!value->Scalar().empty())
      row->cells[std::string(column)] = CablingCell{value->Scalar(), LineOf(*value), ColumnOf(*value)};
  }
  return good;
}

void ReadInlineCables(const YAML::Node& node, ValidationState& state) {
  if (!node.IsSequence()) {
    state.sink.Error(node, "cabling.cables", "is not a list",
                     "a list of {switch, switch_port, peer, peer_port, ...} mappings");
    return;
  }
  if (node.size() > kMaxCables) {
    state.sink.Error(node, "cabling.cables", std::to_string(node.size()) + " cables",
                     "at most " + std::to_string(kMaxCables) + "; a big fabric's port map fits a CSV file");
    return;
  }
  CablingRowChecker checker(state.sink.file());
  bool yaml_good = true;
  for (std::size_t i = 0; i < node.size(); ++i) {
    state.deadline.Check();
    CablingRow row;
    if (InlineRow(node[i], "cabling.cables[" + std::to_string(i) + "]", state, &row))
      checker.Check(row);
    else
      yaml_good = false;
  }
  CablingParse parse = checker.Take();
  for (const Diagnostic& diagnostic : parse.diagnostics) state.sink.AddFromFile(diagnostic);
  if (!yaml_good || !parse.ok()) return;
  WarnAboutMapNames(parse.cables, state.sink.file(), state);
  state.config.cabling.cables = std::move(parse.cables);
}

}  // namespace

void ReadCablingSection(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "cabling", {"file", "cables"}, state.sink);
  if (!view.valid()) return;
  const YAML::Node* file = view.Get("file");
  const YAML::Node* cables = view.Get("cables");
  if ((file == nullptr) == (cables == nullptr)) {
    state.sink.Error(node, "cabling",
                     file ? "has both 'file' and 'cables'" : "has neither 'file' nor 'cables'",
                     "exactly one: 'file: /etc/smsupd/cabling.csv' or a 'cables:' list");
    return;
  }
  state.config.cabling.declared = true;
  if (file != nullptr)
    ReadCablingFile(*file, state);
  else
    ReadInlineCables(*cables, state);
}

}  // namespace smsupd::config
