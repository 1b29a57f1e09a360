// Drives the failover policy (policies/failover_policy.h) from the event
// loop: a watch round on the MAD thread every poll interval
// (failover_watch.h), one policy step after each round, after every change of
// the local OpenSM and for every operator command, and the step's actions
// executed in order. The policy decides; this class only observes and acts.
//
// Actions that touch OpenSM's process or files go to LocalSmControl
// (OpenSmController); MAD actions (HANDOVER to another SM, TakeOver =
// HANDOVER to the local SM) go through the MadWorker; events and problems
// to the Reporter (StatusBoard); every round's picture of the subnet to the
// `observed` callback. The policy hears about the outcome of everything
// through the next observation, never through a return value. Time comes
// from a Clock, so unit tests decide when a deadline has passed.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/clock.h"
#include "daemon/control/command_router.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/failover/failover_timeline.h"
#include "daemon/failover/failover_watch.h"
#include "daemon/opensm/opensm_control.h"
#include "daemon/status/reporter.h"
#include "daemon/status/subnet_observation.h"
#include "policies/failover_policy.h"

namespace smsupd {

struct FailoverTiming {
  std::chrono::milliseconds poll_interval{150};
  std::chrono::milliseconds inventory_interval{2000};
  // A round that has not come back by then counts as all-missed.
  std::chrono::milliseconds round_deadline{3000};
  // Between two rounds, a STANDBY reads the switch port at the other end of
  // the watched master's cable this often (failover_master_link.cc); a Down
  // read runs the next round at once. 0: only the rounds read it.
  std::chrono::milliseconds link_glance{50};
};

class FailoverController {
 public:
  // ok, text, details (from/to/master/elapsed_ms).
  using Reply = std::function<void(bool ok, const std::string& text, nlohmann::json details)>;

  using ObservedSink = std::function<void(const SubnetObservation&)>;

  FailoverController(boost::asio::io_context& io, const Clock& clock, MadWorker& worker,
                     policy::PolicyConfig config, FailoverTiming timing, std::uint64_t sm_key,
                     LocalSmControl& local_sm, Reporter& reporter, ObservedSink observed);
  ~FailoverController();

  // The first round at once, then every poll interval.
  void Start();
  void Stop();
  // Another round as soon as the current one ends (after a reload, an exit).
  void PollSoon();

  // The local OpenSM started (or was adopted) / exited: one step now.
  void OpenSmChanged(bool running, const std::string& exit_info);
  // OpenSM logged ERR 2F18 (SM_Key mismatch).
  void SmKeyMismatchSeen();
  // OpenSM logged "SUBNET UP" (the line, with OpenSM's own time stamp).
  void SubnetUpLogged(const std::string& line);
  // OpenSM logged "Entering MASTER state" (master) or "Entering STANDBY
  // state": until its next SUBNET UP a new master is in its first sweep.
  void SmStateLogged(bool master);
  // Whether the local OpenSM is in its first heavy sweep as master ("Entering
  // MASTER state", no "SUBNET UP" since). False where OpenSM's options hide
  // the SUBNET UP line (its end would never be seen) and once
  // kFirstSweepLongest has passed (a sweep that long is not waited for).
  static constexpr std::chrono::seconds kFirstSweepLongest{120};
  bool InFirstSweepAsMaster() const;
  // A new master does not walk the subnet for this long after the failover
  // that made it master ended (at its SUBNET UP): the walk's SMPs queue at
  // every switch's SMA beside the discovery of the OpenSM that handed over
  // and starts again then (~1.5 s on 2,592 HCAs, ~4 s on 10,000).
  static constexpr std::chrono::seconds kWalkHoldAfterTakeover{10};
  // Where the failover timeline finds the far port to watch (the farthest CA
  // port of the last subnet walk). Unset: the timeline has no far-port stage.
  using FarPortSource = std::function<std::optional<DiscoveredPort>()>;
  void SetFarPortSource(FarPortSource source) { far_port_source_ = std::move(source); }

  // smctl failover. `wait`: reply when the handover completed or failed;
  // otherwise as soon as it started (or was refused). `timeout` bounds a wait.
  void Failover(std::optional<Guid> to, bool wait, std::chrono::milliseconds timeout, Reply reply);
  // smctl restart-opensm and reload --restart: restart the local OpenSM,
  // handing over first when MASTER (policies/failover_policy.h). `force`:
  // also a MASTER with no standby. Replies like Failover.
  void RestartOpenSm(bool force, bool wait, std::chrono::milliseconds timeout, Reply reply);
  // The priority a restart of OpenSM after its back-off uses, decided now.
  int PriorityForStart() { return policy_.PriorityForStart(); }

  // SIGTERM: hand over first when MASTER, then stop OpenSM (LocalSmControl::Stop).
  void StopRequested();
  bool stop_requested() const { return stop_requested_; }

  // Registers `failover` (smctl failover): checks the arguments, then
  // Failover(); refused once the daemon is stopping.
  void RegisterCommands(control::CommandRouter& router);

  const policy::FailoverPolicy& policy() const { return policy_; }
  // status: failover, with the state and the commanded priority filled in
  // (role and preempt are the config's: StatusBoard adds them).
  control::FailoverWire Wire() const;
  const SubnetObservation& latest() const { return latest_; }
  std::optional<int> commanded_priority() const { return policy_.commanded_priority(); }

