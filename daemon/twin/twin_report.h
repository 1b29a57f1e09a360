// The answer of a twin plan: the live fabric's tables against the twin's,
// and what the twin's OpenSM said. CompareFabricStates is pure (tests feed
// it fakes); FormatTwinReport makes the text smctl prints.
//
// Comparisons:
// - P_Key tables: per end port (by port GUID), the set of non-empty
//   entries (bit 15 = full); order and empty slots do not matter (OpenSM
//   keeps a live port's indices, a fresh one packs them).
// - Forwarding tables: per switch (by GUID) and per destination port (by
//   port GUID, each LID of its LMC range), the exit port. Destinations are
//   matched by GUID, so the count is right even where the twin's OpenSM
//   gave a port another LID (counted in lid_changes). One moved entry is
//   one (switch, destination LID) pair whose exit port differs.
// - Unreachable: destination LIDs that some switch of the twin has no
//   route to (exit port 255).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/twin/fabric_state.h"
#include "daemon/twin/opensm_findings.h"

namespace smsupd::twin {

// Rows kept per list (the totals count them all): a reply, an event and a
// text stay bounded whatever the fabric.
inline constexpr std::size_t kMaxReportRows = 10000;
inline constexpr std::size_t kMaxTextRows = 20;

struct PKeyChange {
  Guid guid = 0;
  std::string name;
  uint16_t lid = 0;
  std::set<uint16_t> before, after;  // raw entries, 0x0000 left out
};

struct ForwardingChange {
  Guid guid = 0;
  std::string name;
  int64_t entries = 0;
};

struct UnreachableLid {
  uint16_t lid = 0;
  std::string name;
  int switches = 0;  // switches without a route to it
};

struct TableComparison {
  std::vector<PKeyChange> pkey_changes;
  int pkey_changes_total = 0;
  int ports_compared = 0;
  std::vector<ForwardingChange> forwarding_changes;
  int switches_changed = 0;
  int switches_compared = 0;
  int64_t entries_moved = 0;
  int64_t entries_compared = 0;
  std::vector<UnreachableLid> unreachable;  // in the twin
  int unreachable_total = 0;
  int unreachable_live = 0;
  int lid_changes = 0;       // ports with another LID in the twin
  int only_live = 0, only_twin = 0;  // ports found on one side only
};

TableComparison CompareFabricStates(const FabricState& live, const FabricState& twin);

struct TwinTimings {
  int64_t read_topology_ms = 0, twin_start_ms = 0, opensm_up_ms = 0, read_back_ms = 0, total_ms = 0;
};

struct TwinReport {
  TableComparison tables;
  OpenSmFindings opensm;
  std::string engine_asked;
  std::vector<MulticastGroup> multicast_groups;
  TwinTimings timings;
  std::vector<std::string> notes;  // what limits this twin's view (unread ports, GUIDs ibsim cannot copy)
  // Tables that could not be read (FabricState::errors_total): the
  // comparison is incomplete, never "no change".
  int live_unread = 0, twin_unread = 0;

  bool engine_fallback() const { return !opensm.engine_used.empty() && opensm.engine_used != engine_asked; }
  // Something an operator must look at: a table changes, OpenSM fell back
  // (routing or partitions) or complained about the files, or some tables
  // could not be compared.
  bool changed() const;
};

nlohmann::json ToJson(const TwinReport& report);
std::string FormatTwinReport(const TwinReport& report);

}  // namespace smsupd::twin
