// The discovered fabric against the declared cabling (docs/cabling.md):
// which cables are missing, crossed, in the wrong port, not declared, or
// trained below their declared rate. Pure: the links come in, the
// differences go out, by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/cabling_csv.h"
#include "config/cabling_rate.h"

namespace smsupd::config {

// One end of a link the subnet walk found.
struct LinkEnd {
  std::uint64_t node_guid = 0;
  std::string name;  // the inventory name, else the NodeDescription
  int port = 0;
  bool is_switch = false;
};

struct DiscoveredLink {
  LinkEnd a;
  LinkEnd b;
  std::optional<LinkRate> active;  // nullopt: not read
};

enum class CablingDifferenceKind {
  kMissing,     // a declared cable with neither end plugged anywhere
  kSwapped,     // two declared cables whose far ends are crossed
  kWrongPort,   // a declared end plugged into another port than declared
  kUnexpected,  // a link, or a device, the port map does not have
  kBelowRate,   // a declared cable trained below its declared rate
};

// "missing", "swapped", "wrong-port", "unexpected", "below-rate".
const char* CablingDifferenceName(CablingDifferenceKind kind);

struct CablingDifference {
  CablingDifferenceKind kind;
  std::string text;        // one line, by name
  std::vector<int> lines;  // the declared rows involved (1-based), if any
};

// The device name the check uses for `end`: the declared name of its node
// GUID when a row gives that GUID, else end.name.
std::vector<CablingDifference> CompareCabling(const std::vector<DeclaredCable>& declared,
                                              const std::vector<DiscoveredLink>& discovered);

// The discovered fabric as declared cables (switch side first; GUIDs and
// the active rate filled in), sorted by switch name and port: what
// `--export` writes, and what CompareCabling finds no difference against.
std::vector<DeclaredCable> ExportCabling(const std::vector<DiscoveredLink>& discovered);

}  // namespace smsupd::config
