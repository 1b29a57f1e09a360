// What the failover policy does on each event. A handler emits actions and
// returns the guard of its transition (true: the table's `to`, false: its
// `otherwise`); the table alone decides which pairs are legal.
#include "policies/failover_policy.h"

#include <algorithm>
#include <utility>

#include "policies/priority_plan.h"

namespace smsupd::policy {
namespace {

std::string Describe(const SmEntry& sm) {
  return FormatGuid(sm.guid) + " (lid " + std::to_string(sm.lid) + ", priority " +
         std::to_string(sm.priority) + ")";
}

}  // namespace

bool FailoverPolicy::Handle(PolicyEvent event) {
  using E = PolicyEvent;
  switch (event) {
    case E::kStartupReady: return OnStartupReady();
    case E::kOpenSmStarted: return OnOpenSmStarted();
    case E::kOpenSmExited: return OnOpenSmExited();
    case E::kMasterLost: return OnMasterLost();
    case E::kNoMaster: return OnNoMaster();
    case E::kDualMaster: return OnDualMaster();
    case E::kClaimSeen: return OnClaimSeen();
    case E::kHandoverComplete: return OnHandoverComplete();
    case E::kDeadline: return OnDeadline();
    case E::kFailoverCommand: return OnFailoverCommand();
    case E::kStopCommand: return OnStopCommand();
    case E::kRestartCommand: return OnRestartCommand();
    case E::kLocalSmSilent: return OnLocalSmSilent();
    case E::kMasterNotSweeping: return OnMasterNotSweeping();
    case E::kLocalMaster: return OnLocalMaster();
    case E::kLocalNotActive:
    case E::kLocalDiscovering:
    case E::kLocalStandby:
      return true;  // the state follows what OpenSM reports
  }
  return true;
}

// The state follows what OpenSM reports, but a yield ends only one way or
// the other: MASTER still after a yield is "not yet" -- unless the OpenSM
// has logged entering MASTER again since, i.e. it handed over, and the SM it
// handed to gave the mastership back (its OpenSM died a moment later and its
// smsupd sent the HANDOVER here). This SM is then the master: waiting on as
// a yielding master at priority 0 let the next restarted OpenSM, at any
// priority, win OpenSM's election at once.
bool FailoverPolicy::OnLocalMaster() {
  if (state_ != SupervisorState::kHandingOver) return true;
  if (direct_handover_ || observation_->opensm.master_entries <= master_entries_at_yield_) return false;
  if (!TakeBackDuringHandover("the local OpenSM was handed the mastership back")) return false;
  Emit(Action::EmitEvent("HANDOVER_RETURNED",
                         "the local OpenSM handed over and was handed the mastership back: this SM is MASTER"));
  return true;
}

bool FailoverPolicy::OnStartupReady() {
  const int priority = StartPriority(config_, RemoteMaster());
  commanded_priority_ = priority;
  Emit(Action::StartOpenSm(priority));
  return true;
}

bool FailoverPolicy::OnOpenSmStarted() {
  start_pending_ = false;
  if (state_ == SupervisorState::kStarting) {
    // Adopted a running OpenSM (smsupd restarted): take its priority as ours.
    const auto& local = observation_->local_sm;
    commanded_priority_ = local ? local->priority : config_.standby_priority;
    Emit(Action::EmitEvent("OPENSM_ADOPTED", "running OpenSM adopted"));
  }
  return true;
}

// The local child died. If it was MASTER, the best STANDBY gets a HANDOVER
// now instead of noticing after its own polling (docs/opensm-behaviour.md "OpenSM's own failover
// timing": 0.74-0.84 s against 50-60 s). Then restart as a standby under whoever is master --
// after such a HANDOVER only once the new master shows on the local port and its first sweep is
// over (RestartAfterHandover), or after takeover_timeout: a starting OpenSM walks the whole
// subnet, and beside the new master's first sweep that walk made the sweep 2.5 times as long on
// 2,592 HCAs.
bool FailoverPolicy::OnOpenSmExited() {
  exit_pending_ = false;
  const std::string info = observation_->opensm.exit_info;
  if (stopping_ || state_ == SupervisorState::kStopping) return !stopping_;
  const bool was_master =
      state_ == SupervisorState::kMaster || state_ == SupervisorState::kHandingOver ||
      last_local_state_ == SmState::kMaster;
  std::optional<SmEntry> master = RemoteMaster();
  const auto& port = observation_->local_port;
  if (port && port->port_state == 1) {
    // Nothing can be reached through a Down port, and an OpenSM started now
    // would find nothing: start it when the port is back.
    if (operator_waiting_) Emit(Action::Reply(false, "OpenSM exited during the handover"));
    Emit(Action::EmitEvent("OPENSM_WAITS_FOR_PORT", "local OpenSM exited (" + info +
                                                        ") while the local port is Down"));
    restart_after_port_down_ = true;
    return true;
  }
  if (std::exchange(restart_after_supersede_, false)) {
    // Stopped because the SM that took over has swept this node: no
    // HANDOVER (it is MASTER), a fresh standby under it.
    const int priority = PriorityAfterAnOutage();
    if (operator_waiting_) Emit(Action::Reply(false, "OpenSM exited during the handover"));
    Emit(Action::RestartOpenSm(priority));
    return true;
  }
  bool deferred = false;
  if (state_ == SupervisorState::kHandingOver && direct_handover_ && handover_target_) {
    // smctl failover killed it after its HANDOVER was answered: the target
    // is MASTER already (a second HANDOVER would only restart its sweep).
    restart_after_handover_ = PendingRestart::To(handover_target_->guid, now_);
    reply_when_shown_ = std::exchange(operator_waiting_, false);
    return true;  // RestartAfterHandover starts it, and replies
  }
  if (was_master) {
    if (auto best = BestStandby(view_, config_.local_guid)) {
      HandOverAfterExit(*best, info);
      master = best;
      // An operator's restart-opensm starts again at once; any other exit
      // waits for the new master.
      deferred = !restarting_;
    } else if (!restarting_ && PeerListedOnAnOldList()) {
      exit_waits_for_list_ = ExitWait{now_, info};
      Emit(Action::EmitEvent("OPENSM_EXIT_WAITS_FOR_SM_LIST",
                             "local MASTER OpenSM exited (" + info +
                                 "); no STANDBY on the last SM list: deciding on a fresh one"));
      Emit(Action::RefreshSms());
      if (operator_waiting_) Emit(Action::Reply(false, "OpenSM exited during the handover"));
      return true;  // HandOverOnFreshList hands over or restarts
    } else {
      Emit(Action::EmitEvent("MASTER_LOST", "local MASTER OpenSM exited (" + info +
                                                "); no STANDBY to hand over to"));
    }
  }
  if (operator_waiting_) Emit(Action::Reply(false, "OpenSM exited during the handover"));
  if (deferred) return true;  // RestartAfterHandover starts it
  restarting_ = false;  // a restart command's stop ends here: start again
  const int priority = StartPriority(config_, master);
  commanded_priority_ = priority;
  Emit(Action::RestartOpenSm(priority));
  return true;
}

// The HANDOVER of a dead MASTER's smsupd to the best STANDBY, and the
// restart that waits for it (RestartAfterHandover).
void FailoverPolicy::HandOverAfterExit(const SmEntry& best, const std::string& info) {
  Emit(Action::SendHandover(best.guid, best.lid, "local MASTER OpenSM exited (" + info + ")"));
  Emit(Action::EmitEvent("HANDOVER_SENT", "to " + Describe(best) + " after OpenSM " + info));
  if (!restarting_) restart_after_handover_ = PendingRestart::To(best.guid, now_);
}

// Another SM is on the SM list, in a state other than STANDBY, and the list
// is older than this step. After a handover the list (read every
// inventory interval, 2 s) still shows the old master as MASTER, or not
// yet at all, for up to that long after it went STANDBY.
bool FailoverPolicy::PeerListedOnAnOldList() const {
  if (sms_fresh_at_ >= now_) return false;
  for (const SmEntry& sm : view_)
    if (sm.guid != config_.local_guid && sm.state != SmState::kNotActive) return true;
  return peer_active_at_ && now_ - *peer_active_at_ < config_.command_standby_wait;
}

// A MASTER's OpenSM exited with no STANDBY on an old SM list while another
// SM was listed (OnOpenSmExited): the same choice on a fresh list, asked for
// at the exit (one watch round, a few hundred ms), or on a direct read of a
// STANDBY before it: a HANDOVER to the best STANDBY, else a restart in place.
// Without a list by exit_list_wait, the restart: this node must have an SM.
// Restarting in place on the old list cost 1.2 s without a master when the
// OpenSM of a master made by a handover was killed within a second (its
// OpenSM's own discovery), against the ~0.3 s of a HANDOVER.
void FailoverPolicy::HandOverOnFreshList() {
  if (!exit_waits_for_list_) return;
  if (state_ != SupervisorState::kRecovering || observation_->opensm.running || stopping_) {
    exit_waits_for_list_.reset();  // stopped, or started by another path meanwhile
    return;
  }
  const ExitWait wait = *exit_waits_for_list_;
  const auto best = BestStandby(view_, config_.local_guid);
  const bool fresh = sms_fresh_at_ > wait.since;
  if (!best && !fresh && now_ - wait.since < config_.exit_list_wait) return;
  exit_waits_for_list_.reset();
  if (best) {
    HandOverAfterExit(*best, wait.info);
    return;
  }
  Emit(Action::EmitEvent("MASTER_LOST", "local MASTER OpenSM exited (" + wait.info + "); " +
                                            (fresh ? "no STANDBY on a fresh SM list"
                                                   : "no fresh SM list in time") +
                                            ": restarting it"));
  const int priority = StartPriority(config_, RemoteMaster());
  commanded_priority_ = priority;
  Emit(Action::RestartOpenSm(priority));
}

// A handover whose new master is lost before it was confirmed: this SM
// takes mastership back, unless it is handing over to stop.
bool FailoverPolicy::TakeBackDuringHandover(const std::string& why) {
  if (state_ != SupervisorState::kHandingOver) return true;
  if (stopping_) return false;
  ++counters_["handover_taken_back"];
  if (operator_waiting_)
    Emit(Action::Reply(false, "the new master was lost during the handover (" + why + "); taking over"));
  if (restarting_) {
    restarting_ = restart_waiting_ = false;
    Emit(Action::Reply(false, "the new master was lost during the handover (" + why +
                                  "): OpenSM was not restarted; taking over"));
  }
  return true;
}

// One HANDOVER to the local SM a step: MASTER_LOST and NO_MASTER can both be
// due in one step (the master gone and no MASTER listed), and a second
// HANDOVER reaching an OpenSM that the first one made MASTER forces its
// heavy sweep again.
bool FailoverPolicy::TakeOverSentThisStep() const {
  return std::any_of(actions_.begin(), actions_.end(),
                     [](const Action& a) { return a.kind == Action::Kind::kTakeOver; });
}

bool FailoverPolicy::OnMasterLost() {
  if (!observation_->master) return false;
  if (TakeOverSentThisStep()) return true;
  const MasterWatch& w = *observation_->master;
  std::string port =
      w.port_answers == false ? "is silent (node gone)" : "answers (SM process dead)";
  if (w.port_answers != false && InLargeSweepAtLastAnswer(w))
    port = "answers, and it has been silent for " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::milliseconds>(now_ - act_read_at_).count()) +
           " ms since an answer in a heavy sweep of a large fabric (SM process dead or hung)";
  const std::string why =
      w.link_down
          ? "master " + FormatGuid(w.guid) +
                ": the switch port at the other end of its cable reads Down (node or cable gone)"
          : "master " + FormatGuid(w.guid) + " missed " + std::to_string(w.consecutive_misses) +
                " SMInfo polls, its port " + port;
  if (!TakeBackDuringHandover(why)) return false;
  ++counters_["master_lost"];
  took_over_from_ = TookOverFrom{w.guid, now_};
  Emit(Action::EmitEvent("MASTER_LOST", why));
  Emit(Action::TakeOver(why));
  return true;
}

