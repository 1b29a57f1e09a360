#include "daemon/cabling/cabling_report.h"

#include <set>
#include <utility>

#include "config/cabling_csv.h"
#include "daemon/cabling/cabling_links.h"
#include "daemon/ports/port_names.h"

namespace smsupd {
namespace {

using Position = std::pair<std::string, int>;

std::string Where(const config::CableEnd& end) { return end.device + " port " + std::to_string(end.port); }

// What the walk could not see of a cable's ends: "" when it saw both.
class Visibility {
 public:
  Visibility(const FabricTopology& topology, const PortNames& names)
      : unread_(UnreadPositions(topology, names)), reached_(ReachedDevices(topology, names)),
        incomplete_(topology.unread_total > 0) {}

  std::string Unseen(const config::DeclaredCable& cable) const {
    for (const config::CableEnd* end : {&cable.a, &cable.b}) {
      if (unread_.count(Position{end->device, end->port})) return Where(*end) + " was not read";
      // A device the walk never reached while some port was not read may sit behind that port.
      if (incomplete_ && !reached_.count(end->device)) return end->device + " was not reached";
    }
    return "";
  }

 private:
  std::set<Position> unread_;
  std::set<std::string> reached_;
  bool incomplete_;
};

// A "missing" cable whose ends the walk did not read is "not read".
ReportedDifference Reported(const config::CablingDifference& difference,
                            const std::vector<config::DeclaredCable>& declared, const Visibility& seen) {
  ReportedDifference out{config::CablingDifferenceName(difference.kind), difference.text, difference.lines};
  if (difference.kind != config::CablingDifferenceKind::kMissing) return out;
  for (const config::DeclaredCable& cable : declared) {
    if (difference.lines.empty() || cable.line != difference.lines.front()) continue;
    std::string why = seen.Unseen(cable);
    if (why.empty()) break;
    out.kind = "not-read";
    out.text = "not read: " + Where(cable.a) + " - " + Where(cable.b) + " (line " + std::to_string(cable.line) +
               "): " + why + "; it may be plugged in";
    break;
  }
  return out;
}

}  // namespace

CablingReport CompareWithDeclared(const config::Config& config, const FabricTopology& topology) {
  CablingReport report;
  report.declared = config.cabling.declared;
  report.file = config.cabling.file;
  report.config_path = config.source_path;
  report.cables = config.cabling.cables.size();
  report.unread = topology.unread;
  report.unread_total = topology.unread_total;
  PortNames names(config, topology);
  std::vector<config::DiscoveredLink> links = LinksOf(topology, names);
  report.links = links.size();
  if (!report.declared) return report;
  Visibility seen(topology, names);
  for (const config::CablingDifference& difference : config::CompareCabling(config.cabling.cables, links))
    report.differences.push_back(Reported(difference, config.cabling.cables, seen));
  return report;
}

nlohmann::json ToJson(const CablingReport& report) {
  nlohmann::json differences = nlohmann::json::array();
  for (std::size_t i = 0; i < report.differences.size() && i < kMaxListedDifferences; ++i) {
    const ReportedDifference& d = report.differences[i];
    differences.push_back({{"kind", d.kind}, {"text", d.text}, {"lines", d.lines}});
  }
  return {{"declared", report.declared},
          {"file", report.file},
          {"cables", report.cables},
          {"links", report.links},
          {"differences", std::move(differences)},
          {"differences_total", report.differences.size()},
          {"unread", report.unread},
          {"unread_total", report.unread_total}};
}

std::string ReportText(const CablingReport& report) {
  if (!report.declared)
    return "no cabling declared in " + report.config_path +
           "; `smctl cabling --export` writes today's links as a start";
  std::string text;
  if (report.differences.empty()) {
    text = "cabling matches: " + std::to_string(report.cables) + " cables";
  } else {
    for (std::size_t i = 0; i < report.differences.size() && i < kMaxListedDifferences; ++i)
      text += (i ? "\n" : "") + report.differences[i].text;
    if (report.differences.size() > kMaxListedDifferences)
      text += "\n... and " + std::to_string(report.differences.size() - kMaxListedDifferences) + " more (" +
              std::to_string(report.differences.size()) + " differences)";
  }
  if (report.unread_total > 0)
    text += "\nnote: " + std::to_string(report.unread_total) +
            " ports were not read; the comparison cannot see the cables behind them";
  return text;
}

std::string ProblemSummary(const CablingReport& report) {
  std::string text = std::to_string(report.differences.size()) + " cabling difference" +
                     (report.differences.size() == 1 ? "" : "s") + ": ";
  for (std::size_t i = 0; i < report.differences.size() && i < kMaxSummaryDifferences; ++i)
    text += (i ? "; " : "") + report.differences[i].text;
  if (report.differences.size() > kMaxSummaryDifferences) text += "; ...";
  return text;
}

std::string ExportCsv(const config::Config& config, const FabricTopology& topology, std::size_t* links) {
  std::vector<config::DiscoveredLink> found = LinksOf(topology, PortNames(config, topology));
  if (links) *links = found.size();
  return config::FormatCablingCsv(config::ExportCabling(found));
}

}  // namespace smsupd
