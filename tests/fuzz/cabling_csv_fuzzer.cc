// Fuzz target: a cabling CSV as a site's spreadsheet may export it, and the
// check of a fabric against it.
//
// Properties, for any bytes:
// - ParseCablingCsv never crashes and reports at most
//   kMaxCablingDiagnostics errors; with an error it keeps no cable it
//   could be acted on with (callers use nothing of a file with errors);
// - a file without errors is written back by FormatCablingCsv and read
//   again to the same cables;
// - the fabric cabled exactly as the file declares has no difference, and
//   its export reads back without error.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "config/cabling_check.h"
#include "config/cabling_csv.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::config {
namespace {

std::vector<DiscoveredLink> CabledAsDeclared(const std::vector<DeclaredCable>& cables) {
  std::vector<DiscoveredLink> links;
  for (const DeclaredCable& cable : cables) {
    DiscoveredLink link;
    link.a = LinkEnd{cable.a.node_guid.value_or(0), cable.a.device, cable.a.port, true};
    link.b = LinkEnd{cable.b.node_guid.value_or(0), cable.b.device, cable.b.port, false};
    link.active = ParseLinkRate(cable.rate);
    links.push_back(link);
  }
  return links;
}

std::string Describe(const std::vector<CablingDifference>& differences) {
  return differences.empty() ? "" : differences.front().text;
}

}  // namespace
}  // namespace smsupd::config

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::config;
  const std::string_view text = smsupd::fuzz::AsText(data, size);
  CablingParse parse = ParseCablingCsv(text, "fuzz.csv");
  FUZZ_CHECK(parse.diagnostics.size() <= kMaxCablingDiagnostics, "too many diagnostics");
  if (!parse.ok()) return 0;
  FUZZ_CHECK(parse.cables.size() <= kMaxCables, "too many cables");
  const std::string written = FormatCablingCsv(parse.cables);
  CablingParse again = ParseCablingCsv(written, "written.csv");
  FUZZ_CHECK(again.ok(), again.diagnostics.empty() ? "" : again.diagnostics.front().Format());
  FUZZ_CHECK(again.cables.size() == parse.cables.size(), written);
  for (std::size_t i = 0; i < parse.cables.size(); ++i) {
    FUZZ_CHECK(again.cables[i].a == parse.cables[i].a && again.cables[i].b == parse.cables[i].b &&
                   again.cables[i].cable_type == parse.cables[i].cable_type &&
                   again.cables[i].length == parse.cables[i].length && again.cables[i].rate == parse.cables[i].rate,
               written);
  }
  auto differences = CompareCabling(parse.cables, CabledAsDeclared(parse.cables));
  FUZZ_CHECK(differences.empty(), Describe(differences));
  return 0;
}
