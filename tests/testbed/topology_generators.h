// Topologies the tests use. Names and GUIDs are predictable so a test (or a
// person reading a log) can tell what a GUID is:
//   HCA "H<leaf>_<host>": node GUID kCaGuidBase + (leaf << 12) + (host << 4),
//                          port 1 GUID = node GUID + 1;
//   leaf switch "L<n>":  kSwitchGuidBase + (n << 4);
//   spine switch "S<n>": kSwitchGuidBase + 0x100000 + (n << 4).
// The first two HCAs (H1_1, H1_2) are the management nodes.
#pragma once

#include "common/result.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed {

inline constexpr Guid kCaGuidBase = 0x0002c90300000000ULL;
inline constexpr Guid kSwitchGuidBase = 0x0002c90200000000ULL;

Guid CaGuid(int leaf, int host);
Guid LeafGuid(int leaf);
Guid SpineGuid(int spine);
std::string CaName(int leaf, int host);
std::string LeafName(int leaf);
std::string SpineName(int spine);

// The size of ibsim's net.2sw2path4hca example: two 8-port switches L1, L2
// joined by two links, two HCAs on each (H1_1, H1_2 on L1; H2_1, H2_2 on L2).
Topology MakeTwoSwitchTopology();

// Two-level fat tree of 36-port switches: every leaf cables hosts_per_leaf
// HCAs on ports 1..hosts_per_leaf and one link to each spine on the ports
// after them; spine s port l goes to leaf l. Needs hosts_per_leaf + spines
// <= 36, leaves <= 36, hosts_per_leaf >= 2 (two management nodes) and ibsim's
// limits; 36 x 18 x 18 gives 648 HCAs and 54 switches. spines == 0 is
// allowed only with one leaf.
Result<Topology> MakeFatTree(int leaves, int hosts_per_leaf, int spines);

}  // namespace smsupd::testbed
