// The master/standby failover policy: a pure state machine. The daemon calls
// Decide(observation, now) after every poll result, child exit or command and
// executes the returned actions in order. No I/O, no threads, no sleeping:
// time only enters through `now`.
//
//                  STARTUP_READY / OPENSM_STARTED (adopt)
//   STARTING ----------------------------------------------> NOTACTIVE
//                                                           |   ^   |
//                                         LOCAL_DISCOVERING v   |   | LOCAL_STANDBY
//                                                   DISCOVERING |   |  / LOCAL_MASTER
//               LOCAL_MASTER (OpenSM won or got a HANDOVER)  |   |   v
//        +------------------------------------------------ STANDBY <------------+
//        |                                                   |                  |
//        |                   MASTER_LOST / NO_MASTER         |                  |
//        |                  (TakeOver: HANDOVER to self)     v                  |
//        |                                             TAKING_OVER              |
//        |                 LOCAL_MASTER                  |      | DEADLINE ---->+
//        v  <--------------------------------------------+                      |
//      MASTER --- FAILOVER / STOP / CLAIM_SEEN / DUAL_MASTER (local loses) ---+  |
//        ^          (SetLocalPriority(0): OpenSM hands over by itself)        v  |
//        +------------------ DEADLINE (priority restored) --------------- HANDING_OVER
//                                                HANDOVER_COMPLETE ------------+
//   HANDING_OVER --MASTER_LOST / NO_MASTER (the new master died; no stop)--> TAKING_OVER
//                                               (stop pending: -> STOPPING)
//
//   FAILOVER on the MASTER enters HANDING_OVER with HandOverThenKill instead
//   of the yield (the yield only if its HANDOVER is not answered); the kill's
//   OPENSM_EXITED leads to RECOVERING with no second HANDOVER; the reply
//   waits for the new master to show on the local port, the restart also
//   for the end of its first sweep (RestartAfterHandover).
//   any state with OpenSM running --OPENSM_EXITED--> RECOVERING
//        (from MASTER: SendHandover to the best STANDBY first; RestartOpenSm at a
//         standby priority in every case)   RECOVERING --OPENSM_STARTED--> NOTACTIVE
//   STOP_COMMAND: MASTER -> HANDING_OVER -> STOPPING; others -> STOPPING;
//   STOPPING --OPENSM_EXITED / DEADLINE--> STOPPED.
//   LOCAL_SM_SILENT (OpenSM runs, SMInfo unanswered): StopOpenSm, same state;
//   the exit that follows takes the OPENSM_EXITED path.
//   MASTER (or any other state with OpenSM running) with the local port Down:
//   StopOpenSm at once; the exit (while the port is Down) sends no HANDOVER
//   and defers the restart until the port is back, then RestartOpenSm at the
//   standby priority (StepDownWhenIsolated).
//   MASTER's OpenSM exits with no STANDBY on an SM list older than the exit
//   that names another SM: RECOVERING with RefreshSms; on the fresh list (or
//   at exit_list_wait) a HANDOVER to its best STANDBY, else RestartOpenSm
//   (HandOverOnFreshList).
//
// The full transition table (legal pairs, guards) is transition_table.cc;
// every pair not in it is reported as FAILOVER_ILLEGAL_EVENT and ignored.
// Priorities follow priority_plan.h. Timing and the OpenSM behaviour relied
// on are in docs/failover.md.
//
// Safety rules the events encode:
// - MASTER_LOST needs miss_threshold consecutive missed SMInfo polls AND the
//   master's port silent too (node/link gone), or miss_threshold +
//   silent_sm_extra_misses when the port still answers (SM process dead or
//   hung: its own smsupd normally hands over first), not counting those
//   during the local OpenSM's discovery (which makes a busy master re-sweep
//   and go silent); and a live-port master that was in a large sweep at its
//   last answer (computing routes under OpenSM's lock) only
//   busy_master_silence after that answer. Any answer, however late, resets
//   the count: a busy master is never taken over.
// - Only the best-ranked STANDBY acts at once; the others wait
//   defer_to_better_candidate, so two standbys never both take over.
// - A STANDBY never ranks above the master; raising a priority happens only on
//   the node that is already MASTER (the paths seen to be safe:
//   docs/opensm-behaviour.md "Controlled failover: safe and unsafe priority
//   changes").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "policies/action.h"
#include "policies/observation.h"
#include "policies/policy_config.h"
#include "policies/problems.h"
#include "policies/transition_table.h"

namespace smsupd::policy {

class FailoverPolicy {
 public:
  FailoverPolicy(PolicyConfig config, TimePoint now);

