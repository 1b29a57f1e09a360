// The answer of `smctl cabling` (docs/cabling.md): the discovered links
// against the declared cabling, by name, with what the walk could not read
// called out -- a declared cable whose ends the walk did not read is "not
// read", never "missing". Pure: a topology and the config in, the report out.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/cabling_check.h"
#include "config/config.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// At most this many differences are listed in a reply (the rest are
// counted in differences_total): a fabric cabled from a wrong map can
// differ on every one of its 100,000 cables.
inline constexpr std::size_t kMaxListedDifferences = 1000;
// The health problem's one-line summary names at most this many.
inline constexpr std::size_t kMaxSummaryDifferences = 3;

struct ReportedDifference {
  std::string kind;  // missing, swapped, wrong-port, unexpected, below-rate, not-read
  std::string text;
  std::vector<int> lines;

  bool operator==(const ReportedDifference&) const = default;
};

struct CablingReport {
  bool declared = false;
  std::string file;         // the CSV the config names, or ""
  std::string config_path;  // for the "nothing declared" answer
  std::size_t cables = 0;   // declared
  std::size_t links = 0;    // discovered
  std::vector<ReportedDifference> differences;  // all of them (the reply caps the list)
  std::vector<std::string> unread;
  int unread_total = 0;
};

// The links of `topology` (named with the config's names) against
// config.cabling; with nothing declared, only the counts.
CablingReport CompareWithDeclared(const config::Config& config, const FabricTopology& topology);

// The reply's arguments: declared, file, cables, links, differences (at
// most kMaxListedDifferences), differences_total, unread, unread_total.
nlohmann::json ToJson(const CablingReport& report);
// The reply's text: one line a difference (as listed), or "cabling matches:
// N cables", or the "no cabling declared" answer; a note on unread ports.
std::string ReportText(const CablingReport& report);
// One line for the MISCABLED health problem: the count and the first few.
std::string ProblemSummary(const CablingReport& report);

// `--export`: today's links as the cabling CSV (config/cabling_csv.h).
std::string ExportCsv(const config::Config& config, const FabricTopology& topology, std::size_t* links);

}  // namespace smsupd
