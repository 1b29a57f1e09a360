// One round of watching the subnet for the failover policy, run on the MAD
// thread (RunWatchRound is blocking; FailoverController schedules it every
// poll interval and turns the result into a policy::Observation).
//
// A round, in this order (docs/failover.md "Watching: the timing model"):
//   1. PortInfo of the local port (directed route: works without a LID);
//   2. SMInfo of the local SM (directed route: what OpenSM itself reports);
//   3. SMInfo of the master the local port's SM LID names, unless that is
//      the local port -- and, only when it does not answer, PortInfo of the
//      master's port (answered by the HCA, not OpenSM: "SM process dead"
//      vs "node or link gone"). Before it, when a walk gave the route to
//      the master's port (MasterLinkWatch), PortInfo of the switch port at
//      the other end of the master's cable, by directed route: the switch
//      answers it from its own SMA at once, however busy any OpenSM is,
//      and a link that died (node lost, cable pulled) reads Down there at
//      once. A trusted link that reads Down skips the SMInfo poll, whose
//      timeout would only delay the verdict;
//   3b. while the local SM is MASTER, between inventories: SMInfo of each SM
//      the last inventory showed STANDBY, so that a standby claiming
//      mastership (priority 14: preempt, or smctl failover run on it) is
//      seen within a round, not at the next inventory (up to 2 s later);
//   3c. when asked (a restart after a HANDOVER waits for the new master's
//      first sweep to end), and the master answered step 3: one short SA
//      request to it (Fabric::ProbeSa);
//   4. when asked (every inventory interval), the SA's SMInfoRecords and a
//      direct SMInfo Get of every SM known so far, because the SA answers
//      from the master's own remote-SM table, which lags (fabric.h); now and
//      then (WatchRequest::discover) a directed-route walk adds every port
//      whose IsSM bit is set.
// The SA is never asked while the master misses polls: its timeout would
// hold the MAD thread and delay the next liveness poll.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/fabric/fabric.h"

namespace smsupd {

// The cable of the watched master, as a walk found it (docs/failover.md
// "Node loss: the switch port at the other end of the cable").
struct MasterLinkWatch {
  Guid master_guid = 0;
  std::uint16_t master_lid = 0;  // used only while the local port names this LID
  DirectedRoute route;           // to the master's port; its last hop is the cable
  // The route was seen to end at master_guid (NodeInfo by the route) and the
  // link was up while the master answered, with the switch at the cable's
  // other end `switch_guid`. A Down read then skips the SMInfo poll, once
  // NodeInfo by the route to that switch still names it: the route is the
  // master's cable, not one that now leads elsewhere.
  bool trusted = false;
  Guid switch_guid = 0;
  // This round: NodeInfo by the route and by the route to its switch (if the
  // master answers), to confirm where they end.
  bool verify = false;
};

// The switch port (or local port) at the other end of a CA's cable reads
// its link down: PortState Down, or a PhysState other than LinkUp.
bool LinkReadsDown(const PortInfo& port);

struct WatchRequest {
  bool inventory = false;              // step 4 in this round
  std::vector<uint16_t> known_sm_lids;  // SMs seen before (for step 4)
  // Step 4 also walks the subnet (Fabric::DiscoverPorts) for ports with
  // IsSM set: the SA of OpenSM 3.3.23 may not list a standby that started
  // after the master's last heavy sweep, sometimes for minutes.
  bool discover = false;
  std::optional<MasterLinkWatch> master_link;
  // A walk in this round also returns the route to this port, IsSM or not.
  Guid route_wanted = 0;
  // Step 3b: the STANDBYs to read (at most kMaxStandbyPolls), when the local
  // port names the local SM as master and no inventory is asked.
  std::vector<uint16_t> standby_lids;
  // Step 3c: ask the SA at the watched master's LID whether it answers
  // (Fabric::ProbeSa), after that master answered its poll.
  bool probe_sa = false;
};

// The most STANDBYs step 3b reads in one round.
inline constexpr std::size_t kMaxStandbyPolls = 4;

// An SM port and the route the walk reached it by.
struct SmRoute {
  Guid port_guid = 0;
  DirectedRoute route;
};
// The most SM routes one walk returns (a subnet runs a few SMs).
inline constexpr std::size_t kMaxSmRoutes = 64;

struct WatchRound {
  std::optional<PortInfo> local_port;  // absent: unreadable (port_error says why)
  std::string port_error;
  std::optional<SmInfo> local_sm;      // absent: the local SM does not answer
  // Step 3: the watched master (LID from the local port's SM LID).
  uint16_t master_lid = 0;             // 0: no remote master to watch
  std::optional<SmInfo> master;        // absent with master_lid != 0: a miss
  std::optional<bool> master_port_answers;  // only asked after a miss
  // Step 3, MasterLinkWatch: the far end of the master's cable as read this
  // round (absent: not asked, or no answer).
  std::optional<PortInfo> master_link_port;
  // The trusted link read down: the master is gone, its SMInfo not polled.
  bool master_link_down = false;
  // MasterLinkWatch::verify: the port GUID the route ended at (0: no
  // answer). Absent when not asked.
  std::optional<Guid> master_link_end;
  // The node GUID of the switch the route's last hop leaves (0: no answer),
  // read with the verification and after a trusted Down read.
  std::optional<Guid> master_link_switch;
  // Step 3b: the STANDBYs that answered, as they answered.
  std::vector<SmRecord> standbys;
  // Step 3c: whether the watched master's SA answered; absent: not asked.
  std::optional<bool> master_sa_answers;
  // Step 4: every SM with its LID, the direct reads overriding the SA's
  // rows. Absent when not asked, or when neither source answered.
  std::optional<std::vector<SmRecord>> sms;
  // The walk's farthest CA port (FarthestCaPort), when this round walked.
  std::optional<DiscoveredPort> far_port;
  // The walk's routes to SM ports (and to WatchRequest::route_wanted), when
  // this round walked; at most kMaxSmRoutes.
  std::optional<std::vector<SmRoute>> sm_routes;
  // How long each answered SMInfo poll of steps 2 and 3 took (metrics).
  std::vector<std::chrono::microseconds> sminfo_poll_times;
};

WatchRound RunWatchRound(Fabric& fabric, const WatchRequest& request);

}  // namespace smsupd
