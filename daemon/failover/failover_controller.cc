#include "daemon/failover/failover_controller.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/problems.h"

namespace smsupd {
namespace {


// How often a MASTER walks the subnet for SMs its SA does not list: every
// 10 s, and never more than 1/kWalkSpacing of the time (a walk that took D
// waits kWalkSpacing x D), because the walk's SMPs queue with OpenSM's
// sweep at every switch's SMA (~14,000 SMPs, ~1 s, at 2,592 HCAs). With no
// STANDBY known the walk looks for one at every inventory round, within a
// share of kWalkSpacingAlone.
constexpr std::chrono::seconds kDiscoveryInterval{10};
constexpr int kWalkSpacing = 50;
constexpr int kWalkSpacingAlone = 10;
// A STANDBY walks only to learn the far port of the failover timeline: once,
// and again this long after a walk that found none.
constexpr std::chrono::minutes kFarPortWalkRetry{10};
// After a round in which the new master's SA answered but the restart it
// gates still waits (its ActCount rose at a sweep's rate), the next round
// comes this soon. Idle, OpenSM sends a few MADs in that time (answers to
// polls); sweeping, it sends hundreds.
constexpr std::chrono::milliseconds kSaAnsweredRecheck{50};
// OpenSM logged ERR 2F18 this recently: SM_KEY_MISMATCH stays raised.
constexpr std::chrono::seconds kSmKeyMismatchMemory{60};

policy::SmState ToPolicy(SmState state) { return static_cast<policy::SmState>(state); }

std::vector<policy::SmEntry> ToPolicy(const std::vector<SmRecord>& records) {
  std::vector<policy::SmEntry> out;
  for (const SmRecord& r : records)
    out.push_back({r.info.guid, r.lid, ToPolicy(r.info.state), r.info.priority});
  return out;
}

}  // namespace

FailoverController::FailoverController(boost::asio::io_context& io, const Clock& clock,
                                       MadWorker& worker, policy::PolicyConfig config,
                                       FailoverTiming timing, std::uint64_t sm_key,
                                       LocalSmControl& local_sm, Reporter& reporter,
                                       ObservedSink observed)
    : io_(io), clock_(clock), worker_(worker), timing_(timing), sm_key_(sm_key),
      local_sm_(local_sm), reporter_(reporter), observed_(std::move(observed)),
      policy_(std::move(config), clock.Now()), round_timer_(io), reply_timer_(io), glance_timer_(io), far_timer_(io) {}

FailoverController::~FailoverController() = default;

void FailoverController::Start() {
  running_ = true;
  inventory_due_ = clock_.Now();
  RunRound();
  ScheduleGlance();
}

void FailoverController::Stop() {
  running_ = false;
  round_timer_.cancel();
  reply_timer_.cancel();
  glance_timer_.cancel();
  far_timer_.cancel();
}

void FailoverController::PollSoon() {
  if (in_round_) {
    round_again_ = true;
  } else if (running_) {
    round_timer_.cancel();
    RunRound();
  }
}

void FailoverController::ScheduleRound(std::chrono::milliseconds delay) {
  round_timer_.expires_after(delay);
  round_timer_.async_wait([this](boost::system::error_code error) {
    if (!error && running_) RunRound();
  });
}

void FailoverController::RunRound() {
  if (in_round_) return;
  in_round_ = true;
  round_started_ = clock_.Now();
  WatchRequest request;
  request.inventory = round_started_ >= inventory_due_;
  for (const SmRecord& r : inventory_) request.known_sm_lids.push_back(r.lid);
  // The walk costs a few hundred ms on a large subnet: only where no master
  // must be watched meanwhile (the local SM is MASTER, or there is none),
  // and at most every kDiscoveryInterval.
  const bool watching = last_round_.master_lid != 0;
  const bool standby_known = StandbyKnown();
  // Never while a failover is under way (a timeline runs): the new
  // master's first sweep needs the switches' SMAs to itself; the walk beside
  // it cost ~300 ms of that sweep on 2,592 HCAs.
  // Nor right after a failover that made this SM master: the OpenSM that
  // handed over starts again at the new master's SUBNET UP, and its
  // discovery needs the switches' SMAs as much.
  request.discover = request.inventory && !watching && !timeline_.active() &&
                     round_started_ >= walk_hold_until_ &&
                     (round_started_ >= discovery_due_ || (!standby_known && round_started_ >= alone_walk_due_));
  // A STANDBY with a healthy master and no far port yet walks once: the
  // walk holds the MAD thread (~0.3 s at 648 HCAs), so never while the
  // master misses polls.
  // It walks too for the route to a master it has none for (the cable
  // watch: failover_master_link.cc), once per master.
  if (request.inventory && !request.discover && (!far_port_ || MasterRouteMissing()) &&
      round_started_ >= far_walk_due_ && policy_.state() == policy::SupervisorState::kStandby &&
      last_round_.master && (!watch_ || watch_->consecutive_misses == 0)) {
    request.discover = true;
    far_walk_due_ = round_started_ + kFarPortWalkRetry;
  }
  request.master_link = MasterLinkRequest(round_started_);
  // A MASTER reads its STANDBYs between inventories, so that a claim is seen
  // within a round. Not while a failover is under way (the new master's
  // sweep comes first), and not a STANDBY that did not answer since the
  // last inventory: its timeout would hold the MAD thread every round.
  if (!request.inventory && !timeline_.active() && policy_.state() == policy::SupervisorState::kMaster)
    for (const SmRecord& r : inventory_)
      if (r.info.state == SmState::kStandby && !silent_standbys_.contains(r.lid) &&
          request.standby_lids.size() < kMaxStandbyPolls)
        request.standby_lids.push_back(r.lid);
  if (MasterRouteMissing()) request.route_wanted = watch_->guid;
  request.probe_sa = policy_.waits_for_new_master_sweep();
  worker_.Submit(
      [request](Fabric& fabric) -> Result<WatchRound> { return RunWatchRound(fabric, request); },
      [this, asked = request.inventory, walked = request.discover,
       standbys = request.standby_lids](Result<WatchRound> round) {
        in_round_ = false;
        if (!running_) return;
        if (walked) PaceWalks(clock_.Now() - round_started_);
        if (round) {
          if (asked) inventory_due_ = round_started_ + timing_.inventory_interval;
          if (round->sms) silent_standbys_.clear();
          for (uint16_t lid : standbys)
            if (std::none_of(round->standbys.begin(), round->standbys.end(),
                             [lid](const SmRecord& r) { return r.lid == lid; }))
              silent_standbys_.insert(lid);
          OnRound(*round);
        } else {
          // The MAD thread did not come back: nothing new is known about the
          // local side; the master counts as one more unanswered poll.
          spdlog::warn("WATCH_ROUND_LATE {}", round.error().message);
          WatchRound stale = last_round_;
          stale.master.reset();
          stale.master_port_answers.reset();
          stale.master_link_port.reset();
          stale.master_link_down = false;
          stale.master_link_end.reset();
          stale.sm_routes.reset();
          stale.far_port.reset();
          stale.sms.reset();
          stale.standbys.clear();
          OnRound(stale);
        }
        auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now() -
                                                                             round_started_);
        auto delay = round_again_ ? std::chrono::milliseconds(0)
                                  : std::max(std::chrono::milliseconds(0),
                                             timing_.poll_interval - elapsed);
        // The new master's SA answered while its ActCount still rose at a
        // sweep's rate (the sweep's last MADs, or a sweep begun again): the
        // next reading, sooner, says which.
        if (round && round->master_sa_answers == true && policy_.waits_for_new_master_sweep())
          delay = std::min(delay, kSaAnsweredRecheck);
        round_again_ = false;
        ScheduleRound(delay);
        ScheduleGlance();  // counted from this round's end (and again after a Down or silent glance)
      },
      // UmadFabricOptions::discovery_budget bounds the walk.
      request.discover ? timing_.round_deadline + std::chrono::seconds(10) : timing_.round_deadline);
}