bool FailoverPolicy::OnNoMaster() {
  if (TakeOverSentThisStep()) return true;
  const auto since = no_master_since_.value_or(now_);
  const std::string why =
      "no MASTER in the subnet for " +
      std::to_string(std::chrono::duration_cast<Duration>(now_ - since).count()) + " ms";
  if (!TakeBackDuringHandover(why)) return false;
  ++counters_["no_master"];
  Emit(Action::EmitEvent("NO_MASTER", why));
  Emit(Action::TakeOver(why));
  return true;
}

// Two MASTERs: OpenSM's own election says who should win. A losing local
// MASTER yields (priority 0 + SIGHUP). A node whose watched master is the
// loser, as read this very poll, kicks it with a HANDOVER: to a MASTER that
// only forces a heavy sweep, after which it hands over to the higher one
// (osm_sm_state_mgr.c). Never on the SA list alone: if the loser has become
// STANDBY meanwhile, a HANDOVER would make it MASTER again. Nor while the
// loser's ActCount rises at a sweep's rate: it is sweeping (its own yield's,
// or a kick's), and hands over at the end of that sweep's discovery; a kick
// arriving just after that makes it MASTER again. On 10,000 simulated HCAs,
// kicks every dual_master_grace into sweeps of ~4 s kept two MASTERs for
// minutes.
bool FailoverPolicy::OnDualMaster() {
  const auto masters = Masters();
  const auto winner = ElectionWinner(masters);
  if (masters.size() < 2 || !winner || state_ == SupervisorState::kHandingOver) return false;
  if (!dual_reported_) ++counters_["dual_master"];
  if (!dual_reported_)
    Emit(Action::EmitEvent("DUAL_MASTER", std::to_string(masters.size()) +
                                              " MASTERs; OpenSM's election picks " +
                                              Describe(*winner)));
  dual_reported_ = true;
  // SMs with different SM_Keys ignore each other (ERR 2F18): no yield and no
  // HANDOVER ends this, and retrying after every handover timeout only moves
  // priorities back and forth. DUAL_MASTER and SM_KEY_MISMATCH say why; the
  // keys are the operator's to fix.
  if (observation_->sm_key_mismatch) return false;
  if (state_ == SupervisorState::kMaster) {
    if (auto newer = SupersedingMaster(masters)) {
      if (std::exchange(supersede_stop_sent_, true)) return false;
      ++counters_["superseded_master"];
      restart_after_supersede_ = true;
      Emit(Action::EmitEvent("SUPERSEDED_MASTER_STOPPED",
                             Describe(*newer) + ", this node's STANDBY, took over: the local OpenSM ran "
                                                "through an outage smsupd did not see; stopped, it "
                                                "restarts as a standby"));
      Emit(Action::StopOpenSm());
      return false;
    }
    if (ReturnedMasterWithinGrace(*winner)) {
      if (!std::exchange(returned_master_reported_, true))
        Emit(Action::EmitEvent("DUAL_MASTER_HELD",
                               Describe(*winner) +
                                   ", the master this node took over from, is back still MASTER: "
                                   "its smsupd stops it; OpenSM's election decides only after " +
                                   std::to_string(kReturnedMasterGrace.count() / 1000) + " s"));
      return false;
    }
  }
  if (state_ == SupervisorState::kMaster && winner->guid != config_.local_guid) {
    handover_target_ = winner;
    handover_reason_ = "dual master";
    return true;
  }
  const auto& w = observation_->master;
  const bool loser_read_now = w && w->consecutive_misses == 0 && w->state == SmState::kMaster &&
                              w->guid != winner->guid && w->guid != config_.local_guid;
  const bool loser_sweeping =
      loser_read_now && w->guid == act_guid_ && now_ - act_busy_at_ < config_.dual_master_grace;
  if (!loser_read_now || loser_sweeping ||
      (last_kick_ && now_ - *last_kick_ < config_.dual_master_grace))
    return false;
  last_kick_ = now_;
  Emit(Action::SendHandover(w->guid, w->lid, "dual master: make it sweep and yield to " +
                                                 FormatGuid(winner->guid)));
  return false;
}

