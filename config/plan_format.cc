// ConfigPlan's printed forms: the one-line summary, the table `smctl plan`
// prints, and the wire JSON.
#include <algorithm>
#include <cstdio>

#include "common/guid.h"
#include "config/plan.h"

namespace smsupd::config {
namespace {

// Member rows printed per partition; the JSON has up to kMaxListedMemberChanges.
constexpr size_t kPrintedMembersPerPartition = 20;

std::string Counted(size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string Joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

// Rows padded to aligned columns, two spaces apart, indented by two.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string text;
  for (const auto& row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      line += " " + row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 1, ' ');
    }
    text += line + "\n";
  }
  return text;
}

std::string PartitionsTable(const std::vector<PartitionPlan>& partitions) {
  std::vector<std::vector<std::string>> rows = {{"CHANGE", "NAME", "PKEY", "DETAILS"}};
  for (const PartitionPlan& partition : partitions) {
    std::string details = Joined(partition.changes, ", ");
    if (details.empty())
      details = partition.kind == PartitionPlan::Kind::kChanged ? "members only" : "-";
    rows.push_back({PartitionPlanKindName(partition.kind), partition.name,
                    FormatPKey(partition.pkey), details});
  }
  return "Partitions\n" + Table(rows);
}

std::string MembersTable(const std::vector<PartitionPlan>& partitions) {
  std::vector<std::vector<std::string>> rows = {{"PARTITION", "HOST", "GUID", "BEFORE", "AFTER"}};
  std::vector<std::string> omitted;
  for (const PartitionPlan& partition : partitions) {
    size_t shown = std::min(partition.members.size(), kPrintedMembersPerPartition);
    for (size_t i = 0; i < shown; ++i) {
      const MemberChange& member = partition.members[i];
      rows.push_back({partition.name, member.host.empty() ? "-" : member.host,
                      FormatGuid(member.guid), member.before.empty() ? "-" : member.before,
                      member.after.empty() ? "-" : member.after});
    }
    if (partition.members_total > shown)
      omitted.push_back("  ... " + std::to_string(partition.members_total - shown) + " more in " +
                        partition.name + " (--json lists up to " +
                        std::to_string(kMaxListedMemberChanges) + " in all)\n");
  }
  if (rows.size() == 1) return "";
  return "Members\n" + Table(rows) + Joined(omitted, "");
}

std::string OptionsTable(const std::vector<OptionPlan>& options) {
  std::vector<std::vector<std::string>> rows = {{"OPTION", "BEFORE", "AFTER", "APPLIED BY"}};
  for (const OptionPlan& option : options)
    rows.push_back({option.name, option.before, option.after,
                    option.needs_restart ? "OpenSM restart" : "SIGHUP"});
  return "opensm.conf options\n" + Table(rows);
}

}  // namespace

std::string ConfigPlan::Summary() const {
  if (!changed) return "no changes";
  std::vector<std::string> parts;
  if (!partitions.empty()) {
    int added = 0, removed = 0, modified = 0;
    for (const PartitionPlan& partition : partitions) {
      added += partition.kind == PartitionPlan::Kind::kAdded;
      removed += partition.kind == PartitionPlan::Kind::kRemoved;
      modified += partition.kind == PartitionPlan::Kind::kChanged;
    }
    parts.push_back("+" + Counted(added, "partition", "partitions") + ", -" +
                    std::to_string(removed) + ", " + std::to_string(modified) + " changed");
  }
  if (!partitions.empty() || ports_changed > 0)
    parts.push_back(ports_changed == 1
                        ? "1 port's P_Key table changes"
                        : std::to_string(ports_changed) + " ports' P_Key tables change");
  if (!options.empty()) parts.push_back(Counted(options.size(), "option", "options"));
  if (!other.empty()) parts.push_back(Counted(other.size(), "other change", "other changes"));
  parts.push_back(needs_restart     ? "OpenSM restart"
                  : opensm_affected ? "SIGHUP"
                                    : "OpenSM untouched");
  return Joined(parts, "; ");
}

std::string ConfigPlan::Format() const {
  if (!changed) return "no changes\n";
  std::string text = "Plan: " + Summary() + "\n";
  if (!partitions.empty()) text += "\n" + PartitionsTable(partitions);
  std::string members = MembersTable(partitions);
  if (!members.empty()) text += "\n" + members;
  if (!options.empty()) text += "\n" + OptionsTable(options);
  if (!other.empty()) {
    text += "\nOther\n";
    for (const std::string& line : other) text += "  " + line + "\n";
  }
  return text;
}

nlohmann::json ConfigPlan::ToJson() const {
  nlohmann::json partitions_json = nlohmann::json::array();
  for (const PartitionPlan& partition : partitions) {
    nlohmann::json members_json = nlohmann::json::array();
    for (const MemberChange& member : partition.members)
      members_json.push_back({{"guid", FormatGuid(member.guid)},
                              {"host", member.host},
                              {"before", member.before},
                              {"after", member.after}});
    partitions_json.push_back({{"name", partition.name},
                               {"pkey", FormatPKey(partition.pkey)},
                               {"kind", PartitionPlanKindName(partition.kind)},
                               {"changes", partition.changes},
                               {"members", std::move(members_json)},
                               {"members_total", partition.members_total}});
  }
  nlohmann::json options_json = nlohmann::json::array();
  for (const OptionPlan& option : options)
    options_json.push_back({{"name", option.name},
                            {"before", option.before},
                            {"after", option.after},
                            {"needs_restart", option.needs_restart}});
  return {{"changed", changed},
          {"summary", Summary()},
          {"partitions", std::move(partitions_json)},
          {"options", std::move(options_json)},
          {"ports_changed", ports_changed},
          {"needs_restart", needs_restart},
          {"opensm_affected", opensm_affected},
          {"other", other}};
}

}  // namespace smsupd::config