bool FailoverController::StandbyKnown() const {
  return std::any_of(inventory_.begin(), inventory_.end(),
                     [](const SmRecord& r) { return r.info.state == SmState::kStandby; });
}

void FailoverController::PaceWalks(std::chrono::steady_clock::duration took) {
  discovery_due_ = round_started_ + std::max<std::chrono::steady_clock::duration>(kDiscoveryInterval,
                                                                                  kWalkSpacing * took);
  alone_walk_due_ = round_started_ + kWalkSpacingAlone * took;
}

void FailoverController::OnRound(const WatchRound& round) {
  CheckMadThread();
  UpdateMasterWatch(round);
  UpdateMasterLink(round);
  UpdateInventory(round);
  if (round.far_port) far_port_ = round.far_port;
  TimelineFromRound(round);
  last_round_ = round;
  CheckPriorityApplied(round);
  Step(Observe(round, round.sms.has_value()));
  if (observed_) observed_(latest_);
}

// Consecutive misses of the SM the local port names as master. The port
// cross-check must have failed in every round of the streak to count as
// "node gone": one answer means the node lives (a busy link drops MADs).
void FailoverController::UpdateMasterWatch(const WatchRound& round) {
  if (round.master_lid == 0) {
    watch_.reset();
    return;
  }
  if (!watch_ || watch_->lid != round.master_lid) {
    watch_ = policy::MasterWatch{};
    watch_->lid = round.master_lid;
    for (const SmRecord& r : inventory_)
      if (r.lid == round.master_lid) watch_->guid = r.info.guid;
    port_silent_streak_ = true;
  }
  if (round.master) {
    watch_->guid = round.master->guid;
    watch_->priority = round.master->priority;
    watch_->state = ToPolicy(round.master->state);
    watch_->act_count = round.master->act_count;
    watch_->consecutive_misses = 0;
    watch_->port_answers.reset();
    watch_->link_down = false;
    port_silent_streak_ = true;
    return;
  }
  ++watch_->consecutive_misses;
  watch_->link_down = round.master_link_down;
  if (round.master_port_answers == true) port_silent_streak_ = false;
  if (round.master_port_answers.has_value() || !port_silent_streak_)
    watch_->port_answers = !port_silent_streak_;
  if (watch_->consecutive_misses == 1 || watch_->consecutive_misses % 10 == 0)
    spdlog::info("MASTER_POLL_MISSED master {} LID {}: {} poll(s) unanswered, its port {}",
                 FormatGuid(watch_->guid), watch_->lid, watch_->consecutive_misses,
                 watch_->link_down                ? "cut off (its cable's far end reads Down)"
                 : watch_->port_answers == false ? "silent"
                                                  : "answers");
}