// The local OpenSM is MASTER, and another SM that answers MASTER was listed
// STANDBY during this mastership: it took over, as a standby does only when
// it lost this master (a link flap shorter than a watch round: the standby,
// watching the switch port at the other end of this node's cable, takes
// over at the first Down read; a hang; a partitioned link). The local
// OpenSM ran through an outage smsupd did not see and still believes it is
// MASTER, at a priority that may win OpenSM's election and hand the fabric
// back (a second disruption, against the sticky policy). It is stopped like
// an isolated master's and restarts as a standby under the new master. A
// claim (preempt, or smctl failover run on the standby) never gets here:
// the claimer stays STANDBY until this node has yielded.
std::optional<SmEntry> FailoverPolicy::SupersedingMaster(const std::vector<SmEntry>& masters) const {
  if (LocalState() != SmState::kMaster) return std::nullopt;
  for (const SmEntry& m : masters)
    if (m.guid != config_.local_guid && standbys_this_mastership_.contains(m.guid)) return m;
  return std::nullopt;
}

// The other side of SupersedingMaster: this node took over from `winner`
// within kReturnedMasterGrace, and `winner` is back as a MASTER that wins
// OpenSM's election. Yielding would hand the fabric back (a second
// disruption, against the sticky policy); its smsupd stops it instead.
bool FailoverPolicy::ReturnedMasterWithinGrace(const SmEntry& winner) const {
  return took_over_from_ && winner.guid == took_over_from_->guid &&
         winner.guid != config_.local_guid && now_ - took_over_from_->at < kReturnedMasterGrace;
}

