// The plan of a config change (docs/plan.md): what applying `after` over
// `before` would do to the fabric and to OpenSM, computed without touching
// either. `smctl plan` prints it; reload and rollback record its summary.
//
// Partitions are compared as OpenSM will apply them: members resolved per
// port through the product rule (config/pkey_tables.h), so reordering a
// member list or renaming a group changes nothing, while moving a host
// between groups shows as the ports whose membership changes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/deadline.h"
#include "common/guid.h"
#include "config/config.h"
#include "config/pkey_tables.h"

namespace smsupd::config {

// One port whose membership in a partition changes.
struct MemberChange {
  Guid guid = 0;
  std::string host;           // "" when the inventory has no name for the GUID
  std::string before, after;  // "", "full", "limited", "both" ("" = not a member)
};

struct PartitionPlan {
  std::string name;        // the name in `after` (in `before` when removed)
  std::uint16_t pkey = 0;  // likewise
  enum class Kind { kAdded, kRemoved, kChanged } kind = Kind::kChanged;
  // Definition changes: "mtu 2048 -> 4096", "pkey 0x0010 -> 0x0011",
  // "ipoib false -> true"; for an added partition the flags it sets
  // ("ipoib", "mtu 4096"); none for a removed one.
  std::vector<std::string> changes;
  // Resolved per port, by GUID: the first of them while the plan lists fewer
  // than kMaxListedMemberChanges in all; `members_total` counts every one.
  std::vector<MemberChange> members;
  std::size_t members_total = 0;
};

// Member changes a plan lists, over all its partitions (the rest are
// counted): a change of a large config may move millions of memberships,
// and the plan is a reply, an event and a generation's record.
inline constexpr std::size_t kMaxListedMemberChanges = 10'000;

// An opensm.conf option whose value OpenSM will read differently, smsupd's
// own options (guid, partition_config_file, allow_both_pkeys, log_file...)
// included. An option absent from the file is shown with OpenSM's default.
// sm_priority and sm_key are reported in ConfigPlan::other instead (the
// failover policy owns the rendered priority; the key is never printed).
struct OptionPlan {
  std::string name, before, after;
  bool needs_restart = false;  // OpenSM reads it only at start
};

struct ConfigPlan {
  bool changed = false;                   // anything at all (YAML hash aside)
  std::vector<PartitionPlan> partitions;  // only added/removed/changed ones
  std::vector<OptionPlan> options;
  int ports_changed = 0;       // ports whose expected P_Key table differs
  bool needs_restart = false;  // some option is startup-only
  // OpenSM must re-read its files (SIGHUP at least): a partition, an option,
  // sm.priority or the SM_Key changes. False when only smsupd's own settings
  // (failover timing, generations, verify, control, inventory names) do.
  bool opensm_affected = false;
  std::vector<std::string> other;  // "node a -> b", "sm.role master -> standby", ...

  // One line, e.g. "+1 partition, -0, 2 changed; 14 ports' P_Key tables
  // change; SIGHUP", or "no changes".
  std::string Summary() const;
  // The table `smctl plan` prints (ends with a newline).
  std::string Format() const;
  // Keys: changed, summary, partitions[{name,pkey,kind,changes,members[{guid,
  // host,before,after}],members_total}], options[{name,before,after,needs_restart}],
  // ports_changed, needs_restart, opensm_affected, other. GUIDs and P_Keys as "0x..." strings,
  // kind "added"/"removed"/"changed".
  nlohmann::json ToJson() const;
};

const char* PartitionPlanKindName(PartitionPlan::Kind kind);  // "added", ...

// `ports`: the fabric's end ports (from discovery); the ports either config
// names (host GUIDs, guid members, sm.port_guid) are added as CA ports when
// missing, so a change to a host that is down right now still shows.
// `local_sm_port` is the applying SM's port (SELF and OpenSM's base in
// 0x7fff); 0 when unknown (then sm.port_guid, else any port `ports` marks).
// Both configs must be validated (which bounds the work: kMaxPortMemberships).
// Past `deadline` it throws DeadlineExceeded.
ConfigPlan PlanConfigChange(const Config& before, const Config& after,
                            const std::vector<FabricPort>& ports, Guid local_sm_port,
                            const Deadline& deadline = Deadline::Never());

namespace plan_internal {
// The opensm.conf option differences (config/plan_settings.cc).
std::vector<OptionPlan> PlanOptions(const Config& before, const Config& after, Guid local_sm_port);
// Every other setting that differs, one line each (config/plan_settings.cc).
std::vector<std::string> PlanOtherSettings(const Config& before, const Config& after);
}  // namespace plan_internal

}  // namespace smsupd::config