// The status picture: first-hand reads of this round over the last list.
void FailoverController::UpdateInventory(const WatchRound& round) {
  if (round.sms) inventory_ = *round.sms;
  SubnetObservation seen;
  seen.valid = true;
  seen.port_error = round.port_error;
  seen.sminfo_poll_times = round.sminfo_poll_times;
  if (round.local_port) seen.local_port = *round.local_port;
  seen.local_sm = opensm_running_ ? round.local_sm : std::nullopt;
  // One unanswered read is not a change (a loaded link drops MADs): the
  // picture, and the events made from it, keep what the last read said
  // until a second read in a row goes unanswered. The policy judges each
  // round as it came, with its own thresholds.
  const bool local_missed = opensm_running_ && !round.local_sm;
  if (local_missed && !local_sm_missed_ && latest_.local_sm) seen.local_sm = latest_.local_sm;
  local_sm_missed_ = local_missed;
  const uint16_t local_lid = round.local_port ? round.local_port->lid : 0;
  if (round.master) {
    seen.master = SmRecord{round.master_lid, *round.master};
  } else if (local_lid != 0 && seen.local_sm &&
             (round.local_port->sm_lid == local_lid || seen.local_sm->state == SmState::kMaster)) {
    // The port names the local SM, or the local SM took over (a HANDOVER,
    // or its own takeover) before its first sweep pointed the port at it:
    // the port still names the old master, which no longer answers. The
    // picture never shows a gap that the fabric did not have.
    seen.master = SmRecord{local_lid, *seen.local_sm};
  } else if (watch_ && watch_->consecutive_misses == 1 && latest_.master &&
             latest_.master->lid == round.master_lid) {
    seen.master = latest_.master;
  }
  seen.sms = inventory_;
  for (SmRecord& r : seen.sms) {
    if (seen.local_sm && r.lid == local_lid) r.info = *seen.local_sm;
    if (round.master && r.lid == round.master_lid) r.info = *round.master;
    for (const SmRecord& read : round.standbys)
      if (read.lid == r.lid) r.info = read.info;
  }
  if (seen.local_sm && std::none_of(seen.sms.begin(), seen.sms.end(),
                                    [&](const SmRecord& r) { return r.lid == local_lid; }))
    seen.sms.push_back({local_lid, *seen.local_sm});
  latest_ = std::move(seen);
}