bool FailoverPolicy::OnClaimSeen() {
  const auto claimer = Claimer();
  if (!claimer) return false;
  const auto best = BestStandby(view_, config_.local_guid);
  if (!best || best->guid != claimer->guid) {
    // OpenSM would hand over to `best`, not to the claimer: do not yield.
    if (!preempt_blocked_reported_)
      Emit(Action::EmitEvent("PREEMPT_BLOCKED", "claimer " + Describe(*claimer) +
                                                    " is not the best standby"));
    preempt_blocked_reported_ = true;
    return false;
  }
  Emit(Action::EmitEvent("PREEMPT", Describe(*claimer) + " claims mastership; yielding"));
  handover_target_ = claimer;
  handover_reason_ = "claim";
  // A role master yields to a claim only when an operator asked for it on the
  // claimer: it must not claim back (no flip back).
  parked_ = config_.preempt && config_.role == Role::kMaster;
  return true;
}

bool FailoverPolicy::OnHandoverComplete() {
  const auto master = RemoteMaster();
  const std::string who = master ? Describe(*master) : "another SM";
  Emit(Action::EmitEvent("HANDOVER_DONE", "new master " + who));
  problems_.ClearSticky(kProblemHandoverFailed);
  if (operator_waiting_) Emit(Action::Reply(true, "mastership handed over to " + who));
  operator_waiting_ = false;
  if (restarting_ && !stopping_) {
    // The new master is seen on the fabric: now the restart costs no master.
    Emit(Action::EmitEvent("OPENSM_RESTARTING", "new master " + who + "; restarting OpenSM"));
    Emit(Action::StopOpenSm());
  }
  return !stopping_;
}

