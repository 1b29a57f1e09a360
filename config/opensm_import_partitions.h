// OpenSM's file-order reading of partitions.conf turned into the
// declarative form of smsupd.yaml (docs/import.md "How memberships are
// resolved"). For each P_Key it replays OpenSM's member lines
// (osm_prtn_config.c partition_add_port(), partition_add_all(),
// manage_membership_change(); osm_prtn.c osm_prtn_add_port()) over port
// classes: the ports no GUID names, by node type (CA, switch, router), the
// SM's own port, and each GUID the file names. Offline nothing says what a
// named GUID is: it is taken to be a CA port (and so is the SM port), and
// where that assumption decides an outcome the finding says so. The final
// state of each class then maps onto smsupd's product rule (most specific
// selector wins) without loss: keywords for the classes, one entry per GUID.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/config.h"
#include "config/opensm_import.h"
#include "config/opensm_partitions_conf.h"

namespace smsupd::config {

// A port's entries in one partition: bit 0 the limited P_Key, bit 1 the full one.
using PortState = unsigned;
inline constexpr PortState kLimitedEntry = 1;
inline constexpr PortState kFullEntry = 2;

// OpenSM's change of a port's entries for one member line.
PortState ApplyMembership(PortState state, Membership membership, bool allow_both_pkeys);
// 0 -> nullopt, limited, full, both.
std::optional<Membership> MembershipOf(PortState state);

struct ImportedGuid {
  PortState state = 0;
  std::vector<int> lines;  // the lines that name it
};

struct ImportedPartition {
  PartitionsConfDefinition header;  // the first definition of the P_Key (OpenSM keeps its name)
  std::vector<int> lines;           // every definition of the P_Key
  bool defined = true;              // false: 0x7fff that the file never defines (OpenSM's base)
  PortState ca = 0, switches = 0, routers = 0;  // ports no GUID names
  PortState self = 0;                           // the SM's port (if no GUID names it)
  std::vector<int> self_lines;
  std::map<Guid, ImportedGuid> guids;
  std::map<PartitionsConfMember::Kind, std::vector<int>> keyword_lines;
  std::vector<std::string> notes;  // for the YAML comment of the partition
  bool HasMembers() const;
};

struct ImportedPartitions {
  std::vector<ImportedPartition> partitions;  // 0x7fff first, then by first appearance
  bool fallback = false;                       // OpenSM rejects the file: default partition only
  bool uses_both = false;
};

// `sm_port`: opensm.conf's `guid`, when given: SELF and that GUID are then
// one port. Findings for duplicates, order effects and assumptions are added.
ImportedPartitions ResolvePartitions(const PartitionsConfReading& reading, const std::string& file,
                                     bool allow_both_pkeys, std::optional<Guid> sm_port,
                                     ImportFindings& findings);

}  // namespace smsupd::config