// A call on the MAD thread past its deadline holds every later one: the
// rounds come back late, and nothing on the fabric is seen meanwhile.
void FailoverController::CheckMadThread() {
  const bool stuck = worker_.Stuck();
  if (stuck == mad_stuck_raised_) return;
  mad_stuck_raised_ = stuck;
  Problem(kProblemMadThreadStuck,
          "a MAD call on the MAD thread is past its deadline: the subnet is not being watched", stuck);
}

// OpenSM re-reads sm_priority in the heavy sweep a SIGHUP forces; a MASTER
// still at the old priority long after is not sweeping (stuck in a sweep
// whose MADs never completed). Raised for the operator: the fabric keeps
// its last programming, but changes (P_Keys, failover) will not happen.
void FailoverController::CheckPriorityApplied(const WatchRound& round) {
  constexpr std::chrono::seconds kSweepGrace{10};
  const auto wanted = policy_.commanded_priority();
  // A raise written without a SIGHUP waits for a sweep OpenSM starts by
  // itself; the grace counts from the SIGHUP that follows it.
  const bool stale = opensm_running_ && wanted && !policy_.priority_deferred() && round.local_sm &&
                     round.local_sm->state == SmState::kMaster &&
                     round.local_sm->priority != *wanted;
  if (!stale) {
    priority_stale_since_.reset();
    if (not_sweeping_raised_) Problem(kProblemOpenSmNotSweeping, "", false);
    not_sweeping_raised_ = false;
    return;
  }
  const auto now = clock_.Now();
  if (!priority_stale_since_) priority_stale_since_ = now;
  if (!not_sweeping_raised_ && now - *priority_stale_since_ >= kSweepGrace) {
    not_sweeping_raised_ = true;
    Problem(kProblemOpenSmNotSweeping,
                      "the local MASTER still runs at priority " +
                          std::to_string(round.local_sm->priority) + " " +
                          std::to_string(kSweepGrace.count()) + " s after being set to " +
                          std::to_string(*wanted) + ": OpenSM is not completing heavy sweeps",
                      true);
  }
}

