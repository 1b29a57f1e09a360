// Which sm_priority each SM runs at, so that OpenSM's own election always
// picks the SM smsupd considers master (both views identical at all
// times). OpenSM's order (osm_sm.h osm_sm_is_greater_than, IBA 14.4.1.2):
// higher priority wins, equal priority -> lower port GUID wins. Mastership is
// pre-emptive: OpenSM hands over to any higher-ranked SM it discovers.
//
// The plan, the same for preempt and sticky:
//   MASTER                       master_priority (15)  -- the unique top
//   STANDBY                      standby_priority (5)
//   STANDBY claiming mastership  master_priority - 1 (14): a role master back
//                                for hold_time (preempt), or `smctl failover`
//                                run on the standby; the MASTER's smsupd reads
//                                the claim and yields
//   yielding MASTER              kYieldPriority (0): its next heavy sweep finds
//                                a higher SM and hands over (the path seen to
//                                complete)
// and a STANDBY never ranks above the current master: its priority is clamped
// to the highest value that still ranks below it (a standby that outranks the
// master makes OpenSM pre-empt through trap 144, the path seen to fail),
// except under a master at the yield priority: that one is handing over.
// Both paths: docs/opensm-behaviour.md "Controlled failover: safe and unsafe
// priority changes".
// Priority 0 is therefore reserved for a yielding master.
// Raising a priority is only ever done on the node that is already MASTER.
#pragma once

#include <optional>
#include <vector>

#include "common/guid.h"
#include "policies/observation.h"
#include "policies/policy_config.h"

namespace smsupd::policy {

inline constexpr int kYieldPriority = 0;
inline constexpr int kMaxPriority = 15;  // sm_priority > 15 reads as 0

// True when an SM (priority_a, guid_a) wins OpenSM's election over b.
bool OutRanks(int priority_a, Guid guid_a, int priority_b, Guid guid_b);
bool OutRanks(const SmEntry& a, const SmEntry& b);

// The SM OpenSM elects among `sms` (NOTACTIVE ones excluded); nullopt if none.
std::optional<SmEntry> ElectionWinner(const std::vector<SmEntry>& sms);

// The highest-ranked STANDBY other than `exclude`: the handover target.
std::optional<SmEntry> BestStandby(const std::vector<SmEntry>& sms, Guid exclude);

int ClaimPriority(const PolicyConfig& config);

// The highest priority <= wanted at which `local` ranks strictly below the
// master (priority, guid); nullopt when even 0 would outrank it.
std::optional<int> HighestRankingBelow(int wanted, Guid local, int master_priority,
                                       Guid master_guid);

// Priority of the local SM while STANDBY. `claiming`: preempt claim is due.
// `master`: the current remote master, if one is known.
int StandbyPriority(const PolicyConfig& config, bool claiming,
                    const std::optional<SmEntry>& master);

// Priority for the first start (or a restart) of the local OpenSM: join as a
// standby under an existing master (docs/opensm-behaviour.md "Start-up races: dual master and no
// master": a 15 started under a MASTER 5 left the subnet without master), else the role's own
// priority.
int StartPriority(const PolicyConfig& config, const std::optional<SmEntry>& master);

// Priority for an OpenSM started when the local port comes back and no master
// is known yet (the SM list is read only once the port carries MADs again).
// A standby that took over in the meantime runs at the standby priority until
// it has confirmed it is alone and raised itself; one step below that ranks
// under it whatever the GUIDs, so OpenSM's own election cannot hand the
// mastership back to the returning node. The standby plan takes over once the
// master is read. (With a standby priority of 1 it stays 1: 0 is the yield
// priority.)
int ReturningPriority(const PolicyConfig& config);

}  // namespace smsupd::policy
