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

// Two-level fat tree: every leaf cables hosts_per_leaf HCAs on ports
// 1..hosts_per_leaf and one link to each spine on the ports after them;
// spine s port l goes to leaf l. The switches have 36 ports when the tree
// fits them (hosts_per_leaf + spines <= 36, leaves <= 36), else 72
// (kLargeSwitchPorts); larger trees are refused. hosts_per_leaf >= 2 or
// leaves >= 2 (two management nodes). 36 x 18 x 18 gives 648 HCAs and 54
// switches, 72 x 36 x 36 gives 2,592 HCAs and 108 switches. spines == 0 is
// allowed only with one leaf.
Result<Topology> MakeFatTree(int leaves, int hosts_per_leaf, int spines);

// Three-level fat tree of `pods`: in each pod, leaves_per_pod leaves of
// hosts_per_leaf HCAs each, every leaf linked once to each of the pod's
// spines_per_pod spines; every spine linked once to each of the `cores` core
// switches. Leaves, spines and HCAs are numbered across pods ("L1".."Ln",
// "S1".., "H<leaf>_<host>"), cores are "C<n>". Switch radix as above (36 or
// 72 ports). 10 x 25 x 40 x 4 x 8 gives 10,000 HCAs and 298 switches.
Result<Topology> MakeThreeLevelFatTree(int pods, int leaves_per_pod, int hosts_per_leaf, int spines_per_pod,
                                       int cores);

// "LEAVESxHOSTSxSPINES" (two levels) or "PODSxLEAVESxHOSTSxSPINESxCORES"
// (three levels), as the benches and smsupd-topogen take it.
Result<Topology> MakeFatTreeFromSpec(const std::string& spec);

Guid CoreGuid(int core);
std::string CoreName(int core);

}  // namespace smsupd::testbed
