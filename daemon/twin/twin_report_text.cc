// FormatTwinReport: the text `smctl plan --twin` prints (docs/twin.md
// "Reading it").
#include <cstdio>
#include <sstream>

#include "daemon/twin/twin_report.h"

namespace smsupd::twin {
namespace {

std::string Plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string EntriesText(const std::set<uint16_t>& entries) {
  if (entries.empty()) return "-";
  std::string out;
  for (uint16_t e : entries) out += (out.empty() ? "" : ",") + FormatPKey(e);
  return out;
}

std::string Row(const char* format, const std::string& a, const std::string& b, const std::string& c,
                const std::string& d, const std::string& e) {
  char line[1024];
  std::snprintf(line, sizeof line, format, a.c_str(), b.c_str(), c.c_str(), d.c_str(), e.c_str());
  return line;
}

std::string Summary(const TwinReport& r) {
  const TableComparison& t = r.tables;
  std::string s = "Twin plan: " + Plural(t.pkey_changes_total, "port's P_Key table changes", "ports' P_Key tables change") +
                  "; " + Plural(t.switches_changed, "switch's", "switches'") + " forwarding tables change (" +
                  Plural(t.entries_moved, "entry", "entries") + " move); routing " + r.engine_asked + " asked, " +
                  (r.opensm.engine_used.empty() ? "none" : r.opensm.engine_used) + " used";
  if (r.engine_fallback()) s += " (fallback)";
  s += "; " + Plural(t.unreachable_total, "unreachable LID", "unreachable LIDs");
  if (r.opensm.default_partition_fallback) s += "; OpenSM fell back to the default partition";
  if (r.live_unread + r.twin_unread > 0)
    s += "; INCOMPLETE: " + std::to_string(r.live_unread) + " live and " + std::to_string(r.twin_unread) +
         " twin tables unread (see notes)";
  if (r.opensm.first_sweep_ms) s += "; first sweep " + std::to_string(static_cast<int64_t>(*r.opensm.first_sweep_ms)) + " ms";
  return s + "\n";
}

void PKeySection(std::ostringstream& out, const TableComparison& t) {
  if (t.pkey_changes.empty()) return;
  out << "\nP_Key tables\n" << Row("  %-24s %-18s %-6s %-30s %s\n", "NAME", "GUID", "LID", "BEFORE", "AFTER");
  for (std::size_t i = 0; i < t.pkey_changes.size() && i < kMaxTextRows; ++i) {
    const PKeyChange& c = t.pkey_changes[i];
    out << Row("  %-24s %-18s %-6s %-30s %s\n", c.name.empty() ? "-" : c.name, FormatGuid(c.guid),
               std::to_string(c.lid), EntriesText(c.before), EntriesText(c.after));
  }
  if (t.pkey_changes_total > static_cast<int>(kMaxTextRows))
    out << "  ... " << t.pkey_changes_total - static_cast<int>(kMaxTextRows) << " more (--json lists up to "
        << kMaxReportRows << ")\n";
}

void ForwardingSection(std::ostringstream& out, const TableComparison& t) {
  if (t.forwarding_changes.empty()) return;
  out << "\nForwarding tables (" << t.entries_moved << " of " << t.entries_compared << " entries move)\n"
      << Row("  %-24s %-18s %s%s%s\n", "SWITCH", "GUID", "ENTRIES MOVED", "", "");
  for (std::size_t i = 0; i < t.forwarding_changes.size() && i < kMaxTextRows; ++i) {
    const ForwardingChange& c = t.forwarding_changes[i];
    out << Row("  %-24s %-18s %s%s%s\n", c.name.empty() ? "-" : c.name, FormatGuid(c.guid),
               std::to_string(c.entries), "", "");
  }
  if (t.switches_changed > static_cast<int>(kMaxTextRows))
    out << "  ... " << t.switches_changed - static_cast<int>(kMaxTextRows) << " more switches\n";
}

void RoutingSection(std::ostringstream& out, const TwinReport& r) {
  if (!r.engine_fallback() && !r.opensm.engine_used.empty() && r.opensm.credit_loops.empty()) return;
  out << "\nRouting\n";
  if (r.opensm.engine_used.empty())
    out << "  no routing engine could configure the switches\n";
  else if (r.engine_fallback())
    out << "  OpenSM fell back: " << r.engine_asked << " asked, " << r.opensm.engine_used << " used\n";
  for (const std::string& line : r.opensm.engines_failed) out << "    " << line << "\n";
  for (const std::string& line : r.opensm.errors)
    if (line.find("ERR ") != std::string::npos && r.engine_fallback()) out << "    " << line << "\n";
  for (const std::string& line : r.opensm.credit_loops) out << "  credit loop: " << line << "\n";
}

void UnreachableSection(std::ostringstream& out, const TableComparison& t) {
  if (t.unreachable.empty()) return;
  out << "\nUnreachable LIDs in the twin (" << t.unreachable_total << "; live: " << t.unreachable_live << ")\n";
  for (std::size_t i = 0; i < t.unreachable.size() && i < kMaxTextRows; ++i)
    out << "  LID " << t.unreachable[i].lid << " " << t.unreachable[i].name << ": no route from "
        << Plural(t.unreachable[i].switches, "switch", "switches") << "\n";
}

void FilesSection(std::ostringstream& out, const OpenSmFindings& f) {
  if (f.partition_errors.empty() && f.warnings.empty() && !f.default_partition_fallback) return;
  out << "\nOpenSM on the files\n";
  if (f.default_partition_fallback)
    out << "  partitions.conf refused: every port would be a full member of 0x7fff only\n";
  for (const std::string& line : f.partition_errors) out << "  " << line << "\n";
  for (const std::string& line : f.warnings) out << "  " << line << "\n";
}

void MulticastSection(std::ostringstream& out, const std::vector<MulticastGroup>& groups) {
  if (groups.empty()) return;
  out << "\nMulticast groups OpenSM created\n" << Row("  %-7s %-7s %-4s %-5s %s\n", "MLID", "PKEY", "MTU", "RATE", "MGID");
  for (std::size_t i = 0; i < groups.size() && i < kMaxTextRows; ++i)
    out << Row("  %-7s %-7s %-4s %-5s %s\n", FormatHex(groups[i].mlid, 4), FormatPKey(groups[i].pkey),
               std::to_string(groups[i].mtu), std::to_string(groups[i].rate), groups[i].mgid);
  if (groups.size() > kMaxTextRows) out << "  ... " << groups.size() - kMaxTextRows << " more\n";
}

}  // namespace

std::string FormatTwinReport(const TwinReport& r) {
  std::ostringstream out;
  out << Summary(r);
  PKeySection(out, r.tables);
  ForwardingSection(out, r.tables);
  RoutingSection(out, r);
  UnreachableSection(out, r.tables);
  FilesSection(out, r.opensm);
  MulticastSection(out, r.multicast_groups);
  if (!r.notes.empty()) {
    out << "\nNotes\n";
    for (const std::string& note : r.notes) out << "  " << note << "\n";
  }
  const TwinTimings& tm = r.timings;
  out << "\nTimings: read topology " << tm.read_topology_ms << " ms, twin start " << tm.twin_start_ms
      << " ms, OpenSM up " << tm.opensm_up_ms << " ms, read back " << tm.read_back_ms << " ms, total "
      << tm.total_ms << " ms\n";
  return out.str();
}

}  // namespace smsupd::twin
