// The supervisor's states and events, and the one table that says which
// (state, event) pairs are legal and where each leads. Everything not in the
// table is illegal: the policy logs it (FAILOVER_ILLEGAL_EVENT) and stays put.
// The diagram and the rationale live in failover_policy.h.
#pragma once

#include <vector>

namespace smsupd::policy {

// NOTACTIVE..MASTER mirror the local OpenSM's SMInfo state as read over MADs;
// the others are the supervisor's own.
enum class SupervisorState {
  kStarting,     // policy created, OpenSM not yet started (or to be adopted)
  kNotActive,    // OpenSM running, SMInfo NOTACTIVE or not read yet
  kDiscovering,  // OpenSM sweeping, not yet MASTER or STANDBY
  kStandby,      // OpenSM STANDBY; the remote master is watched
  kMaster,       // OpenSM MASTER
  kTakingOver,   // HANDOVER sent to the local SM; waiting to see it MASTER
  kHandingOver,  // local priority lowered; waiting for another MASTER
  kRecovering,   // OpenSM exited; restart requested (supervisor's back-off)
  kStopping,     // StopOpenSm sent; waiting for the child to exit
  kStopped,      // terminal
};

enum class PolicyEvent {
  kStartupReady,      // enough known (or waited long enough) to start OpenSM
  kOpenSmStarted,     // child running (started, restarted or adopted)
  kOpenSmExited,      // child exit seen
  kLocalNotActive,    // local SMInfo state differs from the supervisor state
  kLocalDiscovering,
  kLocalStandby,
  kLocalMaster,
  kLocalSmSilent,     // the local OpenSM runs but has not answered SMInfo
  kMasterNotSweeping, // the local MASTER's first sweep has not ended in time
  kMasterLost,        // remote master missed N polls and the cross-check agrees
  kNoMaster,          // no MASTER anywhere for no_master_grace
  kDualMaster,        // two or more MASTERs for dual_master_grace
  kClaimSeen,         // (preempt) a returning master claims at master_priority-1
  kHandoverComplete,  // another SM is MASTER, the local SM is not
  kDeadline,          // the current state's deadline passed
  kFailoverCommand,   // smctl failover [--to GUID]
  kStopCommand,       // SIGTERM / systemctl stop
  kRestartCommand,    // smctl restart-opensm, reload --restart
};

const char* SupervisorStateName(SupervisorState state);  // "STANDBY", "TAKING_OVER"
const char* PolicyEventName(PolicyEvent event);          // "MASTER_LOST"

// A legal pair. `to` when the handler's guard holds, `otherwise` when not
// (e.g. a failover command is refused: MASTER stays MASTER).
struct Transition {
  SupervisorState from;
  PolicyEvent event;
  SupervisorState to;
  SupervisorState otherwise;
  const char* guard;  // what decides between to and otherwise ("" = always to)
};

const std::vector<Transition>& TransitionTable();

// nullptr when the pair is illegal.
const Transition* FindTransition(SupervisorState from, PolicyEvent event);

}  // namespace smsupd::policy
