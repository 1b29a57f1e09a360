#include "policies/transition_table.h"

namespace smsupd::policy {
namespace {

using S = SupervisorState;
using E = PolicyEvent;

// One row per legal pair; see the diagram in failover_policy.h. Rows whose
// `to` equals `from` are legal no-ops for the state machine (the handler may
// still act, e.g. refuse a command or kick a second master).
const std::vector<Transition> kTable = {
    // STARTING: wait for the first SA/port readings, then start OpenSM.
    {S::kStarting, E::kStartupReady, S::kNotActive, S::kNotActive, ""},
    {S::kStarting, E::kOpenSmStarted, S::kNotActive, S::kNotActive, "adopted"},
    {S::kStarting, E::kDualMaster, S::kStarting, S::kStarting, "others resolve it"},
    {S::kStarting, E::kStopCommand, S::kStopped, S::kStopped, ""},
    {S::kStarting, E::kFailoverCommand, S::kStarting, S::kStarting, "refused"},

    // NOTACTIVE / DISCOVERING: OpenSM decides by its own election.
    {S::kNotActive, E::kOpenSmStarted, S::kNotActive, S::kNotActive, "the start we asked"},
    {S::kNotActive, E::kLocalDiscovering, S::kDiscovering, S::kDiscovering, ""},
    {S::kNotActive, E::kLocalStandby, S::kStandby, S::kStandby, ""},
    {S::kNotActive, E::kLocalMaster, S::kMaster, S::kMaster, ""},
    {S::kNotActive, E::kOpenSmExited, S::kRecovering, S::kRecovering, ""},
    {S::kNotActive, E::kDualMaster, S::kNotActive, S::kNotActive, "kick the loser"},
    {S::kNotActive, E::kStopCommand, S::kStopping, S::kStopping, ""},
    {S::kNotActive, E::kFailoverCommand, S::kNotActive, S::kNotActive, "refused"},
    {S::kDiscovering, E::kLocalNotActive, S::kNotActive, S::kNotActive, ""},
    {S::kDiscovering, E::kLocalStandby, S::kStandby, S::kStandby, ""},
    {S::kDiscovering, E::kLocalMaster, S::kMaster, S::kMaster, ""},
    {S::kDiscovering, E::kOpenSmExited, S::kRecovering, S::kRecovering, ""},
    {S::kDiscovering, E::kDualMaster, S::kDiscovering, S::kDiscovering, "kick the loser"},
    {S::kDiscovering, E::kStopCommand, S::kStopping, S::kStopping, ""},
    {S::kDiscovering, E::kFailoverCommand, S::kDiscovering, S::kDiscovering, "refused"},

    // STANDBY: watch the master; take over only when it is really gone.
    {S::kStandby, E::kLocalNotActive, S::kNotActive, S::kNotActive, ""},
    {S::kStandby, E::kLocalDiscovering, S::kDiscovering, S::kDiscovering, ""},
    {S::kStandby, E::kLocalMaster, S::kMaster, S::kMaster, "handover received"},
    {S::kStandby, E::kMasterLost, S::kTakingOver, S::kTakingOver, ""},
    {S::kStandby, E::kNoMaster, S::kTakingOver, S::kTakingOver, ""},
    {S::kStandby, E::kDualMaster, S::kStandby, S::kStandby, "kick the loser"},
    {S::kStandby, E::kOpenSmExited, S::kRecovering, S::kRecovering, ""},
    {S::kStandby, E::kStopCommand, S::kStopping, S::kStopping, ""},
    {S::kStandby, E::kFailoverCommand, S::kStandby, S::kStandby, "claim or refuse"},
    {S::kStandby, E::kDeadline, S::kStandby, S::kStandby, "claim not served"},

    // MASTER: hold the top priority; hand over on exit, command, claim, loss.
    {S::kMaster, E::kLocalNotActive, S::kNotActive, S::kNotActive, ""},
    {S::kMaster, E::kLocalDiscovering, S::kDiscovering, S::kDiscovering, ""},
    {S::kMaster, E::kLocalStandby, S::kStandby, S::kStandby, "OpenSM handed over"},
    {S::kMaster, E::kOpenSmExited, S::kRecovering, S::kRecovering, ""},
    {S::kMaster, E::kDualMaster, S::kHandingOver, S::kMaster, "local SM loses the election"},
    {S::kMaster, E::kClaimSeen, S::kHandingOver, S::kMaster, "claimer is the best standby"},
    {S::kMaster, E::kStopCommand, S::kHandingOver, S::kStopping, "a standby exists"},
    {S::kMaster, E::kFailoverCommand, S::kHandingOver, S::kMaster, "command accepted"},

    // TAKING_OVER: HANDOVER sent to the local SM.
    {S::kTakingOver, E::kLocalMaster, S::kMaster, S::kMaster, ""},
    {S::kTakingOver, E::kLocalStandby, S::kTakingOver, S::kTakingOver, "not yet"},
    {S::kTakingOver, E::kLocalDiscovering, S::kTakingOver, S::kTakingOver, "sweeping"},
    {S::kTakingOver, E::kLocalNotActive, S::kTakingOver, S::kTakingOver, "not yet"},
    {S::kTakingOver, E::kMasterLost, S::kTakingOver, S::kTakingOver, "already acting"},
    {S::kTakingOver, E::kNoMaster, S::kTakingOver, S::kTakingOver, "already acting"},
    {S::kTakingOver, E::kDualMaster, S::kTakingOver, S::kTakingOver, "settles as MASTER"},
    {S::kTakingOver, E::kDeadline, S::kStandby, S::kStandby, ""},
    {S::kTakingOver, E::kOpenSmExited, S::kRecovering, S::kRecovering, ""},
    {S::kTakingOver, E::kStopCommand, S::kStopping, S::kStopping, ""},
    {S::kTakingOver, E::kFailoverCommand, S::kTakingOver, S::kTakingOver, "refused"},

    // HANDING_OVER: local priority at 0; the fabric must show another MASTER.
    {S::kHandingOver, E::kHandoverComplete, S::kStandby, S::kStopping, "no stop pending"},
    {S::kHandingOver, E::kLocalMaster, S::kMaster, S::kHandingOver, "handed the mastership back"},
    {S::kHandingOver, E::kLocalStandby, S::kHandingOver, S::kHandingOver, "wait for fabric"},
    {S::kHandingOver, E::kLocalDiscovering, S::kHandingOver, S::kHandingOver, "not yet"},
    {S::kHandingOver, E::kLocalNotActive, S::kHandingOver, S::kHandingOver, "not yet"},
    {S::kHandingOver, E::kDualMaster, S::kHandingOver, S::kHandingOver, "being resolved"},
    {S::kHandingOver, E::kClaimSeen, S::kHandingOver, S::kHandingOver, "being served"},
    {S::kHandingOver, E::kDeadline, S::kMaster, S::kStopping, "no stop pending"},
    {S::kHandingOver, E::kOpenSmExited, S::kRecovering, S::kStopped, "no stop pending"},
    {S::kHandingOver, E::kStopCommand, S::kHandingOver, S::kHandingOver, "stop after it"},
    {S::kHandingOver, E::kFailoverCommand, S::kHandingOver, S::kHandingOver, "refused"},
    // The SM that took mastership died before the handover was confirmed,
    // and the local SM is STANDBY: take it back (unless stopping).
    {S::kHandingOver, E::kMasterLost, S::kTakingOver, S::kHandingOver, "no stop pending"},
    {S::kHandingOver, E::kNoMaster, S::kTakingOver, S::kHandingOver, "no stop pending"},

    // RECOVERING: OpenSM down, restart pending in the supervisor.
    {S::kRecovering, E::kOpenSmStarted, S::kNotActive, S::kNotActive, ""},
    {S::kRecovering, E::kOpenSmExited, S::kRecovering, S::kRecovering, "restart again"},
    {S::kRecovering, E::kDualMaster, S::kRecovering, S::kRecovering, "kick the loser"},
    {S::kRecovering, E::kStopCommand, S::kStopped, S::kStopped, ""},
    {S::kRecovering, E::kFailoverCommand, S::kRecovering, S::kRecovering, "refused"},

    // A hung local OpenSM is stopped (its exit then follows the usual path)
    // whatever the state, except while it is being stopped anyway.
    {S::kNotActive, E::kLocalSmSilent, S::kNotActive, S::kNotActive, "stop it"},
    {S::kDiscovering, E::kLocalSmSilent, S::kDiscovering, S::kDiscovering, "stop it"},
    {S::kStandby, E::kLocalSmSilent, S::kStandby, S::kStandby, "stop it"},
    {S::kMaster, E::kLocalSmSilent, S::kMaster, S::kMaster, "stop it"},
    {S::kTakingOver, E::kLocalSmSilent, S::kTakingOver, S::kTakingOver, "stop it"},
    {S::kHandingOver, E::kLocalSmSilent, S::kHandingOver, S::kHandingOver, "stop it"},
    {S::kStopping, E::kLocalSmSilent, S::kStopping, S::kStopping, "being stopped"},

    // A MASTER whose OpenSM has not finished its first sweep within
    // master_sweep_timeout does not manage the fabric: it hands over to the
    // best STANDBY (HandOverThenKill), or, with none, its OpenSM is stopped
    // and the exit restarts it (RECOVERING).
    {S::kMaster, E::kMasterNotSweeping, S::kHandingOver, S::kMaster, "a standby to hand over to"},

    // STOPPING / STOPPED.
    {S::kStopping, E::kOpenSmExited, S::kStopped, S::kStopped, ""},
    {S::kStopping, E::kLocalNotActive, S::kStopping, S::kStopping, "exiting"},
    {S::kStopping, E::kLocalDiscovering, S::kStopping, S::kStopping, "exiting"},
    {S::kStopping, E::kLocalStandby, S::kStopping, S::kStopping, "exiting"},
    {S::kStopping, E::kLocalMaster, S::kStopping, S::kStopping, "exiting"},
    {S::kStopping, E::kDualMaster, S::kStopping, S::kStopping, "exiting"},
    {S::kStopping, E::kDeadline, S::kStopped, S::kStopped, ""},
    {S::kStopping, E::kStopCommand, S::kStopping, S::kStopping, "already"},
    {S::kStopping, E::kFailoverCommand, S::kStopping, S::kStopping, "refused"},
    {S::kStopped, E::kStopCommand, S::kStopped, S::kStopped, "already"},
    {S::kStopped, E::kFailoverCommand, S::kStopped, S::kStopped, "refused"},

    // RESTART_COMMAND: a MASTER hands over first (HANDING_OVER, then its
    // OpenSM is stopped and started again as a standby); elsewhere OpenSM is
    // stopped at once and its exit (RECOVERING) starts it again.
    {S::kStarting, E::kRestartCommand, S::kStarting, S::kStarting, "refused"},
    {S::kNotActive, E::kRestartCommand, S::kNotActive, S::kNotActive, "restart in place"},
    {S::kDiscovering, E::kRestartCommand, S::kDiscovering, S::kDiscovering, "restart in place"},
    {S::kStandby, E::kRestartCommand, S::kStandby, S::kStandby, "restart in place"},
    {S::kMaster, E::kRestartCommand, S::kHandingOver, S::kMaster, "a standby exists"},
    {S::kTakingOver, E::kRestartCommand, S::kTakingOver, S::kTakingOver, "refused"},
    {S::kHandingOver, E::kRestartCommand, S::kHandingOver, S::kHandingOver, "refused"},
    {S::kRecovering, E::kRestartCommand, S::kRecovering, S::kRecovering, "refused"},
    {S::kStopping, E::kRestartCommand, S::kStopping, S::kStopping, "refused"},
    {S::kStopped, E::kRestartCommand, S::kStopped, S::kStopped, "refused"},
};

}  // namespace

const std::vector<Transition>& TransitionTable() { return kTable; }

const Transition* FindTransition(SupervisorState from, PolicyEvent event) {
  for (const Transition& t : kTable) {
    if (t.from == from && t.event == event) return &t;
  }
  return nullptr;
}

const char* SupervisorStateName(SupervisorState state) {
  switch (state) {
    case S::kStarting: return "STARTING";
    case S::kNotActive: return "NOTACTIVE";
    case S::kDiscovering: return "DISCOVERING";
    case S::kStandby: return "STANDBY";
    case S::kMaster: return "MASTER";
    case S::kTakingOver: return "TAKING_OVER";
    case S::kHandingOver: return "HANDING_OVER";
    case S::kRecovering: return "RECOVERING";
    case S::kStopping: return "STOPPING";
    case S::kStopped: return "STOPPED";
  }
  return "?";
}

const char* PolicyEventName(PolicyEvent event) {
  switch (event) {
    case E::kStartupReady: return "STARTUP_READY";
    case E::kOpenSmStarted: return "OPENSM_STARTED";
    case E::kOpenSmExited: return "OPENSM_EXITED";
    case E::kLocalNotActive: return "LOCAL_NOTACTIVE";
    case E::kLocalDiscovering: return "LOCAL_DISCOVERING";
    case E::kLocalStandby: return "LOCAL_STANDBY";
    case E::kLocalMaster: return "LOCAL_MASTER";
    case E::kLocalSmSilent: return "LOCAL_SM_SILENT";
    case E::kMasterNotSweeping: return "MASTER_NOT_SWEEPING";
    case E::kMasterLost: return "MASTER_LOST";
    case E::kNoMaster: return "NO_MASTER";
    case E::kDualMaster: return "DUAL_MASTER";
    case E::kClaimSeen: return "CLAIM_SEEN";
    case E::kHandoverComplete: return "HANDOVER_COMPLETE";
    case E::kDeadline: return "DEADLINE";
    case E::kFailoverCommand: return "FAILOVER_COMMAND";
    case E::kStopCommand: return "STOP_COMMAND";
    case E::kRestartCommand: return "RESTART_COMMAND";
  }
  return "?";
}

}  // namespace smsupd::policy
