// failover-soak: bench/failover_soak.sh. Runs each scenario of
// failover_soak.h for N cycles on a generated fat tree and prints one line
// per cycle, then the table docs/failover-bench.md keeps: per scenario the
// cycles, the longest window with no MASTER, the longest with two, and the
// median and max time of the cycle's action, with the targets.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tests/daemon/failover/failover_soak.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

struct Row {
  std::string name;
  long target_no_master_ms;  // -1: none
  std::vector<SoakCycle> cycles;
};

long Median(std::vector<long> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void PrintTable(const std::vector<Row>& rows, const std::string& fabric) {
  constexpr long kMaxDualMs = 2000;
  std::printf("\nsoak on fat tree %s; windows read every 10 ms; times in ms\n", fabric.c_str());
  std::printf("%-58s %6s %6s %10s %10s %8s %8s  %s\n", "scenario", "cycles", "failed",
              "no-master", "dual", "median", "max", "targets");
  for (const Row& row : rows) {
    long no_master = 0, dual = 0;
    int failed = 0;
    std::vector<long> actions;
    for (const SoakCycle& c : row.cycles) {
      no_master = std::max(no_master, c.longest_no_master_ms);
      dual = std::max(dual, c.longest_dual_master_ms);
      failed += c.ok ? 0 : 1;
      if (c.ok && c.action_ms >= 0) actions.push_back(c.action_ms);
    }
    std::string verdict;
    if (row.target_no_master_ms >= 0)
      verdict += std::string("no-master < ") + std::to_string(row.target_no_master_ms) +
                 (no_master <= row.target_no_master_ms ? " met" : " MISSED") + "; ";
    verdict += std::string("dual < 2000 ") + (dual <= kMaxDualMs ? "met" : "MISSED");
    if (failed) verdict += "; " + std::to_string(failed) + " cycle(s) failed";
    long max = actions.empty() ? -1 : *std::max_element(actions.begin(), actions.end());
    std::printf("%-58s %6zu %6d %10ld %10ld %8ld %8ld  %s\n", row.name.c_str(), row.cycles.size(),
                failed, no_master, dual, Median(actions), max, verdict.c_str());
  }
  std::fflush(stdout);
}

}  // namespace
}  // namespace smsupd::testbed

int main(int argc, char** argv) {
  using namespace smsupd::testbed;
  CLI::App app{"failover-soak: restarts and races on two real smsupd + OpenSM nodes"};
  std::string fat_tree = "36x18x18";
  int restarts = 50, cold = 20, kills = 20, losses = 20;
  unsigned seed = 1;
  bool keep = false;
  app.add_option("--fat-tree", fat_tree, "LEAVESxHOSTSxSPINES or PODSxLEAVESxHOSTSxSPINESxCORES")->capture_default_str();
  app.add_option("--restarts", restarts, "smctl restart-opensm cycles")->capture_default_str();
  app.add_option("--cold-starts", cold, "cold starts of both nodes")->capture_default_str();
  app.add_option("--kills", kills, "kill -9 of the master's smsupd during an apply")
      ->capture_default_str();
  app.add_option("--losses", losses, "master node losses per preempt setting")
      ->capture_default_str();
  app.add_option("--seed", seed, "seed of the random delays")->capture_default_str();
  app.add_flag("--keep", keep, "keep the fabric directories (logs)");
  CLI11_PARSE(app, argc, argv);
  auto topology = smsupd::testbed::MakeFatTreeFromSpec(fat_tree);
  if (!topology) {
    std::fprintf(stderr, "failover-soak: %s\n", topology.error().message.c_str());
    return 2;
  }
  struct Plan {
    SoakScenario scenario;
    int cycles;
    bool preempt;
    long target_no_master_ms;
  };
  const std::vector<Plan> plans = {{SoakScenario::kRestartCycles, restarts, false, 1000},
                                   {SoakScenario::kColdStarts, cold, true, 2000},
                                   {SoakScenario::kSmsupdKillInApply, kills, true, -1},
                                   {SoakScenario::kNodeLoss, losses, false, -1},
                                   {SoakScenario::kNodeLoss, losses, true, -1}};
  std::vector<Row> rows;
  for (const Plan& plan : plans) {
    if (plan.cycles <= 0) continue;
    std::string name = SoakScenarioName(plan.scenario);
    if (plan.scenario == SoakScenario::kNodeLoss) name += plan.preempt ? " (preempt)" : " (no preempt)";
    SoakOptions options;
    options.cycles = plan.cycles;
    options.preempt = plan.preempt;
    options.seed = seed;
    options.keep_dir = keep;
    Row row{name, plan.target_no_master_ms, {}};
    row.cycles = RunSoak(*topology, plan.scenario, options, [&](int i, const SoakCycle& c) {
      std::fprintf(stderr, "%s, cycle %d: %s action_ms=%ld no_master_ms=%ld dual_ms=%ld %s%s\n",
                   name.c_str(), i + 1, c.ok ? "ok" : "FAILED", c.action_ms, c.longest_no_master_ms,
                   c.longest_dual_master_ms, c.note.c_str(), c.ok ? "" : (" " + c.error).c_str());
    });
    rows.push_back(std::move(row));
    PrintTable(rows, fat_tree);
  }
  return 0;
}
