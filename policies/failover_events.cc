// Events of the failover state machine, derived from the observation of the
// step and the condition timers. Which events a step yields never depends on
// what the state machine would like to hear: the transition table decides
// what is legal, and anything else is reported.
#include <algorithm>

#include "policies/failover_policy.h"
#include "policies/priority_plan.h"

namespace smsupd::policy {
namespace {

SmEntry* FindEntry(std::vector<SmEntry>& sms, Guid guid) {
  auto it = std::find_if(sms.begin(), sms.end(), [&](const SmEntry& e) { return e.guid == guid; });
  return it == sms.end() ? nullptr : &*it;
}

SmEntry& Upsert(std::vector<SmEntry>& sms, Guid guid) {
  if (SmEntry* e = FindEntry(sms, guid)) return *e;
  sms.push_back(SmEntry{guid, 0, SmState::kNotActive, 0});
  return sms.back();
}

PolicyEvent LocalEvent(SmState state) {
  switch (state) {
    case SmState::kNotActive: return PolicyEvent::kLocalNotActive;
    case SmState::kDiscovering: return PolicyEvent::kLocalDiscovering;
    case SmState::kStandby: return PolicyEvent::kLocalStandby;
    case SmState::kMaster: return PolicyEvent::kLocalMaster;
  }
  return PolicyEvent::kLocalNotActive;
}

std::optional<SmState> IbStateOf(SupervisorState s) {
  switch (s) {
    case SupervisorState::kNotActive: return SmState::kNotActive;
    case SupervisorState::kDiscovering: return SmState::kDiscovering;
    case SupervisorState::kStandby: return SmState::kStandby;
    case SupervisorState::kMaster: return SmState::kMaster;
    default: return std::nullopt;
  }
}

}  // namespace

// The SA list, corrected by what this step read directly: the local SM's own
// SMInfo, and the watched master's answer (or its death, once counted gone).
void FailoverPolicy::BuildView() {
  view_ = sms_;
  const Observation& obs = *observation_;
  if (obs.opensm.running && obs.local_sm) {
    SmEntry& local = Upsert(view_, config_.local_guid);
    local.state = obs.local_sm->state;
    local.priority = obs.local_sm->priority;
    if (obs.local_port && obs.local_port->lid != 0) local.lid = obs.local_port->lid;
  } else if (SmEntry* local = FindEntry(view_, config_.local_guid)) {
    local->state = SmState::kNotActive;
  }
  // A list taken before the local SM became MASTER names the SM it replaced
  // as MASTER: unknown until the next list (a real second MASTER will be in it).
  if (local_master_since_ && sms_fresh_at_ < *local_master_since_) {
    for (SmEntry& sm : view_)
      if (sm.guid != config_.local_guid && sm.state == SmState::kMaster)
        sm.state = SmState::kNotActive;
  }
  for (const SmEntry& read : obs.standby_reads) {
    if (read.guid == config_.local_guid || read.guid == 0) continue;
    Upsert(view_, read.guid) = read;
  }
  const auto& w = obs.master;
  if (!w || w->guid == config_.local_guid) return;
  if (w->consecutive_misses == 0) {
    SmEntry& m = Upsert(view_, w->guid);
    m.lid = w->lid;
    m.state = w->state;
    m.priority = w->priority;
  } else if (MasterGone()) {
    if (SmEntry* m = FindEntry(view_, w->guid)) m->state = SmState::kNotActive;
  }
}

std::optional<SmState> FailoverPolicy::LocalState() const {
  if (!observation_->opensm.running || !observation_->local_sm) return std::nullopt;
  return observation_->local_sm->state;
}

std::vector<SmEntry> FailoverPolicy::Masters() const {
  std::vector<SmEntry> out;
  for (const SmEntry& sm : view_)
    if (sm.state == SmState::kMaster) out.push_back(sm);
  return out;
}

std::optional<SmEntry> FailoverPolicy::RemoteMaster() const {
  std::vector<SmEntry> remote;
  for (const SmEntry& sm : Masters())
    if (sm.guid != config_.local_guid) remote.push_back(sm);
  return ElectionWinner(remote);
}

bool FailoverPolicy::MasterGone() const {
  const auto& w = observation_->master;
  if (!w || w->guid == config_.local_guid) return false;
  // Its cable's far end reads Down: the node is cut off, whatever its SM
  // does. Port silent too: node or link gone. Port alive: only the SM is
  // silent, and its own smsupd, if alive, hands over within milliseconds:
  // wait longer.
  if (w->link_down && w->consecutive_misses >= 1) return true;
  if (w->port_answers == false) return w->consecutive_misses >= config_.miss_threshold;
  // Misses counted during the local OpenSM's discovery do not count here.
  if (w->consecutive_misses - misses_in_local_discovery_ <
      config_.miss_threshold + config_.silent_sm_extra_misses)
    return false;
  // Silent since an answer in a large sweep: computing routes, as far as we
  // know.
  return !InLargeSweepAtLastAnswer(*w) || now_ - act_read_at_ >= config_.busy_master_silence;
}

// The watched master's ActCount rose at a sweep's rate within
// kNewMasterQuiet of its last answer, by kLargeSweepSmps or more since that
// sweep began. The quiet stages just before the routing (the LIDs computed,
// P_Keys and PortInfo written) took under a second on 10,000 HCAs. A small
// fabric's routing takes milliseconds: its master keeps the ~1 s rule.
bool FailoverPolicy::InLargeSweepAtLastAnswer(const MasterWatch& w) const {
  return w.guid == act_guid_ && act_read_at_ - act_busy_at_ < kNewMasterQuiet &&
         act_count_ - act_sweep_base_ >= kLargeSweepSmps;  // wraps like the counter
}

bool FailoverPolicy::LocalIsBestCandidate(Guid exclude) const {
  std::vector<SmEntry> standbys;
  for (const SmEntry& sm : view_)
    if (sm.guid != exclude) standbys.push_back(sm);
  auto best = BestStandby(standbys, /*exclude=*/0);
  return best && best->guid == config_.local_guid;
}

void FailoverPolicy::UpdateTimers() {
  const auto local = LocalState();
  auto keep = [&](std::optional<TimePoint>& since, bool holds) {
    if (!holds) since.reset();
    else if (!since) since = now_;
  };
  keep(lost_since_, local == SmState::kStandby && MasterGone());
  const auto masters = Masters();
  // Only a node whose port is Active sees the subnet: a port that has just
  // come back (Init, no LID, SA out of reach) shows no MASTER anywhere.
  const auto& local_port = observation_->local_port;
  keep(no_master_since_, observation_->opensm.running && masters.empty() && local_port &&
                             local_port->active());
  const bool dual_begins = !dual_since_ && masters.size() >= 2;
  keep(dual_since_, masters.size() >= 2);
  // Confirm a second MASTER on a fresh SM list at once, not at the next
  // inventory interval (2 s): the race is ended within about a second.
  if (dual_begins) Emit(Action::RefreshSms());
  // A held command is decided on a fresh SM list each round.
  if (CommandWaitsForAStandby()) Emit(Action::RefreshSms());
  if (!dual_since_) dual_reported_ = returned_master_reported_ = false;
  keep(local_silent_since_, observation_->opensm.running && !observation_->local_sm);
  if (!local_silent_since_) hang_acted_ = false;
  const auto& w = observation_->master;
  if (w && w->consecutive_misses == 0) {
    const bool same_sm = w->guid == act_guid_;
    if (!same_sm || w->act_count != act_count_) act_changed_at_ = now_;
    const bool rose = same_sm && now_ > act_read_at_ &&
                      RoseAtSweepRate(act_count_, act_read_at_, w->act_count, now_);
    // A sweep's SMPs are counted from the rise that ends a quiet spell.
    if (!same_sm || (rose && now_ - act_busy_at_ >= kNewMasterQuiet))
      act_sweep_base_ = same_sm ? act_count_ : w->act_count;
    if (!same_sm || rose) act_busy_at_ = now_;
    act_guid_ = w->guid;
    act_count_ = w->act_count;
    act_read_at_ = now_;
  }
  ExtendHandoverWhileSweeping();
}

// A yielding MASTER hands over only at the end of the discovery of the heavy
// sweep the yield's SIGHUP started; on 10,000 HCAs that discovery alone took
// longer than handover_timeout (5 s) and every `smctl failover` failed.
// While the local OpenSM is still MASTER and its SMInfo ActCount (every MAD
// it has sent, answers to SMInfo polls too) rises faster than polls explain,
// it is still sweeping: the deadline moves to handover_timeout after the
// last such rise, never past handover_sweep_limit after the yield. An
// OpenSM that only answers polls fails at handover_timeout.
void FailoverPolicy::ExtendHandoverWhileSweeping() {
  const auto& local = observation_->local_sm;
  if (!local) return;
  const bool sweeping =
      local_act_count_ && RoseAtSweepRate(*local_act_count_, local_act_at_, local->act_count, now_);
  local_act_count_ = local->act_count;
  local_act_at_ = now_;
  if (sweeping) local_busy_at_ = now_;
  if (state_ != SupervisorState::kHandingOver || local->state != SmState::kMaster || !sweeping) return;
  deadline_ = std::max(deadline_, std::min(now_ + config_.handover_timeout,
                                           entered_at_ + config_.handover_sweep_limit));
}

bool FailoverPolicy::MasterLostDue() const {
  const auto& port = observation_->local_port;
  // A standby whose own port is down sees every master as gone: never act.
  if (!lost_since_ || !port || !port->active()) return false;
  // Another SM already took over (the daemon still polls the old master
  // until the port's SM LID moves): taking over now would make two.
  if (RemoteMaster()) return false;
  return LocalIsBestCandidate(observation_->master->guid) ||
         now_ - *lost_since_ >= config_.defer_to_better_candidate;
}

// The inventory lags an OpenSM that has just restarted: for a moment after it
// became STANDBY it is listed DISCOVERING, or not at all (its SMInfo not yet
// answered, the SA's table not yet swept). A failover or restart of the
// MASTER then waits (command_standby_wait at most, on fresh lists) for a
// STANDBY instead of refusing; forced or targeted commands decide at once,
// and so does a MASTER that has seen no other SM for a while.
bool FailoverPolicy::CommandWaitsForAStandby() const {
  if (!command_ || !command_since_ || state_ != SupervisorState::kMaster) return false;
  if (command_->kind != OperatorCommand::Kind::kFailover &&
      command_->kind != OperatorCommand::Kind::kRestart)
    return false;
  if (command_->force || command_->target) return false;
  if (now_ - *command_since_ >= config_.command_standby_wait) return false;
  if (BestStandby(view_, config_.local_guid)) return false;
  for (const SmEntry& sm : view_)
    if (sm.guid != config_.local_guid && sm.state == SmState::kDiscovering) return true;
  return peer_active_at_ && now_ - *peer_active_at_ < config_.command_standby_wait;
}

// The local OpenSM became MASTER master_sweep_timeout ago and has logged no
// SUBNET UP since, and is not sending at a sweep's rate (a large fabric's
// first sweep may be slow, but it keeps sending): its sweep waits for
// something that will not come. Once per mastership.
bool FailoverPolicy::MasterNotSweepingDue() const {
  if (state_ != SupervisorState::kMaster || LocalState() != SmState::kMaster) return false;
  if (not_sweeping_acted_ || !observation_->opensm.first_sweep_running || !local_master_since_)
    return false;
  if (config_.master_sweep_timeout <= Duration(0) ||
      now_ - *local_master_since_ < config_.master_sweep_timeout)
    return false;
  return now_ - local_busy_at_ >= kNewMasterQuiet;
}

bool FailoverPolicy::NoMasterDue() const {
  const auto& port = observation_->local_port;
  if (LocalState() != SmState::kStandby || !no_master_since_) return false;
  if (!port || !port->active()) return false;
  // A watched master that only misses polls is MASTER_LOST's to judge, with
  // its own thresholds: a busy or briefly silent master is never taken over
  // as "no master".
  const auto& w = observation_->master;
  if (w && w->guid != config_.local_guid && w->consecutive_misses > 0 && !MasterGone())
    return false;
  const auto waited = now_ - *no_master_since_;
  if (waited < config_.no_master_grace) return false;
  return LocalIsBestCandidate(0) ||
         waited >= config_.no_master_grace + config_.defer_to_better_candidate;
}

// A fresh SA list must confirm the second MASTER: the list is refreshed every
// few seconds and a stale one would show a master that already stepped down.
bool FailoverPolicy::DualMasterDue() const {
  return dual_since_ && now_ - *dual_since_ >= config_.dual_master_grace &&
         sms_fresh_at_ >= *dual_since_;
}

std::optional<SmEntry> FailoverPolicy::Claimer() const {
  // Claims come from a preempting role master after its hold time, or from an
  // operator's failover run on a standby: honoured in both modes.
  if (state_ != SupervisorState::kMaster) return std::nullopt;
  if (LocalState() != SmState::kMaster || sms_fresh_at_ <= entered_at_) return std::nullopt;
  std::vector<SmEntry> claimers;
  for (const SmEntry& sm : view_)
    if (sm.guid != config_.local_guid && sm.state == SmState::kStandby &&
        sm.priority == ClaimPriority(config_))
      claimers.push_back(sm);
  return BestStandby(claimers, config_.local_guid);
}

bool FailoverPolicy::HandoverCompleteDue() const {
  // A HandOverThenKill ends with the local OpenSM's exit (OnOpenSmExited).
  if (state_ != SupervisorState::kHandingOver || LocalState() == SmState::kMaster ||
      direct_handover_)
    return false;
  const auto& w = observation_->master;
  for (const SmEntry& m : Masters()) {
    if (m.guid == config_.local_guid) continue;
    const bool read_now = w && w->guid == m.guid && w->consecutive_misses == 0;
    if (read_now || sms_fresh_at_ > entered_at_) return true;
  }
  return false;
}

// The first start: once the SA has answered (who is master is known), or
// when no master can be known: the role master at once if its port is not
// Active (no SM runs yet), else after startup_wait (an SA may just be
// slow); a role standby only after standby_cold_start_wait, giving the role
// master time to come up first. Both nodes starting together (a power cut)
// then never both become MASTER.
bool FailoverPolicy::StartupReadyDue() const {
  if (state_ != SupervisorState::kStarting || observation_->opensm.running) return false;
  if (sms_known_) return true;
  const auto& port = observation_->local_port;
  const bool active = port && port->active();
  const auto waited = now_ - created_at_;
  if (config_.role == Role::kStandby)
    return waited >= std::max(config_.startup_wait, config_.standby_cold_start_wait);
  return (port && !active) || waited >= config_.startup_wait;
}

std::vector<PolicyEvent> FailoverPolicy::DeriveEvents() const {
  using E = PolicyEvent;
  std::vector<E> events;
  if (exit_pending_) events.push_back(E::kOpenSmExited);
  if (start_pending_) events.push_back(E::kOpenSmStarted);
  if (command_ && !CommandWaitsForAStandby()) {
    switch (command_->kind) {
      case OperatorCommand::Kind::kStop: events.push_back(E::kStopCommand); break;
      case OperatorCommand::Kind::kFailover: events.push_back(E::kFailoverCommand); break;
      case OperatorCommand::Kind::kRestart: events.push_back(E::kRestartCommand); break;
    }
  }
  if (StartupReadyDue()) events.push_back(E::kStartupReady);
  if (const auto local = LocalState()) {
    const auto mirrored = IbStateOf(state_);
    const bool waiting = state_ == SupervisorState::kTakingOver ||
                         state_ == SupervisorState::kHandingOver ||
                         state_ == SupervisorState::kStopping;
    if ((mirrored && *mirrored != *local) || waiting) events.push_back(LocalEvent(*local));
  }
  const bool timed = state_ == SupervisorState::kTakingOver ||
                     state_ == SupervisorState::kHandingOver ||
                     state_ == SupervisorState::kStopping ||
                     (state_ == SupervisorState::kStandby && operator_claim_);
  if (timed && now_ >= deadline_) events.push_back(E::kDeadline);
  if (local_silent_since_ && !hang_acted_ &&
      now_ - *local_silent_since_ >= config_.local_silent_timeout)
    events.push_back(E::kLocalSmSilent);
  if (MasterNotSweepingDue()) events.push_back(E::kMasterNotSweeping);
  if (HandoverCompleteDue()) events.push_back(E::kHandoverComplete);
  if (MasterLostDue()) events.push_back(E::kMasterLost);
  if (NoMasterDue()) events.push_back(E::kNoMaster);
  if (DualMasterDue()) events.push_back(E::kDualMaster);
  if (Claimer()) events.push_back(E::kClaimSeen);
  return events;
}

}  // namespace smsupd::policy
