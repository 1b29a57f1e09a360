// The P_Key table of every end port as the fabric holds it (read by the test
// bed's probe over directed routes, independent of smsupd) and its
// comparison with the tables a config implies (config::ExpectedPKeyEntries,
// the product rule).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "config/pkey_tables.h"
#include "tests/testbed/fabric_probe.h"

namespace smsupd::testbed::pkey {

struct FabricTables {
  // Port GUID -> the non-empty 16-bit entries (bit 15 = full member).
  std::map<Guid, std::set<std::uint16_t>> entries;
  std::map<Guid, config::PortKind> kinds;

  bool operator==(const FabricTables& other) const { return entries == other.entries; }
};

// One directed-route walk with every end port's P_Key table (CA ports and
// switch port 0).
Result<FabricTables> ReadFabricTables(FabricProbe& probe);

// The file validated as smsupd would validate it.
Result<config::Config> LoadConfig(const std::string& path);

// "" when every port of `tables` holds exactly the entries `config` implies,
// with `master_port` the port of the SM that programs the fabric; otherwise
// one line per differing port (at most `limit` lines, then a count).
std::string DescribeMismatches(const FabricTables& tables, const config::Config& config, Guid master_port,
                               int limit = 8);

// One line per port whose entries differ between `before` and `after`.
std::string DescribeDifferences(const FabricTables& before, const FabricTables& after, int limit = 8);

// "{7fff 8010}".
std::string EntriesText(const std::set<std::uint16_t>& entries);

}  // namespace smsupd::testbed::pkey