  // One step. `observation.command` is consumed in this step.
  Actions Decide(const Observation& observation, TimePoint now);

  SupervisorState state() const { return state_; }
  // The sm_priority last asked of OpenSM (start, restart, SIGHUP, or written
  // to opensm.conf for its next heavy sweep: priority_deferred()).
  std::optional<int> commanded_priority() const { return commanded_priority_; }
  // The commanded priority is in opensm.conf but no SIGHUP was sent for it:
  // a new MASTER's raise, applied by OpenSM's next heavy sweep (RaiseMaster).
  bool priority_deferred() const { return deferred_raise_.has_value(); }
  // A restart deferred after a HANDOVER waits for the new master's first
  // sweep to end: the daemon asks that master's SA each round
  // (Observation::master_sa_answers).
  bool waits_for_new_master_sweep() const { return restart_after_handover_.has_value(); }
  // The SMs as the policy sees them now (SA list + direct SMInfo reads).
  const std::vector<SmEntry>& view() const { return view_; }
  const ProblemSet& problems() const { return problems_.raised(); }
  const PolicyConfig& config() const { return config_; }

  // The priority a (re)start of OpenSM uses, decided now, and commanded from
  // now on. The supervisor asks when a restart back-off ends: the subnet may
  // have changed since OpenSM exited.
  int PriorityForStart();

  // How often each race or anomaly was seen and acted on, by name
  // ("dual_master", "no_master", "isolated_master", "superseded_master", "handover_taken_back",
  // "restart"): for status and metrics.
  const std::map<std::string, std::uint64_t>& counters() const { return counters_; }

  // Test hook: put the machine in a state as if it had got there, with the
  // OpenSM child running (used by the table-driven transition tests).
  void ForceStateForTest(SupervisorState state, TimePoint now);
  // Test hook: one step that applies exactly `event` (no derived events).
  Actions ApplyForTest(PolicyEvent event, const Observation& observation, TimePoint now);

 private:
  // failover_policy.cc: the step loop and the state machine core.
  void Absorb(const Observation& observation);
  void Apply(PolicyEvent event);
  void ConsumeOneShot(PolicyEvent event);
  void Enter(SupervisorState next, PolicyEvent event);
  void ReconcilePriority();
  void RaiseMaster();
  void HangUpDeferredRaise();
  bool OutrankedNow() const;
  void ExtendHandoverWhileSweeping();
  void YieldIfHandoverFailed();
  void RestartAfterHandover();
  bool NewMasterSweeping();
  void StepDownWhenIsolated();
  void UpdateProblems();
  void Emit(Action action) { actions_.push_back(std::move(action)); }

  // failover_events.cc: events derived from the observation and timers.
  void UpdateTimers();
  std::vector<PolicyEvent> DeriveEvents() const;
  bool CommandWaitsForAStandby() const;
  void BuildView();
  std::optional<SmState> LocalState() const;
  std::optional<SmEntry> RemoteMaster() const;
  std::vector<SmEntry> Masters() const;
  bool MasterGone() const;
  bool InLargeSweepAtLastAnswer(const MasterWatch& w) const;
  bool LocalIsBestCandidate(Guid exclude) const;
  bool MasterLostDue() const;
  bool NoMasterDue() const;
  bool DualMasterDue() const;
  std::optional<SmEntry> Claimer() const;
  bool HandoverCompleteDue() const;
  bool StartupReadyDue() const;
  bool MasterNotSweepingDue() const;
  bool Claiming() const;

  // failover_handlers.cc: one handler per event; the return value is the
  // transition's guard (true: go to `to`, false: go to `otherwise`).
  bool Handle(PolicyEvent event);
  bool OnStartupReady();
  bool OnOpenSmStarted();
  bool OnOpenSmExited();
  void HandOverAfterExit(const SmEntry& best, const std::string& info);
  bool PeerListedOnAnOldList() const;
  void HandOverOnFreshList();
  bool TakeBackDuringHandover(const std::string& why);
  bool TakeOverSentThisStep() const;
  bool OnMasterLost();
  bool OnNoMaster();
  bool OnDualMaster();
  std::optional<SmEntry> SupersedingMaster(const std::vector<SmEntry>& masters) const;
  bool ReturnedMasterWithinGrace(const SmEntry& winner) const;
  bool OnClaimSeen();
  bool OnHandoverComplete();
  bool OnDeadline();
  bool OnFailoverCommand();
  bool StartClaim(const std::optional<Guid>& target);
  std::optional<std::string> FailoverRefusal(const std::optional<Guid>& target,
                                             std::optional<SmEntry>& chosen) const;
  bool OnStopCommand();
  bool OnRestartCommand();
  void ReplyWhenRestarted(SupervisorState next);
  bool OnLocalSmSilent();
  bool OnMasterNotSweeping();
  bool OnLocalMaster();
  int PriorityAfterAnOutage();
  void SetPriority(int priority);

