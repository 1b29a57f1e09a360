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
//      vs "node or link gone");
//   4. when asked (every inventory interval), the SA's SMInfoRecords and a
//      direct SMInfo Get of every SM known so far, because the SA answers
//      from the master's own remote-SM table, which lags (fabric.h); now and
//      then (WatchRequest::discover) a directed-route walk adds every port
//      whose IsSM bit is set.
// The SA is never asked while the master misses polls: its timeout would
// hold the MAD thread and delay the next liveness poll.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/fabric/fabric.h"

namespace smsupd {

struct WatchRequest {
  bool inventory = false;              // step 4 in this round
  std::vector<uint16_t> known_sm_lids;  // SMs seen before (for step 4)
  // Step 4 also walks the subnet (Fabric::DiscoverPorts) for ports with
  // IsSM set: the SA of OpenSM 3.3.23 may not list a standby that started
  // after the master's last heavy sweep, sometimes for minutes.
  bool discover = false;
};

struct WatchRound {
  std::optional<PortInfo> local_port;  // absent: unreadable (port_error says why)
  std::string port_error;
  std::optional<SmInfo> local_sm;      // absent: the local SM does not answer
  // Step 3: the watched master (LID from the local port's SM LID).
  uint16_t master_lid = 0;             // 0: no remote master to watch
  std::optional<SmInfo> master;        // absent with master_lid != 0: a miss
  std::optional<bool> master_port_answers;  // only asked after a miss
  // Step 4: every SM with its LID, the direct reads overriding the SA's
  // rows. Absent when not asked, or when neither source answered.
  std::optional<std::vector<SmRecord>> sms;
  // The walk's farthest CA port (FarthestCaPort), when this round walked.
  std::optional<DiscoveredPort> far_port;
  // How long each answered SMInfo poll of steps 2 and 3 took (metrics).
  std::vector<std::chrono::microseconds> sminfo_poll_times;
};

WatchRound RunWatchRound(Fabric& fabric, const WatchRequest& request);

}  // namespace smsupd
