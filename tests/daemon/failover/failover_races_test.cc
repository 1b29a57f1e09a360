// A few cycles of each soak scenario (failover_soak.h) on the 4 x 4 x 2 fat
// tree, against the targets the soak measures at length: restarts never leave
// the subnet without a master for more than 1 s, cold starts never for more
// than 2 s, and two MASTERs never last more than 2 s. The full soak on the
// 648-HCA fabric is bench/failover_soak.sh (docs/failover-bench.md).
#include <gtest/gtest.h>

#include "tests/daemon/failover/failover_soak.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

constexpr long kMaxDualMasterMs = 2000;

void ExpectCycles(SoakScenario scenario, bool preempt, int cycles, long max_no_master_ms) {
  Result<Topology> topology = MakeFatTree(4, 4, 2);
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  SoakOptions options;
  options.cycles = cycles;
  options.preempt = preempt;
  std::vector<SoakCycle> results = RunSoak(*topology, scenario, options);
  ASSERT_EQ(results.size(), static_cast<size_t>(cycles));
  for (size_t i = 0; i < results.size(); ++i) {
    const SoakCycle& c = results[i];
    SCOPED_TRACE(std::string(SoakScenarioName(scenario)) + ", cycle " + std::to_string(i + 1) + ": " +
                 c.note);
    EXPECT_TRUE(c.ok) << c.error;
    EXPECT_LE(c.longest_no_master_ms, max_no_master_ms) << "too long without a master";
    EXPECT_LE(c.longest_dual_master_ms, kMaxDualMasterMs) << "two MASTERs for too long";
    std::printf("%s cycle %zu: action %ld ms, no master %ld ms, dual %ld ms (%s)\n",
                SoakScenarioName(scenario), i + 1, c.action_ms, c.longest_no_master_ms,
                c.longest_dual_master_ms, c.note.c_str());
  }
}

TEST(FailoverRacesTest, RestartCyclesAlternatingBetweenTheNodes) {
  ExpectCycles(SoakScenario::kRestartCycles, false, 4, 1000);
}

TEST(FailoverRacesTest, ColdStartsOfBothNodesTogether) {
  ExpectCycles(SoakScenario::kColdStarts, true, 2, 2000);
}

TEST(FailoverRacesTest, KillOfTheMastersSmsupdDuringAnApply) {
  ExpectCycles(SoakScenario::kSmsupdKillInApply, true, 2, 1000);
}

TEST(FailoverRacesTest, MasterNodeLossAndReturnWithoutPreempt) {
  ExpectCycles(SoakScenario::kNodeLoss, false, 2, 3000);
}

TEST(FailoverRacesTest, MasterNodeLossAndReturnWithPreempt) {
  ExpectCycles(SoakScenario::kNodeLoss, true, 2, 3000);
}

}  // namespace
}  // namespace smsupd::testbed