policy::Observation FailoverController::Observe(const WatchRound& round, bool fresh_inventory) {
  policy::Observation obs;
  obs.opensm = {opensm_running_, opensm_exit_info_, opensm_running_ && first_sweep_running_, master_entries_};
  if (round.local_sm)
    obs.local_sm = policy::LocalSmInfo{ToPolicy(round.local_sm->state), round.local_sm->priority,
                                       round.local_sm->act_count};
  if (round.local_port)
    obs.local_port = policy::LocalPort{round.local_port->port_state, round.local_port->lid,
                                       round.local_port->sm_lid};
  obs.master = watch_;
  obs.standby_reads = ToPolicy(round.standbys);
  if (fresh_inventory && round.sms) obs.sms = ToPolicy(*round.sms);
  obs.direct_handover_failed = std::exchange(direct_handover_failed_, false);
  obs.master_sa_answers = round.master_sa_answers;
  obs.sm_key_mismatch = sm_key_mismatch_at_ &&
                        clock_.Now() - *sm_key_mismatch_at_ < kSmKeyMismatchMemory;
  // A command is decided on a round that took the inventory: the SMs it
  // hands over to must be known now, not as of seconds ago.
  if (fresh_inventory) {
    obs.command = pending_command_;
    pending_command_.reset();
  }
  return obs;
}

void FailoverController::Step(policy::Observation observation) {
  policy::Actions actions = policy_.Decide(observation, clock_.Now());
  for (const policy::Action& action : actions) Execute(action);
  local_sm_.FollowPriority(policy_.commanded_priority());
}

// Outside a round: the last round's reads, no list (the policy must not take
// an old list for a fresh one), the new facts about OpenSM or the command.
void FailoverController::OpenSmChanged(bool running, const std::string& exit_info) {
  opensm_running_ = running;
  opensm_exit_info_ = running ? "" : exit_info;
  first_sweep_running_ = false;
  // Decided now, before the supervisor's back-off timer can restart it: a
  // MASTER's OpenSM that died restarts only when the policy says (once the
  // new master it handed over to has swept this node, or once a fresh SM
  // list showed no STANDBY to hand over to); the policy's restart releases
  // the hold at once.
  const bool was_master = policy_.state() == policy::SupervisorState::kMaster ||
                          policy_.state() == policy::SupervisorState::kHandingOver;
  const bool port_down = last_round_.local_port && last_round_.local_port->port_state == kPortStateDown;
  if (!running && was_master && !port_down) local_sm_.HoldRestart();
  boost::asio::post(io_, [this] {
    if (!running_) return;
    Step(Observe(last_round_, false));
    PollSoon();
  });
}

void FailoverController::SmKeyMismatchSeen() { sm_key_mismatch_at_ = clock_.Now(); }

void FailoverController::SmStateLogged(bool master) {
  first_sweep_running_ = master;
  if (master) {
    ++master_entries_;
    first_sweep_since_ = clock_.Now();
  }
}

bool FailoverController::InFirstSweepAsMaster() const {
  // master_sweep_timeout is zero exactly when OpenSM's options hide SUBNET UP
  // (failover_settings.cc).
  const bool end_seen = policy_.config().master_sweep_timeout.count() > 0;
  return end_seen && opensm_running_ && first_sweep_running_ &&
         clock_.Now() - first_sweep_since_ < kFirstSweepLongest;
}

void FailoverController::StopRequested() {
  stop_requested_ = true;
  pending_command_ = policy::OperatorCommand{policy::OperatorCommand::Kind::kStop, std::nullopt};
  InventoryNow();
}

// The next round takes the inventory, at once. It walks the subnet too
// (where walks run: this SM watches no master) only while no STANDBY is
// known: the walk finds an SM the SA does not list yet, but a command
// decided on that round waited for it (~0.8 s on 10,000 HCAs, before the
// HANDOVER of every `smctl failover`), and the SA's list plus each known
// SM's own SMInfo already say which SM to hand over to.
void FailoverController::InventoryNow() {
  inventory_due_ = clock_.Now();
  if (!StandbyKnown()) discovery_due_ = inventory_due_;
  if (running_) {
    PollSoon();
  } else {
    // Not watching (yet): decide on what is known.
    policy::Observation observation = Observe(last_round_, false);
    observation.command = pending_command_;
    pending_command_.reset();
    Step(std::move(observation));
  }
}

}  // namespace smsupd
