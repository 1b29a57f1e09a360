// The cabling as declared: the port map a site keeps in a spreadsheet, one
// row a cable, read from (and written as) CSV (docs/cabling.md).
//
//   switch,switch_guid,switch_port,peer,peer_guid,peer_port,cable_type,length,rate
//   leaf01,0x0002c90300001000,1,gpu01,,1,DAC,2m,4xHDR
//
// The header row names the columns, in any order; switch, switch_port,
// peer and peer_port are required, the others optional. A *_guid column
// names a device's node GUID, so switches get names from the same file.
// Lines starting with '#' and blank lines are skipped; fields may be quoted
// ("a,b", "" for a quote), as spreadsheets export them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"

namespace smsupd::config {

// Bounds on a cabling file: it comes from outside.
inline constexpr std::size_t kMaxCablingBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxCables = 100000;
inline constexpr std::size_t kMaxCablingFieldBytes = 256;  // a NodeDescription (64 bytes) with its escapes
inline constexpr std::size_t kMaxCablingDiagnostics = 100;
inline constexpr int kMaxSwitchPort = 254;  // IBA: port numbers 1..254 on a switch

// One end of a cable: a device (switch or host) by name, optionally its
// node GUID, and the port the cable is plugged into.
struct CableEnd {
  std::string device;
  std::optional<std::uint64_t> node_guid;
  int port = 0;

  bool operator==(const CableEnd&) const = default;
};

struct DeclaredCable {
  CableEnd a;  // the switch side (column switch*)
  CableEnd b;  // the peer: a host or another switch
  std::string cable_type;
  std::string length;
  std::string rate;  // e.g. "4xHDR": the link must train at least this; empty: not checked
  int line = 0;      // 1-based row in the file, for messages
};

struct CablingParse {
  std::vector<DeclaredCable> cables;
  std::vector<Diagnostic> diagnostics;  // errors: nothing of the file may be used

  bool ok() const;
};

// Parses `text`; `file` names it in diagnostics ("FILE:LINE: error: ...").
// Every error of the file is reported (up to kMaxCablingDiagnostics): bad
// header, missing field, bad port or GUID, a field over 64 bytes, a port
// claimed by two rows, two GUIDs for one name or one GUID for two names,
// too many rows or bytes.
CablingParse ParseCablingCsv(std::string_view text, const std::string& file);

// The CSV form of `cables`, header first, rows in the order given; fields
// that need it are quoted. ParseCablingCsv reads it back unchanged.
std::string FormatCablingCsv(const std::vector<DeclaredCable>& cables);

}  // namespace smsupd::config