  PolicyConfig config_;
  SupervisorState state_ = SupervisorState::kStarting;
  TimePoint created_at_;
  TimePoint now_;
  TimePoint entered_at_;
  TimePoint deadline_;
  Actions actions_;                    // of the current step
  const Observation* observation_ = nullptr;  // of the current step

  // Facts carried between steps.
  std::vector<SmEntry> sms_;   // last SA list
  bool sms_known_ = false;
  TimePoint sms_fresh_at_;
  std::vector<SmEntry> view_;  // sms_ overlaid with this step's direct reads
  bool was_running_ = false;
  bool exit_pending_ = false;
  bool start_pending_ = false;
  std::optional<OperatorCommand> command_;
  std::optional<TimePoint> command_since_;  // when command_ arrived
  std::optional<TimePoint> peer_active_at_;  // last view with another SM STANDBY/DISCOVERING/MASTER
  std::optional<int> commanded_priority_;
  std::optional<SmState> last_local_state_;

  // Condition timers (set when a condition starts, cleared when it ends).
  std::optional<TimePoint> lost_since_;
  std::optional<TimePoint> no_master_since_;
  std::optional<TimePoint> dual_since_;
  std::optional<TimePoint> last_kick_;
  bool dual_reported_ = false;  // DUAL_MASTER event sent for this episode
  std::optional<TimePoint> local_silent_since_;
  std::optional<TimePoint> local_master_since_;  // local SM MASTER since
  bool hang_acted_ = false;  // StopOpenSm sent for the current silence
  // The watched master's misses at the end of the local OpenSM's discovery
  // (which makes a busy master silent for a while); 0 once it answers.
  int misses_in_local_discovery_ = 0;
  // The watched master's ActCount as last answered, when it was read, and
  // when it last rose at a sweep's rate (a dual master's loser is kicked
  // only once it is idle; a new SM counts as busy at its first reading).
  Guid act_guid_ = 0;
  std::uint32_t act_count_ = 0;
  TimePoint act_read_at_{};
  TimePoint act_busy_at_{};
  std::uint32_t act_sweep_base_ = 0;              // its ActCount when its current sweep began
  std::optional<std::uint32_t> local_act_count_;  // the local SM's ActCount, last seen
  TimePoint local_act_at_{};                     // ... at this step
  TimePoint local_busy_at_{};  // it last rose at kSweepingSmpsPerSecond
  bool not_sweeping_acted_ = false;  // MASTER_NOT_SWEEPING acted on, this mastership
  // Polls (both smsupds, the inventory) make an idle OpenSM send ~20 MADs/s;
  // a heavy sweep sends thousands.
  static constexpr double kSweepingSmpsPerSecond = 100;
  // An ActCount that went from `before` (read at `before_at`) to `after`
  // (read at `at`, later) rose at kSweepingSmpsPerSecond or more.
  static bool RoseAtSweepRate(std::uint32_t before, TimePoint before_at, std::uint32_t after,
                              TimePoint at) {
    const double seconds = std::chrono::duration<double>(at - before_at).count();
    const std::uint32_t rise = after - before;  // wraps like the counter
    return seconds > 0 && rise / seconds >= kSweepingSmpsPerSecond;
  }
  // A MASTER's first sweep has stopped (MASTER_NOT_SWEEPING) once its
  // ActCount has not risen at a sweep's rate for this long. OpenSM pauses
  // while it waits out MAD timeouts (an SM port that no longer answers
  // SMInfo: up to ~1 s with the tuned timeouts), so a shorter lull does not
  // end the sweep.
  static constexpr Duration kNewMasterQuiet{2000};
  // A sweep that sent this many SMPs is a large fabric's: ~8,600 on 648
  // HCAs, ~34,000 on 2,592 (routing computed in well under a second, within
  // the usual misses), ~270,000 on 10,000 (routing computed for 1.5-4 s,
  // SMInfo unanswered meanwhile: busy_master_silence).
  static constexpr std::uint32_t kLargeSweepSmps = 50000;
  // The deferred restart's reading of the same quiet, once the new master's
  // sweep has named it on this node's port: its discovery (where SMInfo
  // timeouts pause it) is over, and what is left of the sweep sends at
  // once, except for the routing computation. A MAD that times out there
  // pauses OpenSM for at most transaction_timeout x (retries + 1), 800 ms
  // by default. On 10,000 HCAs the computation can last less than 2 s; an
  // OpenSM started after it walks the subnet beside the heavy sweep its own
  // trap 144 starts (4.3-4.5 s to STANDBY instead of 1.3-1.5 s).
  static constexpr Duration kNamedSweepQuiet{1200};
  // handover_reason_ of a MASTER_NOT_SWEEPING handover.
  static constexpr char kNotSweepingReason[] = "master not sweeping";
  TimePoint act_changed_at_;
  TimePoint standby_since_;

