// What the failover policy asks the daemon to do. The policy only decides;
// the daemon executes each action in order and reports the outcome through
// the next Observation (never through a return value into the policy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/guid.h"

namespace smsupd::policy {

struct Action {
  enum class Kind {
    // Re-render opensm.conf with sm_priority = priority and SIGHUP OpenSM.
    // The SIGHUP forces a heavy sweep, which re-reads sm_priority even on a
    // STANDBY (osm_state_mgr.c do_sweep rescans before the state check). Also
    // used with an unchanged priority purely to force that sweep.
    kSetLocalPriority,
    // SubnSet(SMInfo, AttributeModifier HANDOVER) to target_lid/target_guid.
    // To a STANDBY: it becomes MASTER at once. To a MASTER: it forces a heavy
    // sweep there, after which OpenSM hands over to a higher-ranked MASTER
    // (osm_sm_state_mgr.c, MASTER + HANDOVER).
    kSendHandover,
    // smctl failover on the MASTER: SubnSet(SMInfo HANDOVER) to the STANDBY
    // target_lid/target_guid, and once it answers (status 0: OpenSM answers
    // before it turns MASTER, osm_sminfo_rcv.c), SIGKILL the local OpenSM at
    // once (LocalSmControl::KillAfterHandover). The new master's first sweep
    // then finds no second MASTER here, which it would hand back to after
    // that sweep. One sweep instead of two (the yield's, then the new
    // master's). If the HANDOVER fails nothing is killed, and the next
    // observation says so (direct_handover_failed).
    kHandOverThenKill,
    // Make the local OpenSM MASTER now: SubnSet(SMInfo HANDOVER) to the local
    // SM's own LID (STANDBY + HANDOVER -> MASTER, osm_sm_state_mgr.c).
    kTakeOver,
    // First start of OpenSM with sm_priority = priority.
    kStartOpenSm,
    // Start OpenSM again after it exited, with sm_priority = priority, once
    // the supervisor's restart back-off allows (the back-off is its job).
    kRestartOpenSm,
    // SIGTERM the child (SIGKILL after the supervisor's grace) and cancel any
    // pending restart. The supervisor restarts OpenSM only on kRestartOpenSm.
    kStopOpenSm,
    // Take a fresh SM list (the SA's records and every known SM read
    // directly) in a round now, not at the next inventory interval: a
    // second MASTER must be confirmed on fresh data, and quickly.
    kRefreshSms,
    kRaiseProblem, kClearProblem,  // id (stable, docs/failover.md), text
    kEmitEvent,                    // kind (stable ID), text
    kReplyToOperator,              // ok, text: answer to an OperatorCommand
  };

  Kind kind = Kind::kEmitEvent;
  int priority = 0;
  Guid target_guid = 0;
  std::uint16_t target_lid = 0;
  std::string id;    // problem id or event kind
  std::string text;  // human-readable details / reply text
  bool ok = false;   // kReplyToOperator

  static Action SetLocalPriority(int priority);
  static Action SendHandover(Guid guid, std::uint16_t lid, std::string why);
  static Action HandOverThenKill(Guid guid, std::uint16_t lid, std::string why);
  static Action TakeOver(std::string why);
  static Action StartOpenSm(int priority);
  static Action RestartOpenSm(int priority);
  static Action StopOpenSm();
  static Action RefreshSms();
  static Action RaiseProblem(std::string id, std::string text);
  static Action ClearProblem(std::string id);
  static Action EmitEvent(std::string kind, std::string text);
  static Action Reply(bool ok, std::string text);

  // One line for logs and test failure messages: "SetLocalPriority(15)".
  std::string Describe() const;
};

using Actions = std::vector<Action>;

}  // namespace smsupd::policy
