// What an smsupd.yaml implies for the P_Key tables the test bed reads off
// the fabric: config::ExpectedPKeyEntries (the product rule) for the ports a
// walk found, with the master's port as the SM port.
#pragma once

#include <map>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "tests/testbed/fabric_pkey_tables.h"

namespace smsupd::testbed::pkey {

// The file validated as smsupd would validate it.
Result<config::Config> LoadConfig(const std::string& path);

// Port GUID -> the entries `config` gives each port of `tables`, with
// `master_port` the port of the SM that programs the fabric.
std::map<Guid, PKeyEntries> ExpectedTables(const FabricPKeyTables& tables, const config::Config& config,
                                           Guid master_port);

// DescribePKeyMismatches against ExpectedTables(): "" when the fabric holds
// what `config` says.
std::string DescribeMismatches(const FabricPKeyTables& tables, const config::Config& config, Guid master_port,
                               int limit = 8);

}  // namespace smsupd::testbed::pkey
