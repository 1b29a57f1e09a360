// The failover soak: the restarts and races operators cause every week, in
// cycles on two real smsupd + OpenSM nodes, with the truth read from the
// fabric by a MasterMonitor (every SM's SMInfo every 10 ms, a "no master"
// confirmed by a second, reversed pass). For each cycle: the longest window
// with no MASTER, the longest with two, and the time the cycle's action took.
// bench/failover_soak.sh runs it at length on the 648-HCA fabric
// (failover-soak); failover_soak_test.cc runs a few cycles of each in CI.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "tests/daemon/failover/master_monitor.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed {

enum class SoakScenario {
  kRestartCycles,      // smctl restart-opensm --wait, alternating between the nodes
  kColdStarts,         // both nodes started within 50 ms on a fresh fabric
  kSmsupdKillInApply,  // kill -9 of the master's smsupd during reload --wait, then its restart
  kNodeLoss,           // the master node's link down, back 2-10 s later
};

const char* SoakScenarioName(SoakScenario scenario);

struct SoakOptions {
  int cycles = 3;
  bool preempt = false;  // kNodeLoss runs with both settings
  unsigned seed = 1;     // the random delays of a run
  std::chrono::milliseconds deadline{60000};  // every wait of a cycle
  bool keep_dir = false;
};

struct SoakCycle {
  bool ok = false;
  std::string error;
  long action_ms = -1;  // restart: smctl's time; cold start: first MASTER; loss: new MASTER; kill: ready again
  long longest_no_master_ms = 0;
  long longest_dual_master_ms = 0;
  std::string note;  // which node, the delay drawn, ...
};

// Runs `options.cycles` cycles of `scenario` and calls `on_cycle` after each.
std::vector<SoakCycle> RunSoak(const Topology& topology, SoakScenario scenario,
                               const SoakOptions& options,
                               const std::function<void(int, const SoakCycle&)>& on_cycle = {});

}  // namespace smsupd::testbed
