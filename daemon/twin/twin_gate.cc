#include "daemon/twin/twin_gate.h"

#include <algorithm>

#include "config/pkey_tables.h"

namespace smsupd::twin {
namespace {

std::set<uint16_t> GateTableEntries(const std::vector<uint16_t>& table) {
  std::set<uint16_t> out;
  for (uint16_t entry : table)
    if ((entry & ~config::kPKeyFullBit) != 0) out.insert(entry);
  return out;
}

std::string ModelEntriesText(const std::set<uint16_t>& entries) {
  std::string text;
  for (uint16_t entry : entries) text += (text.empty() ? "" : ",") + FormatPKey(entry);
  return text.empty() ? "(none)" : text;
}

// A table the model fills to ibsim's size only has to hold model entries
// (OpenSM programs the first ones), as the apply's verification allows.
bool MatchesModel(const std::set<uint16_t>& model, const std::set<uint16_t>& twin, std::size_t capacity) {
  if (model.size() < capacity) return model == twin;
  return !twin.empty() && std::includes(model.begin(), model.end(), twin.begin(), twin.end());
}

// report[a][b] as a type, or `otherwise` (the report is a child's file).
template <typename T>
T ReportField(const nlohmann::json& report, const char* a, const char* b, T otherwise) {
  if (!report.is_object() || !report.contains(a) || !report[a].is_object()) return otherwise;
  const nlohmann::json& section = report[a];
  auto it = section.find(b);
  if (it == section.end()) return otherwise;
  if constexpr (std::is_same_v<T, bool>) {
    return it->is_boolean() ? it->get<bool>() : otherwise;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->get<std::string>() : otherwise;
  } else {
    return it->is_number_integer() ? it->get<T>() : otherwise;
  }
}

std::vector<std::string> ReportLines(const nlohmann::json& report, const char* a, const char* b) {
  std::vector<std::string> out;
  if (!report.is_object() || !report.contains(a) || !report[a].is_object()) return out;
  auto it = report[a].find(b);
  if (it == report[a].end() || !it->is_array()) return out;
  for (const auto& line : *it)
    if (line.is_string() && out.size() < 3) out.push_back(line.get<std::string>());
  return out;
}

std::string JoinedLines(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "; ") + line;
  return text;
}

}  // namespace

std::map<Guid, std::set<uint16_t>> ModelTables(const config::Config& config, const FabricState& twin, Guid sm_port) {
  std::vector<config::FabricPort> ports;
  ports.reserve(twin.ports.size() + 1);
  bool sm_listed = false;
  for (const StatePort& port : twin.ports) {
    const bool is_sm = sm_port != 0 && port.port_guid == sm_port;
    sm_listed = sm_listed || is_sm;
    ports.push_back({port.port_guid, port.is_switch ? config::PortKind::kSwitch : config::PortKind::kCa, is_sm});
  }
  if (sm_port != 0 && !sm_listed) ports.push_back({sm_port, config::PortKind::kCa, true});
  return config::ExpectedPKeyEntries(config, ports);
}

ModelCheck CompareWithModel(const FabricState& twin, const std::map<Guid, std::set<uint16_t>>& model) {
  ModelCheck check;
  for (const StatePort& port : twin.ports) {
    if (!port.read) continue;
    ++check.compared;
    auto it = model.find(port.port_guid);
    const std::set<uint16_t> want = it == model.end() ? std::set<uint16_t>{} : it->second;
    const std::set<uint16_t> got = GateTableEntries(port.pkeys);
    if (MatchesModel(want, got, port.is_switch ? kIbsimSwitchPKeys : kIbsimCaPKeys)) continue;
    ++check.mismatches_total;
    if (check.mismatches.size() < kMaxVerdictReasons)
      check.mismatches.push_back((port.name.empty() ? "" : port.name + " ") + FormatGuid(port.port_guid) +
                                 ": twin " + ModelEntriesText(got) + ", plan " + ModelEntriesText(want));
  }
  return check;
}

std::string UnreadTables::Text() const {
  return std::to_string(live) + " live and " + std::to_string(twin) + " twin table(s) unread";
}

UnreadTables UnreadTablesOf(const nlohmann::json& report) {
  return {ReportField(report, "unread", "live", 0), ReportField(report, "unread", "twin", 0)};
}

TwinVerdict JudgeTwin(const nlohmann::json& report, const std::string& summary, const ModelCheck& model) {
  TwinVerdict verdict;
  verdict.summary = summary;
  verdict.report = report;
  auto& reasons = verdict.reasons;
  if (model.mismatches_total > 0) {
    std::string line = "P_Key tables differ from the plan on " + std::to_string(model.mismatches_total) + " port(s)";
    if (!model.mismatches.empty()) line += ": " + model.mismatches.front();
    if (model.mismatches_total > 1) line += " (and " + std::to_string(model.mismatches_total - 1) + " more)";
    reasons.push_back(line);
  }
  if (ReportField(report, "opensm", "default_partition_fallback", false) ||
      !ReportLines(report, "opensm", "partition_errors").empty())
    reasons.push_back("OpenSM refused partitions.conf (every port would be a full member of 0x7fff only): " +
                      JoinedLines(ReportLines(report, "opensm", "partition_errors")));
  const std::string asked = ReportField(report, "routing", "engine_asked", std::string());
  const std::string used = ReportField(report, "routing", "engine_used", std::string());
  if (used.empty())
    reasons.push_back("routing: no engine configured the switches (" + asked + " asked)");
  else if (ReportField(report, "routing", "fallback", false) || used != asked)
    reasons.push_back("routing: " + asked + " asked, " + used + " used (fallback)" +
                      (ReportLines(report, "routing", "engines_failed").empty()
                           ? ""
                           : ": " + JoinedLines(ReportLines(report, "routing", "engines_failed"))));
  if (auto warnings = ReportLines(report, "opensm", "warnings"); !warnings.empty())
    reasons.push_back("OpenSM complained about opensm.conf: " + JoinedLines(warnings));
  const int unreachable = ReportField(report, "unreachable", "total", 0), live = ReportField(report, "unreachable", "live", 0);
  if (unreachable > live)
    reasons.push_back(std::to_string(unreachable) + " LID(s) unreachable in the twin (live: " + std::to_string(live) + ")");
  auto loops = ReportLines(report, "routing", "credit_loops");
  if (loops.empty()) loops = ReportLines(report, "opensm", "credit_loops");
  if (!loops.empty()) reasons.push_back("credit loops: " + JoinedLines(loops));
  const UnreadTables unread = UnreadTablesOf(report);
  if (unread.any() || model.compared == 0)
    reasons.push_back("the comparison is incomplete: " + unread.Text() + ", " + std::to_string(model.compared) +
                      " port(s) compared with the plan");
  if (reasons.size() > kMaxVerdictReasons) reasons.resize(kMaxVerdictReasons);
  verdict.kind = reasons.empty() ? TwinVerdict::Kind::kAgrees : TwinVerdict::Kind::kDisagrees;
  return verdict;
}

TwinVerdict TwinFailed(const std::string& kind, const std::string& message) {
  TwinVerdict verdict;
  verdict.kind = TwinVerdict::Kind::kFailed;
  verdict.failure_kind = kind;
  verdict.reasons = {message};
  return verdict;
}

}  // namespace smsupd::twin
