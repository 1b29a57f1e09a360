// partitions.conf from a validated Config (internal to the renderer).
//
// OpenSM applies member lines in file order and the last line that names a
// port wins (osm_prtn_add_port(); with allow_both_pkeys a full or limited
// line also removes the other membership, manage_membership_change()). So
// each definition is written as: ALL, then ALL_CAS / ALL_SWITCHES /
// ALL_ROUTERS (disjoint, node types), then every port a group picked, then
// every port a guid / host / SELF picked, each GUID once with its final
// membership from ResolveMembers(). Later lines only ever name ports that a
// more specific selector decides, so OpenSM ends up with the product rule.
// SELF is written as the keyword, last, only when the SM port is unknown.
#pragma once

#include <optional>
#include <string>

#include "common/guid.h"
#include "config/config.h"

namespace smsupd::config {

std::string RenderPartitionsConf(const Config& config, std::optional<Guid> sm_port,
                                 const std::string& config_hash);

// True when any member of any partition asks for `both` (allow_both_pkeys).
bool UsesBothMembership(const Config& config);

}  // namespace smsupd::config