bool FailoverPolicy::OnDeadline() {
  switch (state_) {
    case SupervisorState::kTakingOver:
      problems_.SetSticky(kProblemTakeoverFailed,
                          "the local SM did not become MASTER after a HANDOVER");
      Emit(Action::EmitEvent("TAKEOVER_FAILED", "local SM not MASTER in time"));
      return true;
    case SupervisorState::kHandingOver:
      problems_.SetSticky(kProblemHandoverFailed,
                          "no other SM became MASTER after lowering the local priority");
      Emit(Action::EmitEvent("HANDOVER_FAILED", handover_reason_));
      if (operator_waiting_)
        Emit(Action::Reply(false, "handover did not complete in time; still MASTER"));
      operator_waiting_ = false;
      if (restarting_) {
        restarting_ = restart_waiting_ = false;
        Emit(Action::Reply(false, "the handover did not complete in time: OpenSM was not "
                                  "restarted; still MASTER"));
      }
      return !stopping_;  // a stop proceeds anyway: SIGTERM must end
    case SupervisorState::kStopping:
      Emit(Action::EmitEvent("OPENSM_STOP_TIMEOUT", "OpenSM did not exit in time"));
      return true;
    case SupervisorState::kStandby:
      if (!operator_claim_) return true;
      operator_claim_ = false;
      Emit(Action::EmitEvent("FAILOVER_FAILED", "the master did not yield to the claim"));
      Emit(Action::Reply(false, "the master did not hand over in time (is its smsupd "
                                "running?); still STANDBY"));
      return true;
    default:
      return true;
  }
}

