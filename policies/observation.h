// What the failover policy is told on every step: one snapshot of the local
// OpenSM, the local port, the watched master and the SMs the SA lists, plus
// the operator's command if one arrived. The daemon fills it from its MAD
// thread and child watcher; the policy never reads the fabric itself
// (decide(observation, now) -> actions).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"

namespace smsupd::policy {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;
using Duration = std::chrono::milliseconds;

// IBA 14.4.1 SMInfo states, values as on the wire. Kept separate from the
// fabric layer's enum so the policy library depends on nothing but common/.
enum class SmState { kNotActive = 0, kDiscovering = 1, kStandby = 2, kMaster = 3 };
const char* SmStateName(SmState state);  // "NOTACTIVE", "DISCOVERING", ...

// One SM as an SA SMInfoRecord (or a direct SMInfo Get) describes it.
struct SmEntry {
  Guid guid = 0;
  std::uint16_t lid = 0;
  SmState state = SmState::kNotActive;
  int priority = 0;
};

// The OpenSM child of this smsupd.
struct LocalOpenSm {
  bool running = false;        // started (or adopted) and not yet reaped
  std::string exit_info;       // "signal 9", "exit status 1" when not running
  // OpenSM logged "Entering MASTER state" and no "SUBNET UP" since: its first
  // heavy sweep as master is still running. A SIGHUP now (a priority change)
  // makes it start that sweep's discovery over.
  bool first_sweep_running = false;
  // How many times the OpenSM smsupd runs has logged "Entering MASTER state"
  // (since smsupd started). One more than when this SM yielded means its
  // OpenSM left MASTER and was handed the mastership back.
  std::uint32_t master_entries = 0;
};

// SubnGet(SMInfo) of the local SM, over MADs (what OpenSM itself reports).
struct LocalSmInfo {
  SmState state = SmState::kNotActive;
  int priority = 0;
  std::uint32_t act_count = 0;
};

// PortInfo of the local port. port_state: 1 Down, 2 Init, 3 Armed, 4 Active.
struct LocalPort {
  int port_state = 1;
  std::uint16_t lid = 0;
  std::uint16_t sm_lid = 0;
  bool active() const { return port_state == 4; }
};

// The remote master being watched (the SM the local port's SM LID points to,
// or the MASTER in the last SMInfoRecords). Timing model: the daemon keeps at
// most one SMInfo Get outstanding, every poll interval (100-250 ms), each with
// a deadline. A reply that arrives before its deadline is an answer however
// late it was (slow != missed); only a poll whose deadline passed is a miss.
// Any answer resets consecutive_misses to 0.
struct MasterWatch {
  Guid guid = 0;
  std::uint16_t lid = 0;
  int priority = 0;                  // from the last answer
  SmState state = SmState::kMaster;  // from the last answer
  int consecutive_misses = 0;        // SMInfo polls unanswered in a row
  std::uint32_t act_count = 0;       // from the last answer
  // Cross-check: PortInfo of the master's port, answered by the HCA's SMA,
  // not by OpenSM. nullopt = not asked yet (asked once misses start).
  std::optional<bool> port_answers;
  // The port at the other end of the master's cable (a switch port, read by
  // directed route, answered by the switch itself) reads its link Down in
  // this round: the node or its cable is gone. The daemon sets it only
  // for a route confirmed to end at the master while the link was up, so
  // one missed poll is enough.
  bool link_down = false;
};

// An operator command for the policy (smctl failover, SIGTERM/systemctl stop).
struct OperatorCommand {
  // kRestart: smctl restart-opensm, reload --restart (zero-gap restart).
  enum class Kind { kFailover, kStop, kRestart };
  Kind kind = Kind::kFailover;
  std::optional<Guid> target;  // failover --to GUID
  bool force = false;          // restart even with no standby to hand over to
  // The state the command was run in. A failover is decided on the next
  // round with a fresh inventory; by then a preempting role master may have
  // claimed mastership by itself, or the master may have handed over. What
  // the operator asked for (take mastership here, move it away from here)
  // is then done already, and never turned into its opposite.
  enum class IssuedOn { kUnknown, kMaster, kStandby };
  IssuedOn issued_on = IssuedOn::kUnknown;
};

struct Observation {
  LocalOpenSm opensm;
  std::optional<LocalSmInfo> local_sm;  // nullopt: Get failed or OpenSM down
  std::optional<LocalPort> local_port;  // nullopt: PortInfo Get failed
  std::optional<MasterWatch> master;    // nullopt: no remote master known
  // Every SM the SA lists. nullopt: the SA query failed or was not refreshed
  // in this step; the policy keeps the last list it saw.
  std::optional<std::vector<SmEntry>> sms;
  // First-hand SMInfo of SMs the last list showed STANDBY, read this step
  // while the local SM is MASTER (between lists): a claim shows here first.
  std::vector<SmEntry> standby_reads;
  bool sm_key_mismatch = false;  // OpenSM logged ERR 2F18 recently
  std::optional<OperatorCommand> command;  // delivered in exactly one step
  // A HandOverThenKill's HANDOVER went unanswered or was refused: OpenSM was
  // not killed and is still MASTER. Delivered in exactly one step.
  bool direct_handover_failed = false;
  // Asked only while a restart after a HANDOVER waits for the new master
  // (FailoverPolicy::waits_for_new_master_sweep): whether the SA at the
  // local port's SM LID answered this step. OpenSM's SA ignores every
  // request until its first heavy sweep as master is over
  // (osm_sa_mad_ctrl.c), so an answer says that sweep has ended.
  std::optional<bool> master_sa_answers;
};

}  // namespace smsupd::policy