 private:
  void ScheduleRound(std::chrono::milliseconds delay);
  void RunRound();
  // The last inventory lists a STANDBY.
  bool StandbyKnown() const;
  // The next walks' times after one that took `took` (kWalkSpacing).
  void PaceWalks(std::chrono::steady_clock::duration took);
  void OnRound(const WatchRound& round);
  policy::Observation Observe(const WatchRound& round, bool fresh_inventory);
  void Step(policy::Observation observation);
  void Execute(const policy::Action& action);
  void SendHandover(std::uint16_t lid, Guid guid, const std::string& why, bool then_kill = false);
  void Answer(bool ok, const std::string& text);
  void UpdateMasterWatch(const WatchRound& round);
  // failover_master_link.cc: the watched master's cable.
  std::optional<MasterLinkWatch> MasterLinkRequest(std::chrono::steady_clock::time_point now);
  void UpdateMasterLink(const WatchRound& round);
  void ForgetMasterLink(const std::string& why);
  void ScheduleGlance();
  void GlanceAtMasterLink();
  bool MasterRouteMissing() const;
  // What decided a MASTER_LOST, for the failover timeline.
  std::string MasterLostSignal() const;
  void UpdateInventory(const WatchRound& round);
  void CheckPriorityApplied(const WatchRound& round);
  void CheckMadThread();
  void InventoryNow();
  std::optional<SmInfo> LocalSmInfo() const;

  void HandleFailover(const control::Request& request, const control::Caller& caller,
                      control::CommandHandler::Reply reply);
  void HandleRestart(const control::Request& request, const control::Caller& caller,
                     control::CommandHandler::Reply reply);
  void Command(policy::OperatorCommand command, bool wait, std::chrono::milliseconds timeout,
               Reply reply);
  void Report(const std::string& kind, const std::string& text);
  // The failover timeline (failover_timeline.h): its stages from this
  // class's own records, the far port read every kFarPortPoll meanwhile.
  void TimelineFromRound(const WatchRound& round);
  void PollFarPort();
  void FinishTimeline();
  void Problem(const std::string& id, const std::string& text, bool raised);

  boost::asio::io_context& io_;
  const Clock& clock_;
  MadWorker& worker_;
  FailoverTiming timing_;
  std::uint64_t sm_key_;
  LocalSmControl& local_sm_;
  Reporter& reporter_;
  ObservedSink observed_;
  policy::FailoverPolicy policy_;
  boost::asio::steady_timer round_timer_;
  boost::asio::steady_timer reply_timer_;
  bool running_ = false;
  bool stop_requested_ = false;
  bool in_round_ = false;
  bool round_again_ = false;
  std::chrono::steady_clock::time_point round_started_;
  std::chrono::steady_clock::time_point inventory_due_;
  std::chrono::steady_clock::time_point discovery_due_;
  std::chrono::steady_clock::time_point alone_walk_due_{};
  // No master's walk before this: a failover that made this SM master has
  // just ended, and the OpenSM that handed over is starting again
  // (kWalkHoldAfterTakeover).
  std::chrono::steady_clock::time_point walk_hold_until_{};

  // OpenSM as the supervisor reports it.
  bool opensm_running_ = false;
  std::string opensm_exit_info_;
  bool first_sweep_running_ = false;  // "Entering MASTER state", no "SUBNET UP" since
  Clock::TimePoint first_sweep_since_{};  // the last "Entering MASTER state"
  std::uint32_t master_entries_ = 0;  // "Entering MASTER state" lines logged (policy::LocalOpenSm)
  std::optional<std::chrono::steady_clock::time_point> sm_key_mismatch_at_;

  // The last round, and what is carried between rounds.
  WatchRound last_round_;
  SubnetObservation latest_;
  std::vector<SmRecord> inventory_;  // last full SM list (with LIDs)
  // STANDBYs that did not answer a read between inventories: not read again
  // until the next inventory.
  std::set<uint16_t> silent_standbys_;
  std::optional<policy::MasterWatch> watch_;
  bool port_silent_streak_ = true;  // every cross-check of this miss streak failed
  // The last walks' routes to SM ports, by port GUID (at most kMaxSmRoutes),
  // and the watched master's cable (MasterLinkWatch) with its trust.
  std::map<Guid, DirectedRoute> sm_routes_;
  struct MasterLink {
    Guid guid = 0;
    std::uint16_t lid = 0;
    DirectedRoute route;
    bool trusted = false;
    Guid switch_guid = 0;
    std::chrono::steady_clock::time_point verify_due{};
  };
  std::optional<MasterLink> master_link_;
  boost::asio::steady_timer glance_timer_;  // one wait at most: each arming replaces the last
  bool glance_in_flight_ = false;
  Guid route_walked_for_ = 0;  // the master a STANDBY walked for a route
  bool local_sm_missed_ = false;    // the last round's local SMInfo went unanswered
  std::optional<policy::OperatorCommand> pending_command_;
  // A HandOverThenKill's HANDOVER failed: told to the policy in the next step.
  bool direct_handover_failed_ = false;
  // The local SM has reported a priority other than the commanded one since.
  std::optional<std::chrono::steady_clock::time_point> priority_stale_since_;
  bool not_sweeping_raised_ = false;
  bool mad_stuck_raised_ = false;

  FailoverTimeline timeline_;
  FarPortSource far_port_source_;
  std::optional<DiscoveredPort> far_target_;
  std::optional<DiscoveredPort> far_port_;  // from this class's own last walk
  std::chrono::steady_clock::time_point far_walk_due_{};
  Guid master_before_fault_ = 0;  // the master when the timeline started
  boost::asio::steady_timer far_timer_;
  bool far_poll_in_flight_ = false;

  // The operator waiting for a failover answer.
  struct Waiting {
    Reply reply;
    bool wait = false;
    Guid from = 0;
    std::chrono::steady_clock::time_point since;
  };
  std::optional<Waiting> waiting_;
};

}  // namespace smsupd