  // Handover in progress.
  std::optional<SmEntry> handover_target_;
  std::string handover_reason_;
  bool stopping_ = false;          // stop once the handover completes
  bool restarting_ = false;        // restart OpenSM once handed over / once it exits
  bool restart_waiting_ = false;   // a restart command awaits its reply (wait)
  bool operator_waiting_ = false;  // a failover command awaits its reply
  // smctl failover on the MASTER: HandOverThenKill, not the yield.
  bool direct_handover_ = false;
  std::uint32_t master_entries_at_yield_ = 0;  // LocalOpenSm::master_entries at Enter(kHandingOver)
  // ... and its OpenSM is gone: the reply waits for the new master to show
  // on the local port (RestartAfterHandover).
  bool reply_when_shown_ = false;
  bool parked_ = false;            // preempt claim suspended (operator moved us)
  bool operator_claim_ = false;    // failover run here, on a STANDBY: claiming
  bool preempt_blocked_reported_ = false;
  bool isolation_stop_sent_ = false;     // StopOpenSm sent for this port-down episode
  // SMs listed STANDBY on an SM list taken during the current mastership
  // (SupersedingMaster).
  std::set<Guid> standbys_this_mastership_;
  bool supersede_stop_sent_ = false;      // StopOpenSm sent: a newer master swept the local port
  bool restart_after_supersede_ = false;  // ... and its exit restarts it as a standby
  // The master this node took over from after losing it (OnMasterLost).
  struct TookOverFrom {
    Guid guid = 0;
    TimePoint at{};
  };
  std::optional<TookOverFrom> took_over_from_;
  bool returned_master_reported_ = false;  // DUAL_MASTER_HELD sent for this episode
  // How long a new master holds on against the master it took over from,
  // when that one comes back still MASTER and would win OpenSM's election:
  // its own smsupd stops it (SupersedingMaster) within a watch round or
  // two; with no smsupd there, OpenSM's election decides after this.
  static constexpr Duration kReturnedMasterGrace{10000};
  // OpenSM exited as MASTER and its HANDOVER went to `new_master`: restart
  // when that SM shows as the master, or at `deadline`.
  struct PendingRestart {
    Guid new_master = 0;
    TimePoint since{};  // the exit
    // The new master's ActCount as last read, and when it last rose at a
    // sweep's rate (NewMasterSweeping).
    std::optional<std::uint32_t> act_count;
    TimePoint act_at{};
    TimePoint busy_at{};
    static PendingRestart To(Guid guid, TimePoint exit) {
      PendingRestart pending;
      pending.new_master = guid;
      pending.since = exit;
      return pending;
    }
  };
  std::optional<PendingRestart> restart_after_handover_;
  // RaiseMaster wrote the master priority without a SIGHUP: at, and the
  // SIGHUP that follows if no heavy sweep applied it by at + wait.
  struct DeferredRaise {
    TimePoint at{};
    Duration wait{};
  };
  std::optional<DeferredRaise> deferred_raise_;
  // A deferred raise waits at least this long for a heavy sweep OpenSM
  // starts by itself, and at least 1.5 times the first sweep it follows.
  static constexpr Duration kRaiseHangupFloor{3000};
  // The local OpenSM's last first sweep as master, from its "Entering
  // MASTER state" to its SUBNET UP as the observations showed them.
  struct FirstSweep {
    TimePoint started{};
    TimePoint ended{};
  };
  std::optional<TimePoint> first_sweep_started_;
  std::optional<FirstSweep> last_first_sweep_;
  bool restart_after_port_down_ = false;  // OpenSM exited while the port was Down
  // A MASTER's OpenSM exited with no STANDBY on an old SM list
  // (HandOverOnFreshList): since the exit, and how it exited.
  struct ExitWait {
    TimePoint since{};
    std::string info;
  };
  std::optional<ExitWait> exit_waits_for_list_;

  std::map<std::string, std::uint64_t> counters_;
  ProblemTracker problems_;
  std::set<std::pair<SupervisorState, PolicyEvent>> illegal_reported_;
};

}  // namespace smsupd::policy
