// A test-side model of how OpenSM 3.3.23 reads partitions.conf and fills its
// partition tables (osm_prtn_config.c, osm_prtn.c): member lines applied in
// file order, the last one naming a port wins; with allow_both_pkeys a full
// or limited line removes the other membership, `both` keeps both; OpenSM's
// base puts every port limited in 0x7fff and the SM port full. Written from
// OpenSM's behaviour, independently of the renderer, so that rendering +
// this model can be checked against ExpectedPKeyEntries() without a fabric.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/pkey_tables.h"

namespace smsupd::config::testing {

// Port GUID -> 16-bit P_Key entries (bit 15 = full). Fails on text OpenSM
// would reject (the whole file would fall back to the default).
Result<std::map<Guid, std::set<std::uint16_t>>> ApplyPartitionsConf(
    const std::string& text, bool allow_both_pkeys, const std::vector<FabricPort>& ports);

// The value of `name` in an opensm.conf text (the last line wins), or "".
std::string OpenSmConfValue(const std::string& text, const std::string& name);

}  // namespace smsupd::config::testing
