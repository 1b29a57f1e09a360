// Settings of the failover policy. The daemon fills them from smsupd.yaml
// (sm.role, sm.priority, sm.preempt, the inventory of hosts) and from the
// timing defaults documented in docs/failover.md.
#pragma once

#include <string>
#include <vector>

#include "common/guid.h"
#include "policies/observation.h"

namespace smsupd::policy {

enum class Role { kMaster, kStandby };

struct PolicyConfig {
  Guid local_guid = 0;  // port GUID the local OpenSM binds
  Role role = Role::kStandby;
  // The two steady priorities (YAML sm.priority fills the one of this node's
  // role). Whichever SM is MASTER holds master_priority; every other SM holds
  // standby_priority. See priority_plan.h for the full plan.
  int master_priority = 15;
  int standby_priority = 5;
  bool preempt = true;
  // preempt: a returning role-master claims mastership back only after its
  // OpenSM has been a healthy STANDBY this long (no flapping).
  Duration hold_time{60000};
  // Consecutive missed master SMInfo polls before the master counts as gone
  // when its port does not answer either (node or link gone).
  int miss_threshold = 3;
  // Extra misses required when the master's port still answers (SM process
  // dead or hung on a live node): its own smsupd normally hands over first.
  int silent_sm_extra_misses = 3;
  // ... and when the master was seen in a large fabric's sweep at its last
  // answer (its ActCount rose at a sweep's rate less than 2 s before, by
  // 50,000 SMPs or more since that sweep began), its silence must also last
  // this long from that answer. OpenSM computes routes holding its subnet
  // lock, and its SMInfo receiver waits for that lock: on 10,000 HCAs a
  // master answered nothing for 1.5-4 s of each heavy sweep. Its own smsupd
  // hands over at once when its OpenSM dies and after local_silent_timeout
  // when it hangs, so a second longer than that is only paid when OpenSM
  // and smsupd on a live node both fail.
  Duration busy_master_silence{6000};
  // A STANDBY that is not the best candidate waits this long for the best.
  Duration defer_to_better_candidate{1000};
  // No MASTER anywhere this long: take over. A handover's own gap is far
  // shorter; 600 ms plus a poll ends the race within a second.
  Duration no_master_grace{600};
  // Two MASTERs this long (on a fresh SM list, asked for at once): act.
  // Acting only does what OpenSM itself would do at its next sweep (the
  // loser yields), and the loser's heavy sweep takes ~1.1 s on 648 HCAs:
  // acting after 500 ms ends the race within 2 s.
  Duration dual_master_grace{500};
  Duration startup_wait{3000};          // wait for SA data before first start
  // A failover or restart command on a MASTER whose only other SM is still
  // coming up (DISCOVERING: an OpenSM just restarted) waits this long for it
  // to be STANDBY before it is refused for want of a standby.
  Duration command_standby_wait{3000};
  // A MASTER's OpenSM that exits while its SM list is older than the exit
  // and names another SM, none of them STANDBY, waits this long at most for
  // a fresh list before it restarts in place instead of handing over. One
  // watch round with the inventory takes a few hundred ms; after a handover
  // the list names the old master MASTER for up to the inventory interval.
  Duration exit_list_wait{1000};
  // A role standby whose port is not Active at its first start (no SM has
  // brought the subnet up: a cold start of both nodes) waits this long for
  // the role master to come up first, so that the two do not both become
  // MASTER (docs/opensm-behaviour.md "Start-up races: dual master and no
  // master"). The role master starts at once.
  Duration standby_cold_start_wait{6000};
  Duration takeover_timeout{3000};      // HANDOVER to self until MASTER
  Duration handover_timeout{5000};      // yield until the target is MASTER
  // ... moved on while the yielding OpenSM keeps sending SMPs (its heavy
  // sweep runs), up to this long after the yield.
  Duration handover_sweep_limit{60000};
  Duration stop_timeout{10000};         // StopOpenSm until the child is gone
  Duration act_count_stall{10000};      // master answers, ActCount frozen
  Duration problem_settle{1000};        // a problem must last this long
  // The local OpenSM runs but its SMInfo goes unanswered this long: hung.
  Duration local_silent_timeout{5000};
  // How long a new master's first heavy sweep may take. A new MASTER raises
  // its priority only after that sweep's "SUBNET UP", or after this long if
  // the line never shows; a dead master's OpenSM, while the new master is
  // seen MASTER, restarts once that sweep reached its port, or after this.
  Duration first_sweep_hold{20000};
  // A MASTER whose OpenSM has not logged the end of its first sweep as
  // master (SUBNET UP) this long after it became MASTER, and has not sent
  // SMPs at a sweep's rate for the last 2 s, does not manage the fabric (a
  // MAD that never completes, a bug, a starved machine): it hands over to
  // the best STANDBY, or restarts its OpenSM. The largest fabric measured
  // (10,000 HCAs) ends its first sweep in ~14 s. YAML
  // sm.failover.master_sweep_timeout_ms; zero: off (OpenSM's options hide
  // the SUBNET UP line).
  Duration master_sweep_timeout{30000};
  // Known SM port GUIDs (inventory). Empty: the check is off.
  std::vector<Guid> inventory;
};

// Empty when usable; otherwise why not (for the daemon's startup log).
std::string CheckPolicyConfig(const PolicyConfig& config);

}  // namespace smsupd::policy
