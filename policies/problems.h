// Which health problems the failover policy sees in a subnet, and when it
// raises and clears them. The IDs and their severities are the product's one
// vocabulary, common/problems.h; docs/failover.md says when each is raised.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/problems.h"
#include "policies/action.h"
#include "policies/observation.h"

namespace smsupd::policy {

// Problem id -> text, as currently present.
using ProblemSet = std::map<std::string, std::string>;

// What DetectProblems looks at. Durations are worked out by the policy.
struct ProblemInputs {
  std::vector<SmEntry> sms;  // the policy's view (SA list + direct reads)
  Guid local_guid = 0;
  std::optional<SmState> local_state;  // nullopt: OpenSM not running
  std::optional<LocalPort> local_port;
  bool opensm_running = false;
  bool opensm_waits_for_port = false;  // stopped while the port is Down
  bool sms_known = false;           // at least one SA list seen
  std::vector<Guid> inventory;      // empty: UNKNOWN_SM check off
  bool sm_key_mismatch = false;
  bool dual_master_settled = false;  // >= 2 MASTERs beyond the grace
  bool no_master_settled = false;    // no MASTER beyond the grace
  bool act_count_stalled = false;
  std::optional<Guid> watched_master;  // for the ActCount text
};

// The problems present in `in`, independent of history.
ProblemSet DetectProblems(const ProblemInputs& in);

// Remembers what is raised and turns a new set into Raise/Clear actions.
// A detected problem is raised only once it has been present for `settle`
// (a handover passes through "no standby" and "equal priorities" for a poll
// or two: not worth an operator's attention); it is cleared at once.
// DUAL_MASTER, NO_MASTER and MASTER_ACTCOUNT_STALLED have their own grace
// periods in the policy and are raised as soon as detected.
class ProblemTracker {
 public:
  explicit ProblemTracker(Duration settle = Duration(0)) : settle_(settle) {}

  // `sticky` problems (HANDOVER_FAILED, TAKEOVER_FAILED) are set and cleared
  // by the policy itself, merged into every update and never delayed.
  Actions Update(const ProblemSet& detected, TimePoint now = TimePoint{});
  void SetSticky(const std::string& id, const std::string& text);
  void ClearSticky(const std::string& id);
  bool IsRaised(const std::string& id) const { return raised_.count(id) != 0; }
  const ProblemSet& raised() const { return raised_; }

 private:
  Duration settle_;
  std::map<std::string, TimePoint> first_seen_;
  ProblemSet raised_;
  ProblemSet sticky_;
};

}  // namespace smsupd::policy
