// The P_Key table of every end port as the fabric holds it, read by the test
// bed's probe over directed routes (no LID, SA, OpenSM or smsupd involved),
// and how it differs from the tables expected or from an earlier reading.
// The one way tests and benchmarks read P_Key tables off the fabric.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "tests/testbed/fabric_probe.h"

namespace smsupd::testbed {

// A port's entries (bit 15 = full member), without the empty ones: 0x0000
// and 0x8000, the invalid P_Key, mean "no entry" to the IBA.
using PKeyEntries = std::set<std::uint16_t>;

struct EndPort {
  int node_type = 0;  // NodeInfo NodeType (IBA 14.2.5.3): 1 CA, 2 switch, 3 router
  int capacity = 0;   // NodeInfo PartitionCap: entries the table holds
};

struct FabricPKeyTables {
  std::map<Guid, PKeyEntries> entries;  // by port GUID
  std::map<Guid, EndPort> ports;        // the same ports

  bool operator==(const FabricPKeyTables& other) const { return entries == other.entries; }
};

// One directed-route walk: every CA port and every switch's port 0.
Result<FabricPKeyTables> ReadFabricPKeyTables(FabricProbe& probe);
// One port's table: `target` a directed route or LID as the probe takes it
// ("dr:0" is the probe's own port).
Result<PKeyEntries> ReadPortPKeys(FabricProbe& probe, const std::string& target, int port);

// "" when every port holds exactly what `expected` says (a port absent from
// `expected` should hold nothing, a port of `expected` the walk did not reach
// differs); otherwise one line per differing port, at most `limit`, then a
// count. A table `expected` fills to its capacity or
// beyond is only checked to hold some expected entries and nothing else:
// OpenSM applies the first ones, and at exactly capacity it was seen to
// program one entry fewer on ibsim's 8-entry switch port 0.
std::string DescribePKeyMismatches(const FabricPKeyTables& tables, const std::map<Guid, PKeyEntries>& expected,
                                   int limit = 8);

// One line per port whose entries differ between `before` and `after`.
std::string DescribePKeyDifferences(const FabricPKeyTables& before, const FabricPKeyTables& after, int limit = 8);

// "{7fff 8010}".
std::string PKeyEntriesText(const PKeyEntries& entries);

}  // namespace smsupd::testbed
