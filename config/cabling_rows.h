// The checks every declared cable gets, whatever its source: a row of the
// CSV file (config/cabling_csv.h) or a mapping of smsupd.yaml's
// cabling.cables list (docs/cabling.md). One checker, so the two forms can
// never accept different cables.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "config/cabling_csv.h"

namespace smsupd::config {

// One cell of a row, by its position in the file it came from (1-based).
struct CablingCell {
  std::string text;
  int line = 0;
  int column = 1;
};

// The columns of a cable, in the CSV header's order, and those a row must have.
inline constexpr std::array<std::string_view, 9> kCablingColumns = {
    "switch",    "switch_guid", "switch_port", "peer", "peer_guid",
    "peer_port", "cable_type",  "length",      "rate"};
inline constexpr std::array<std::string_view, 4> kCablingRequired = {"switch", "switch_port",
                                                                     "peer", "peer_port"};

// A row's cells by column name (the CSV header's names: switch,
// switch_guid, switch_port, peer, peer_guid, peer_port, cable_type, length,
// rate). A missing name is an empty cell.
struct CablingRow {
  std::map<std::string, CablingCell, std::less<>> cells;
  int line = 0;      // the row's first line
  int column = 1;    // where row-wide findings point
  std::string path;  // YAML path of an inline row ("cabling.cables[2]"); empty for a CSV row
};

// Checks rows one by one and keeps the good ones. Findings are errors of
// `file`, at the cell they are about; with a row path, the YAML path names
// the cell ("cabling.cables[2].rate"). Every row is checked (up to
// kMaxCablingDiagnostics findings): names at most kMaxCablingFieldBytes
// printable bytes, ports 1..kMaxSwitchPort, GUIDs 0x-hex and not zero, a
// rate config/cabling_rate.h reads, one row per port, one GUID per device
// and one device per GUID, at most kMaxCables rows.
class CablingRowChecker {
 public:
  explicit CablingRowChecker(std::string file) : file_(std::move(file)) {}

  void Check(const CablingRow& row);
  // A finding about the file or a row that the checker itself cannot see
  // (a bad CSV header, a line with too many fields).
  void Error(int line, int column, const std::string& path, std::string what, std::string valid = "");

  bool ok() const { return parse_.diagnostics.empty(); }
  CablingParse Take() { return std::move(parse_); }

 private:
  std::string Text(const CablingRow& row, const std::string& name, bool* good);
  void ErrorAt(const CablingRow& row, const std::string& name, std::string what, std::string valid);
  bool End(const CablingRow& row, const std::string& side, CableEnd* end);
  void Claim(const CablingRow& row, const DeclaredCable& cable);

  std::string file_;
  CablingParse parse_;
  std::map<std::pair<std::string, int>, int> ports_;
  std::map<std::string, std::pair<std::uint64_t, int>> guids_;
  std::map<std::uint64_t, std::pair<std::string, int>> owners_;
};

}  // namespace smsupd::config
