// What OpenSM will program into each end port's P_Key table for a Config,
// computed from the product rule (docs/opensm-behaviour.md "Member order and the product rule")
// rather than from the rendered lines, so that conformance tests compare two independent
// derivations.
//
// OpenSM's model (osm_prtn.c, osm_prtn_config.c, 3.3.23):
// - before reading partitions.conf every port is a limited member of 0x7fff
//   and the SM's own port a full one; the file's 0x7fff definition then
//   decides again for every port it names;
// - ALL/ALL_CAS/ALL_SWITCHES/ALL_ROUTERS pick end ports by node type; a
//   switch is one end port (port 0);
// - a partition nobody ends up in is dropped;
// - `both` puts the limited and the full P_Key in the table (allow_both_pkeys).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "common/guid.h"
#include "config/config.h"

namespace smsupd::config {

enum class PortKind { kCa, kSwitch, kRouter };

struct FabricPort {
  Guid guid = 0;
  PortKind kind = PortKind::kCa;
  bool is_sm_port = false;
};

// One partition as OpenSM will apply it, with the membership the product
// rule gives each port of `ports` (ports it does not pick are absent).
struct PartitionMembership {
  Partition partition;
  std::map<Guid, Membership> ports;
};

// Every partition of `config` in file order, with the implicit default
// partition first when the config has none (OpenSM with no 0x7fff line: every
// port full), and OpenSM's base in 0x7fff (limited, the SM port full) for the
// ports the 0x7fff definition does not name. The SM port is the first of
// `ports` marked is_sm_port.
std::vector<PartitionMembership> PartitionMemberships(const Config& config,
                                                      const std::vector<FabricPort>& ports);

// Port GUID -> 16-bit P_Key entries (as ExpectedPKeyEntries) of the result
// of PartitionMemberships(); every port of `ports` has a (maybe empty) entry.
std::map<Guid, std::set<std::uint16_t>> PKeyEntriesOf(
    const std::vector<PartitionMembership>& memberships, const std::vector<FabricPort>& ports);

// Port GUID -> 15-bit P_Key -> full member. A `both` membership reads as
// full here; ExpectedPKeyEntries() keeps it apart.
std::map<Guid, std::map<std::uint16_t, bool>> ExpectedPKeyTables(
    const Config& config, const std::vector<FabricPort>& ports);

// Port GUID -> the 16-bit P_Key entries the port's table holds (bit 15 set for
// full membership); `both` yields both entries. Compare with a port's table
// read from the fabric, ignoring 0x0000 slots.
std::map<Guid, std::set<std::uint16_t>> ExpectedPKeyEntries(const Config& config,
                                                            const std::vector<FabricPort>& ports);

}  // namespace smsupd::config
