// Drives the failover policy (policies/failover_policy.h) from the event
// loop: a watch round on the MAD thread every poll interval
// (failover_watch.h), one policy step after each round, after every change of
// the local OpenSM and for every operator command, and the step's actions
// executed in order. The policy decides; this class only observes and acts.
//
// Actions that touch OpenSM's process or files go to a FailoverActuator (the
// Daemon); MAD actions (HANDOVER to another SM, TakeOver = HANDOVER to the
// local SM) go through the MadWorker. The policy hears about the outcome of
// everything through the next observation, never through a return value.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "daemon/failover_watch.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/subnet_observer.h"
#include "policies/failover_policy.h"

namespace smsupd {

// What the daemon does for the policy (STYLE: a small interface; the unit
// tests implement it with a recorder).
class FailoverActuator {
 public:
  virtual ~FailoverActuator() = default;
  // Re-render opensm.conf with `priority` and SIGHUP OpenSM.
  virtual void SetLocalPriority(int priority) = 0;
  // First start (StartOpenSm) or a start after an exit (RestartOpenSm), with
  // opensm.conf rendered at `priority`.
  virtual void StartOpenSm(int priority, bool restart) = 0;
  // Stop OpenSM and do not restart it until told.
  virtual void StopOpenSm() = 0;
  virtual void Problem(const std::string& id, const std::string& text, bool raised) = 0;
  // A policy event (stable kind, e.g. MASTER_LOST) for the event log and journal.
  virtual void FailoverEvent(const std::string& kind, const std::string& text) = 0;
  // Every round's picture of the subnet (status, sm-state/master events).
  virtual void Observed(const SubnetObservation& seen) = 0;
};

struct FailoverTiming {
  std::chrono::milliseconds poll_interval{150};
  std::chrono::milliseconds inventory_interval{2000};
  // A round that has not come back by then counts as all-missed.
  std::chrono::milliseconds round_deadline{3000};
};

class FailoverController {
 public:
  // ok, text, details (from/to/master/elapsed_ms).
  using Reply = std::function<void(bool ok, const std::string& text, nlohmann::json details)>;

  FailoverController(boost::asio::io_context& io, MadWorker& worker, policy::PolicyConfig config,
                     FailoverTiming timing, std::uint64_t sm_key, FailoverActuator& actuator);
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

  // smctl failover. `wait`: reply when the handover completed or failed;
  // otherwise as soon as it started (or was refused). `timeout` bounds a wait.
  void Failover(std::optional<Guid> to, bool wait, std::chrono::milliseconds timeout, Reply reply);
  // SIGTERM: hand over first when MASTER, then stop OpenSM (StopOpenSm).
  void StopRequested();

  const policy::FailoverPolicy& policy() const { return policy_; }
  const SubnetObservation& latest() const { return latest_; }
  std::optional<int> commanded_priority() const { return policy_.commanded_priority(); }

 private:
  void ScheduleRound(std::chrono::milliseconds delay);
  void RunRound();
  void OnRound(const WatchRound& round);
  policy::Observation Observe(const WatchRound& round, bool fresh_inventory);
  void Step(policy::Observation observation);
  void Execute(const policy::Action& action);
  void SendHandover(std::uint16_t lid, Guid guid, const std::string& why);
  void Answer(bool ok, const std::string& text);
  void UpdateMasterWatch(const WatchRound& round);
  void UpdateInventory(const WatchRound& round);
  void CheckPriorityApplied(const WatchRound& round);
  void InventoryNow();
  std::optional<SmInfo> LocalSmInfo() const;

  boost::asio::io_context& io_;
  MadWorker& worker_;
  FailoverTiming timing_;
  std::uint64_t sm_key_;
  FailoverActuator& actuator_;
  policy::FailoverPolicy policy_;
  boost::asio::steady_timer round_timer_;
  boost::asio::steady_timer reply_timer_;
  bool running_ = false;
  bool in_round_ = false;
  bool round_again_ = false;
  std::chrono::steady_clock::time_point round_started_;
  std::chrono::steady_clock::time_point inventory_due_;
  std::chrono::steady_clock::time_point discovery_due_;

  // OpenSM as the supervisor reports it.
  bool opensm_running_ = false;
  std::string opensm_exit_info_;
  std::optional<std::chrono::steady_clock::time_point> sm_key_mismatch_at_;

  // The last round, and what is carried between rounds.
  WatchRound last_round_;
  SubnetObservation latest_;
  std::vector<SmRecord> inventory_;  // last full SM list (with LIDs)
  std::optional<policy::MasterWatch> watch_;
  bool port_silent_streak_ = true;  // every cross-check of this miss streak failed
  std::optional<policy::OperatorCommand> pending_command_;
  // The local SM has reported a priority other than the commanded one since.
  std::optional<std::chrono::steady_clock::time_point> priority_stale_since_;
  bool not_sweeping_raised_ = false;

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