// OpenSM runs but does not answer SMInfo: a hung master is worse than a dead
// one (the standby takes over and the hung one may come back as a second
// MASTER). Stop it; its exit then hands over and restarts it as a standby.
bool FailoverPolicy::OnLocalSmSilent() {
  hang_acted_ = true;
  if (state_ == SupervisorState::kStopping) return true;
  Emit(Action::EmitEvent("OPENSM_HUNG", "local OpenSM runs but has not answered SMInfo for " +
                                            std::to_string(config_.local_silent_timeout.count()) +
                                            " ms; stopping it"));
  Emit(Action::StopOpenSm());
  return true;
}

// A MASTER that does not manage the fabric (MasterNotSweepingDue) is
// treated as failed: the best STANDBY is handed the mastership at once and
// the local OpenSM killed (HandOverThenKill, as `smctl failover` does), or,
// with no STANDBY, OpenSM is stopped and its exit restarts it: a fresh
// OpenSM sweeps anew. Either way the fabric has a working master again
// about a floor after master_sweep_timeout.
bool FailoverPolicy::OnMasterNotSweeping() {
  not_sweeping_acted_ = true;
  ++counters_["master_not_sweeping"];
  const auto since = local_master_since_.value_or(now_);
  const std::string why =
      "the local MASTER's OpenSM has not finished its first sweep " +
      std::to_string(std::chrono::duration_cast<Duration>(now_ - since).count()) +
      " ms after it became MASTER (no SUBNET UP)";
  const auto best = BestStandby(view_, config_.local_guid);
  if (best && best->lid != 0) {
    Emit(Action::EmitEvent("MASTER_NOT_SWEEPING", why + "; handing over to " + Describe(*best)));
    handover_target_ = best;
    handover_reason_ = kNotSweepingReason;
    direct_handover_ = true;
    return true;  // HANDING_OVER: HandOverThenKill
  }
  Emit(Action::EmitEvent("MASTER_NOT_SWEEPING", why + "; no STANDBY: restarting OpenSM"));
  Emit(Action::StopOpenSm());
  return false;
}

bool FailoverPolicy::OnStopCommand() {
  command_.reset();
  switch (state_) {
    case SupervisorState::kMaster:
      if (auto best = BestStandby(view_, config_.local_guid)) {
        stopping_ = true;
        handover_target_ = best;
        handover_reason_ = "stop";
        return true;
      }
      Emit(Action::EmitEvent("STOP_WITHOUT_STANDBY",
                             "stopping the only SM: the subnet has no master"));
      return false;
    case SupervisorState::kHandingOver:
      stopping_ = true;
      return true;
    case SupervisorState::kStarting:
    case SupervisorState::kRecovering:
      Emit(Action::StopOpenSm());  // cancels a pending (re)start
      return true;
    default:
      return true;
  }
}

}  // namespace smsupd::policy
