#include "policies/failover_policy.h"

#include <algorithm>
#include <utility>

#include "policies/priority_plan.h"

namespace smsupd::policy {
namespace {

// A step that keeps changing state is a bug, not a fabric condition: cap it.
constexpr int kMaxTransitionsPerStep = 8;

}  // namespace

const char* SmStateName(SmState state) {
  switch (state) {
    case SmState::kNotActive: return "NOTACTIVE";
    case SmState::kDiscovering: return "DISCOVERING";
    case SmState::kStandby: return "STANDBY";
    case SmState::kMaster: return "MASTER";
  }
  return "?";
}

FailoverPolicy::FailoverPolicy(PolicyConfig config, TimePoint now)
    : config_(std::move(config)), created_at_(now), now_(now), entered_at_(now),
      deadline_(now + config_.startup_wait), sms_fresh_at_(now), act_changed_at_(now),
      standby_since_(now), problems_(config_.problem_settle) {}

void FailoverPolicy::ForceStateForTest(SupervisorState state, TimePoint now) {
  state_ = state;
  now_ = entered_at_ = standby_since_ = now;
  const bool running = state != SupervisorState::kStarting &&
                       state != SupervisorState::kRecovering &&
                       state != SupervisorState::kStopped;
  was_running_ = running;
  if (state == SupervisorState::kTakingOver) deadline_ = now + config_.takeover_timeout;
  if (state == SupervisorState::kHandingOver) deadline_ = now + config_.handover_timeout;
  if (state == SupervisorState::kStopping) deadline_ = now + config_.stop_timeout;
}

Actions FailoverPolicy::ApplyForTest(PolicyEvent event, const Observation& observation,
                                     TimePoint now) {
  actions_.clear();
  now_ = now;
  observation_ = &observation;
  Absorb(observation);
  Apply(event);
  observation_ = nullptr;
  return std::move(actions_);
}

Actions FailoverPolicy::Decide(const Observation& observation, TimePoint now) {
  actions_.clear();
  now_ = now;
  observation_ = &observation;
  Absorb(observation);
  std::set<PolicyEvent> done;
  for (int round = 0; round < kMaxTransitionsPerStep; ++round) {
    const SupervisorState before = state_;
    for (PolicyEvent event : DeriveEvents()) {
      if (!done.insert(event).second) continue;
      Apply(event);
      if (state_ != before) break;  // re-derive in the new state
    }
    if (state_ == before) break;
  }
  if (state_ == SupervisorState::kMaster && observation.sms)
    for (const SmEntry& sm : *observation.sms)
      if (sm.state == SmState::kStandby && sm.guid != config_.local_guid)
        standbys_this_mastership_.insert(sm.guid);
  StepDownWhenIsolated();
  HandOverOnFreshList();
  RestartAfterHandover();
  ReconcilePriority();
  UpdateProblems();
  if (auto s = LocalState()) last_local_state_ = s;
  observation_ = nullptr;
  return std::move(actions_);
}

void FailoverPolicy::Absorb(const Observation& observation) {
  const bool running = observation.opensm.running;
  if (was_running_ && !running) exit_pending_ = true;
  if (!was_running_ && running) start_pending_ = true;
  was_running_ = running;
  if (observation.command) {
    command_ = observation.command;
    command_since_ = now_;
  }
  if (observation.sms) {
    sms_ = *observation.sms;
    sms_known_ = true;
    sms_fresh_at_ = now_;
  }
  if (running && observation.opensm.first_sweep_running) {
    if (!first_sweep_started_) first_sweep_started_ = now_;
  } else if (first_sweep_started_) {
    if (running) last_first_sweep_ = FirstSweep{*first_sweep_started_, now_};  // its SUBNET UP
    first_sweep_started_.reset();
  }
  const bool local_master = running && observation.local_sm &&
                            observation.local_sm->state == SmState::kMaster;
  if (!local_master) {
    local_master_since_.reset();
    not_sweeping_acted_ = false;
  } else if (!local_master_since_) {
    local_master_since_ = now_;
  }
  // A master that went silent while the local OpenSM discovered: that
  // discovery makes the master sweep again, and on 10,000 HCAs a master
  // then answered no SMInfo for ~2 s. For "SM process dead" (the port
  // answers) those misses do not count.
  const auto& w = observation.master;
  if (!w || !running || w->consecutive_misses < misses_in_local_discovery_) misses_in_local_discovery_ = 0;
  const bool local_discovering = running && observation.local_sm &&
                                 observation.local_sm->state == SmState::kDiscovering;
  if (w && local_discovering) misses_in_local_discovery_ = w->consecutive_misses;
  BuildView();
  for (const SmEntry& sm : view_)
    if (sm.guid != config_.local_guid && sm.state != SmState::kNotActive) peer_active_at_ = now_;
  UpdateTimers();
  YieldIfHandoverFailed();
}

// The HANDOVER of a HandOverThenKill was not answered (or refused): OpenSM
// still runs as MASTER and nobody else took over. Hand over the slow way:
// priority 0 and a SIGHUP, OpenSM's own HANDOVER at the end of its sweep,
// with the handover deadline counted from now.
void FailoverPolicy::YieldIfHandoverFailed() {
  if (!observation_->direct_handover_failed || state_ != SupervisorState::kHandingOver ||
      !direct_handover_)
    return;
  direct_handover_ = false;
  if (handover_reason_ == kNotSweepingReason) {
    // The yield needs a sweep from an OpenSM that does not finish one: stop
    // it instead; its exit hands over or restarts it (OnOpenSmExited).
    Emit(Action::EmitEvent("HANDOVER_NOT_ANSWERED",
                           "the HANDOVER to " +
                               (handover_target_ ? FormatGuid(handover_target_->guid) : "?") +
                               " was not answered; stopping the local OpenSM"));
    Emit(Action::StopOpenSm());
    return;
  }
  deadline_ = now_ + config_.handover_timeout;
  Emit(Action::EmitEvent("HANDOVER_NOT_ANSWERED",
                         "the HANDOVER to " +
                             (handover_target_ ? FormatGuid(handover_target_->guid) : "?") +
                             " was not answered; OpenSM hands over by itself (priority " +
                             std::to_string(kYieldPriority) + ")"));
  SetPriority(kYieldPriority);
}

void FailoverPolicy::Apply(PolicyEvent event) {
  const Transition* t = FindTransition(state_, event);
  if (t == nullptr) {
    // Illegal pair: report it once per visit of the state, never act on it.
    if (illegal_reported_.insert({state_, event}).second)
      Emit(Action::EmitEvent("FAILOVER_ILLEGAL_EVENT",
                             std::string(PolicyEventName(event)) + " in state " +
                                 SupervisorStateName(state_) + " ignored"));
    if (event == PolicyEvent::kFailoverCommand || event == PolicyEvent::kRestartCommand)
      Emit(Action::Reply(false, std::string("not possible in state ") +
                                    SupervisorStateName(state_)));
  }
  const bool guard = t == nullptr || Handle(event);
  ConsumeOneShot(event);
  if (t == nullptr) return;
  const SupervisorState next = guard ? t->to : t->otherwise;
  if (next != state_) Enter(next, event);
}

// Edges and commands are delivered once, whether legal or not.
void FailoverPolicy::ConsumeOneShot(PolicyEvent event) {
  switch (event) {
    case PolicyEvent::kOpenSmExited: exit_pending_ = false; break;
    case PolicyEvent::kOpenSmStarted: start_pending_ = false; break;
    case PolicyEvent::kFailoverCommand:
    case PolicyEvent::kStopCommand:
    case PolicyEvent::kRestartCommand: command_.reset(); break;
    default: break;
  }
}

void FailoverPolicy::Enter(SupervisorState next, PolicyEvent event) {
  Emit(Action::EmitEvent("FAILOVER_TRANSITION",
                         std::string(SupervisorStateName(state_)) + " -> " +
                             SupervisorStateName(next) + " on " + PolicyEventName(event)));
  state_ = next;
  entered_at_ = now_;
  illegal_reported_.clear();
  switch (next) {
    case SupervisorState::kTakingOver:
      deadline_ = now_ + config_.takeover_timeout;
      break;
    case SupervisorState::kHandingOver:
      deadline_ = now_ + config_.handover_timeout;
      master_entries_at_yield_ = observation_ ? observation_->opensm.master_entries : 0;
      if (direct_handover_ && handover_target_)
        Emit(Action::HandOverThenKill(handover_target_->guid, handover_target_->lid,
                                      handover_reason_));
      else
        SetPriority(kYieldPriority);
      break;
    case SupervisorState::kStopping:
      deadline_ = now_ + config_.stop_timeout;
      Emit(Action::StopOpenSm());
      break;
    case SupervisorState::kMaster:
      parked_ = false;
      standbys_this_mastership_.clear();
      supersede_stop_sent_ = false;
      problems_.ClearSticky(kProblemTakeoverFailed);
      break;
    case SupervisorState::kStandby:
      standby_since_ = now_;
      preempt_blocked_reported_ = false;
      break;
    default:
      break;
  }
  if (next != SupervisorState::kHandingOver && next != SupervisorState::kStopping) {
    handover_target_.reset();
    operator_waiting_ = false;
    direct_handover_ = false;
  }
  ReplyWhenRestarted(next);
  if (operator_claim_) {
    operator_claim_ = false;
    Emit(next == SupervisorState::kMaster
             ? Action::Reply(true, "this SM is MASTER now")
             : Action::Reply(false, std::string("failover interrupted: ") +
                                        SupervisorStateName(next)));
  }
}

int FailoverPolicy::PriorityForStart() {
  const int priority = StartPriority(config_, RemoteMaster());
  commanded_priority_ = priority;
  return priority;
}

// A fresh OpenSM after an outage it ran through or sat out: under the
// master it can see, else one step below the standby priority (the SM that
// took over may still run at the standby priority).
int FailoverPolicy::PriorityAfterAnOutage() {
  const auto master = RemoteMaster();
  const int priority = master ? StandbyPriority(config_, false, master) : ReturningPriority(config_);
  commanded_priority_ = priority;
  return priority;
}

void FailoverPolicy::SetPriority(int priority) {
  if (commanded_priority_ == priority) return;
  deferred_raise_.reset();
  commanded_priority_ = priority;
  Emit(Action::SetLocalPriority(priority));
}

// Raised at once when an SM outranks the priority OpenSM runs at now (a
// MASTER back from a yield to 0 whose handover failed): OpenSM's next sweep
// would hand that SM the mastership.
bool FailoverPolicy::OutrankedNow() const {
  const int running = observation_->local_sm ? observation_->local_sm->priority : 0;
  return std::any_of(view_.begin(), view_.end(), [&](const SmEntry& sm) {
    return sm.guid != config_.local_guid && sm.state != SmState::kNotActive &&
           OutRanks(sm.priority, sm.guid, running, config_.local_guid);
  });
}

// A new MASTER's raise to the master priority, right after its first sweep
// as master, is written to opensm.conf (the daemon rewrites it to the
// commanded priority after every step) with no SIGHUP. Every heavy sweep
// re-reads the file, and a SIGHUP now would start one at once: beside the
// discovery of the OpenSM that handed over, restarted as this first sweep
// ended, which then took 4-5 s instead of ~1.5 s on 2,592 HCAs and could
// miss this master's SMInfo. That OpenSM sends this master trap 144 as it
// enters STANDBY, and the heavy sweep the trap starts (sweep_on_trap)
// applies the raise. Only if no heavy sweep applied it by max(3 s, 1.5 x
// the first sweep), first_sweep_hold at most, is it sent with a SIGHUP
// (HangUpDeferredRaise). Any other raise is a SIGHUP at once: with another
// SM STANDBY already (a preempt, a handover to a live standby) no OpenSM is
// starting, and a raise long after the first sweep follows no handover.
void FailoverPolicy::RaiseMaster() {
  const int priority = config_.master_priority;
  if (commanded_priority_ == priority) return;
  const bool standby_listed = std::any_of(view_.begin(), view_.end(), [&](const SmEntry& sm) {
    return sm.guid != config_.local_guid && sm.state == SmState::kStandby;
  });
  const bool after_first_sweep =
      last_first_sweep_ && now_ - last_first_sweep_->ended <= config_.first_sweep_hold;
  if (standby_listed || !after_first_sweep || OutrankedNow()) {
    SetPriority(priority);
    return;
  }
  commanded_priority_ = priority;
  const auto first_sweep =
      std::chrono::duration_cast<Duration>(last_first_sweep_->ended - last_first_sweep_->started);
  const Duration wait = std::min(std::max(kRaiseHangupFloor, first_sweep * 3 / 2),
                                 std::chrono::duration_cast<Duration>(config_.first_sweep_hold));
  deferred_raise_ = DeferredRaise{now_, wait};
  Emit(Action::EmitEvent("PRIORITY_RAISE_WRITTEN",
                         "sm_priority " + std::to_string(priority) +
                             " written to opensm.conf; OpenSM applies it at its next heavy sweep "
                             "(SIGHUP in " +
                             std::to_string(wait.count()) + " ms if none has)"));
}

// While a second MASTER is seen, the dual-master rule decides who yields;
// the raise must not change who wins it.
void FailoverPolicy::HangUpDeferredRaise() {
  if (!deferred_raise_) return;
  const auto& local = observation_->local_sm;
  if (local && commanded_priority_ && local->priority == *commanded_priority_) {
    deferred_raise_.reset();  // a heavy sweep applied it
    return;
  }
  if (RemoteMaster()) return;
  if (now_ - deferred_raise_->at < deferred_raise_->wait && !OutrankedNow()) return;
  deferred_raise_.reset();
  Emit(Action::SetLocalPriority(*commanded_priority_));
}

// Holds the plan of priority_plan.h in the steady states; transitional
// states keep what their entry set. A MASTER raises itself only once an SM
// list taken while it was MASTER shows no other MASTER (raising during a dual
// master would change who wins it), and a STANDBY moves only under a known
// master (with none, the best-ranked standby takes over by the priorities as
// they are: no churn) -- and only once the local port's SM LID names that
// master: every SIGHUP makes a STANDBY OpenSM walk the subnet, and after a
// handover two of them (the step below the new master, then the standby
// priority) ran beside the new master's first sweep and made it up to three
// times as long on 2,592 HCAs. A new MASTER raises itself only once its
// first heavy sweep is done: a SIGHUP during that sweep makes OpenSM start
// its discovery over (measured on 2,592 HCAs: the far port saw the new
// master 2.5 s later), and the priority it runs at meanwhile decides nothing
// (a standby moves only to rank below the master it sees). Even then the
// raise waits for a heavy sweep of OpenSM's own (RaiseMaster).
void FailoverPolicy::ReconcilePriority() {
  const bool local_master = state_ == SupervisorState::kMaster && LocalState() == SmState::kMaster;
  // Kept through a round whose local SMInfo read failed: the raise it
  // waits to see applied is still commanded.
  const bool left_master =
      state_ != SupervisorState::kMaster || (LocalState() && LocalState() != SmState::kMaster);
  if (!observation_->opensm.running || left_master) deferred_raise_.reset();
  if (!observation_->opensm.running || !commanded_priority_) return;
  const auto master = RemoteMaster();
  if (local_master) {
    const bool confirmed = local_master_since_ && sms_fresh_at_ >= *local_master_since_;
    const bool sweeping = observation_->opensm.first_sweep_running && local_master_since_ &&
                          now_ - *local_master_since_ < config_.first_sweep_hold;
    if (!master && confirmed && !sweeping) RaiseMaster();
    HangUpDeferredRaise();
  } else if (state_ == SupervisorState::kStandby && master && observation_->master &&
             observation_->master->guid == master->guid) {
    SetPriority(StandbyPriority(config_, Claiming(), master));
  }
}

// A MASTER whose own port goes Down has lost the fabric: the standby on the
// other side takes over within ~0.5 s. OpenSM itself notices only at its next
// heavy sweep (sweep_interval, 10 s by default), so a link that returns
// before then brings back a second MASTER at the top priority, which wins
// OpenSM's election against the new master. smsupd therefore stops that
// OpenSM at once (OnOpenSmExited defers the restart) and starts a fresh one
// at the standby priority once the port is no longer Down: it rejoins like
// any returning node, and the preempt hold time applies from then.
// Any other running OpenSM whose port goes Down takes the same path: a
// STANDBY, and a MASTER whose OpenSM saw "SM port is down" before smsupd saw
// the port (it then reports DISCOVERING). Nothing can reach the subnet
// through a Down port, and what that OpenSM believes when the link returns
// is stale. A fresh OpenSM started when the port is back also registers its
// SM class anew, which sets IsSM in the port's CapabilityMask: a master
// reads the SMInfo of an end port only if that bit is set
// (osm_port_info_rcv.c, pi_rcv_process_endport), and the simulator's ReLink
// clears it (docs/known-issues.md).
void FailoverPolicy::StepDownWhenIsolated() {
  const auto& port = observation_->local_port;
  if (!port) return;
  const bool down = port->port_state == 1;
  const bool master = state_ == SupervisorState::kMaster;
  const bool stoppable = state_ != SupervisorState::kStopping && state_ != SupervisorState::kStopped &&
                         state_ != SupervisorState::kRecovering;
  if (down && observation_->opensm.running && stoppable && !isolation_stop_sent_) {
    isolation_stop_sent_ = true;
    if (master) {
      ++counters_["isolated_master"];
      Emit(Action::EmitEvent("ISOLATED_MASTER_STOPPED",
                             "local port Down while MASTER: OpenSM stopped, so it cannot return as "
                             "a second MASTER; a standby starts when the port is back"));
    } else {
      Emit(Action::EmitEvent("ISOLATED_SM_STOPPED",
                             std::string("local port Down while ") + SupervisorStateName(state_) +
                                 ": OpenSM stopped; a fresh standby starts when the port is back"));
    }
    Emit(Action::StopOpenSm());
    return;
  }
  if (!down) isolation_stop_sent_ = false;
  if (state_ != SupervisorState::kRecovering) restart_after_port_down_ = false;  // e.g. stopped meanwhile
  if (!down && restart_after_port_down_ && !observation_->opensm.running) {
    restart_after_port_down_ = false;
    const int priority = PriorityAfterAnOutage();
    Emit(Action::EmitEvent("PORT_BACK", "local port state " + std::to_string(port->port_state) +
                                            ": OpenSM starts as a standby at priority " +
                                            std::to_string(priority)));
    Emit(Action::RestartOpenSm(priority));
  }
}

// The restart OnOpenSmExited deferred after its HANDOVER: once the local
// port's SM LID names the new master (its first sweep has reached this
// node, and the ports, at least, know their master) and that sweep is over
// (its SA answers, with the ActCount no longer rising at a sweep's rate;
// or, while the SA does not answer, NewMasterSweeping), or at the deadline
// (it never showed: this node must have an SM again). While the new
// master is seen MASTER (an SM list taken after the exit, or its SMInfo),
// the subnet has its SM and the wait goes on up to first_sweep_hold: on
// 10,000 HCAs the first sweep takes longer than
// takeover_timeout to reach this node, and a restart at 3 s put this
// OpenSM's walk beside it (far port 5.8 s against a floor of 3.7 s). The
// sweep goes on after it reached this node (to ~14 s on 10,000 HCAs, the
// port named the master at ~5 s); an OpenSM started meanwhile can miss the
// busy master's SMInfo in its own discovery and make itself MASTER.
// smctl failover's reply does not wait for the end of that sweep: the
// handover is done once the port names the new master. A new master whose
// sweep never gets that far before the restart does not manage the fabric,
// even if it answers as MASTER (its sweep waits for something that will not
// come): the reply is a failure, and that master's own smsupd replaces it
// (MASTER_NOT_SWEEPING).
void FailoverPolicy::RestartAfterHandover() {
  if (!restart_after_handover_) return;
  if (state_ != SupervisorState::kRecovering || observation_->opensm.running || stopping_) {
    restart_after_handover_.reset();  // stopped, or started by another path meanwhile
    if (std::exchange(reply_when_shown_, false))
      Emit(Action::Reply(false, std::string("failover interrupted: this SM is ") +
                                    SupervisorStateName(state_)));
    return;
  }
  const Guid new_master = restart_after_handover_->new_master;
  const auto& watched = observation_->master;
  const bool shown = watched && watched->guid == new_master;
  const auto master = RemoteMaster();
  // MASTER on an SM list taken after the exit, or on its own SMInfo, read
  // now through the port that names it (a sweeping master can be slow to
  // answer SA queries).
  const bool serving = (master && master->guid == new_master &&
                        sms_fresh_at_ > restart_after_handover_->since) ||
                       (shown && watched->consecutive_misses == 0 && watched->state == SmState::kMaster);
  const bool sweeping = NewMasterSweeping();
  // Its SA answers: the first sweep is over, now, not kNamedSweepQuiet later.
  // Unless this very reading still rose at a sweep's rate: a first sweep
  // that ends in errors lets the SA answer and sweeps again at once.
  const bool swept = shown && observation_->master_sa_answers.value_or(false) &&
                     restart_after_handover_->busy_at != now_;
  const TimePoint deadline =
      restart_after_handover_->since + (serving ? config_.first_sweep_hold : config_.takeover_timeout);
  const bool restart = (shown && (swept || !sweeping)) || now_ >= deadline;
  if (shown && std::exchange(reply_when_shown_, false)) {
    problems_.ClearSticky(kProblemHandoverFailed);
    Emit(Action::EmitEvent("HANDOVER_DONE", "new master " + FormatGuid(new_master)));
    Emit(Action::Reply(true, "mastership handed over to " + FormatGuid(new_master) +
                                 "; the local OpenSM starts again as a standby"));
  }
  if (!restart) return;
  const auto waited = std::chrono::duration_cast<Duration>(now_ - restart_after_handover_->since);
  restart_after_handover_.reset();
  if (std::exchange(reply_when_shown_, false)) {
    Emit(Action::Reply(false, FormatGuid(new_master) +
                                  (serving ? " is MASTER but its first sweep has not reached this "
                                             "node in " + std::to_string(waited.count()) +
                                             " ms: it does not manage the fabric"
                                           : " answered the HANDOVER but is not seen as MASTER") +
                                  "; the local OpenSM starts again"));
  }
  const int priority = StartPriority(config_, master);
  commanded_priority_ = priority;
  Emit(Action::RestartOpenSm(priority));
}

// Whether the new master a deferred restart waits for may still be in its
// first sweep: its ActCount (every MAD it sends) rose at a sweep's rate in
// the last kNamedSweepQuiet, or it has not been read for that long yet. Only
// answered polls count: a new master that stops answering is not sweeping.
// The watch reads only the master the local port names, so the quiet is
// read after the sweep has named it here: its discovery is over.
bool FailoverPolicy::NewMasterSweeping() {
  PendingRestart& pending = *restart_after_handover_;
  const auto& w = observation_->master;
  const bool read = w && w->guid == pending.new_master && w->consecutive_misses == 0;
  if (read && pending.act_count != w->act_count) {
    if (!pending.act_count) {
      pending.busy_at = now_;  // quiet is measured from the first reading
    } else if (now_ <= pending.act_at ||
               RoseAtSweepRate(*pending.act_count, pending.act_at, w->act_count, now_)) {
      pending.busy_at = now_;
    }
    pending.act_count = w->act_count;
    pending.act_at = now_;
  }
  return !pending.act_count || now_ - pending.busy_at < kNamedSweepQuiet;
}

void FailoverPolicy::UpdateProblems() {
  ProblemInputs in;
  in.sms = view_;
  in.local_guid = config_.local_guid;
  in.local_state = observation_->opensm.running ? LocalState() : std::nullopt;
  in.local_port = observation_->local_port;
  in.opensm_running = observation_->opensm.running;
  in.opensm_waits_for_port = restart_after_port_down_;
  in.sms_known = sms_known_;
  in.inventory = config_.inventory;
  in.sm_key_mismatch = observation_->sm_key_mismatch;
  in.dual_master_settled = dual_since_ && now_ - *dual_since_ >= config_.dual_master_grace;
  // A node whose own port is Down cannot tell; LOCAL_PORT_DOWN says so.
  const auto& port = observation_->local_port;
  in.no_master_settled = no_master_since_ && port && port->port_state != 1 &&
                         now_ - *no_master_since_ >= config_.no_master_grace;
  const auto& w = observation_->master;
  in.act_count_stalled = w && w->consecutive_misses == 0 && w->guid == act_guid_ &&
                         now_ - act_changed_at_ >= config_.act_count_stall;
  if (w) in.watched_master = w->guid;
  for (Action& a : problems_.Update(DetectProblems(in), now_)) Emit(std::move(a));
}

bool FailoverPolicy::Claiming() const {
  if (operator_claim_ && state_ == SupervisorState::kStandby) return true;
  if (!config_.preempt || config_.role != Role::kMaster || parked_) return false;
  if (state_ != SupervisorState::kStandby || now_ - standby_since_ < config_.hold_time)
    return false;
  const auto& port = observation_->local_port;
  return port && port->active() && !observation_->sm_key_mismatch && RemoteMaster();
}

}  // namespace smsupd::policy
