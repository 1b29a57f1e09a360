// Which subnet a daemon supervises, as smsupd_subnet_info says it
// (docs/metrics.md, smsupd_subnet_info). Both daemons of a pair must say the
// same, and two fabrics must not: the alert rules aggregate by `subnet`.
//
// The subnet prefix alone does not tell fabrics apart (most keep OpenSM's
// default, fe80::/64), and the master's GUID changes with every failover,
// so the name is the operator's: metrics.subnet, else the subnet prefix.
#pragma once

#include <string>

#include "config/config.h"

namespace smsupd {

// OpenSM's subnet_prefix when opensm.conf sets none (IBA's link-local prefix).
inline constexpr char kDefaultSubnetPrefix[] = "0xfe80000000000000";

struct SubnetIdentity {
  std::string subnet;         // metrics.subnet, else subnet_prefix
  std::string subnet_prefix;  // the prefix OpenSM is configured with ("0x" + 16 hex digits)
};

SubnetIdentity SubnetIdentityOf(const config::Config& config);

}  // namespace smsupd
