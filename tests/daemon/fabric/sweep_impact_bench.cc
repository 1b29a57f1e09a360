// sweep-impact-bench: how much smsupd's subnet walk slows OpenSM's own heavy
// sweep (bench/sweep_impact.sh). On a generated fat tree, with one plain
// OpenSM master on the first management node:
//   alone    SIGHUP -> the next "SUBNET UP" in OpenSM's log, N times;
//   walked   the same, with smsupd's own walk (fabric_probe `discover`: the
//            UmadFabric code the daemon runs) started on the same node at the
//            SIGHUP, so that the walk overlaps the whole sweep (the worst case);
// then the walk alone (its time; its SMPs are counted by `failover_bench.sh
// --load` as smsupd_mad_sent_total) and what smsupd's pacing makes of it: the
// MASTER walks every max(10 s, 50 x the walk's time), so at most that share
// of OpenSM's sweeps can meet a walk.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <csignal>
#include <nlohmann/json.hpp>

#include "tests/testbed/opensm_process.h"
#include "tests/testbed/simulated_fabric.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;
using Json = nlohmann::json;

constexpr milliseconds kSweepDeadline(120000);

long Since(Clock::time_point start) {
  return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - start).count());
}

long Median(std::vector<long> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

long Max(const std::vector<long>& v) { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); }

// "SUBNET UP" lines in OpenSM's log so far.
int SubnetUps(const std::string& log_path) {
  std::ifstream log(log_path);
  int count = 0;
  for (std::string line; std::getline(log, line);)
    if (line.size() >= 9 && line.compare(line.size() - 9, 9, "SUBNET UP") == 0) ++count;
  return count;
}

Status WaitSubnetUps(const std::string& log_path, int count) {
  return WaitFor("SUBNET UP", [&] { return SubnetUps(log_path) >= count; }, kSweepDeadline, milliseconds(5));
}

struct Walk {
  long ms = 0;
  long ports = 0;  // one per CA port, one per switch (port 0)
};

// fabric_probe's `discover` on `node`, to its end.
Result<Walk> WalkOn(SimulatedFabric& fabric, const std::string& node, int run) {
  auto process = fabric.RunOnNode(node, {FABRIC_PROBE_PATH, "--deadline-ms", "120000", "discover"},
                                  "walk-" + std::to_string(run));
  if (!process) return Error{process.error().message};
  auto exited = (*process)->process->Wait(kSweepDeadline);
  if (!exited) return Error{"fabric_probe did not finish"};
  std::ifstream output((*process)->output_path);
  for (std::string line; std::getline(output, line);) {
    if (line.empty() || line[0] != '{') continue;  // umad2sim's chatter
    Json answer = Json::parse(line, nullptr, false);
    if (answer.is_discarded() || !answer.value("ok", false)) return Error{"walk failed: " + line};
    Walk walk;
    walk.ms = answer.value("elapsed_us", 0L) / 1000;
    walk.ports = static_cast<long>(answer.value("ports", Json::array()).size());
    return walk;
  }
  return Error{"no answer from fabric_probe"};
}

int Run(const std::string& size, int sweeps) {
  Result<Topology> topology = MakeFatTreeFromSpec(size);
  if (!topology) {
    std::cerr << topology.error().message << "\n";
    return 2;
  }
  FabricOptions options;
  options.name = "sweep-impact";
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(*topology, options);
  if (!fabric) {
    std::cerr << "fabric: " << fabric.error().message << "\n";
    return 1;
  }
  const std::string sm_node = topology->management_nodes()[0];
  OpenSmSpec spec = OpenSmOn(sm_node, 15, {{"force_log_flush", "TRUE"}});
  Result<NodeProcess*> sm = StartOpenSm(**fabric, spec);
  if (!sm) {
    std::cerr << "opensm: " << sm.error().message << "\n";
    return 1;
  }
  const std::string log_path = (*sm)->dir + "/opensm.log";
  if (Status up = WaitSubnetUps(log_path, 1); !up) {
    std::cerr << "no first SUBNET UP: " << up.message() << "\n";
    return 1;
  }
  Result<Walk> first = WalkOn(**fabric, sm_node, 0);
  if (!first) {
    std::cerr << first.error().message << "\n";
    return 1;
  }

  std::vector<long> alone, walked, walks;
  for (int i = 0; i < 2 * sweeps; ++i) {
    const bool with_walk = i % 2 == 1;  // interleaved: drift in the machine's load hits both alike
    const int before = SubnetUps(log_path);
    const Clock::time_point start = Clock::now();
    if (Status hup = (*sm)->process->Signal(SIGHUP); !hup) {
      std::cerr << "SIGHUP: " << hup.message() << "\n";
      return 1;
    }
    std::optional<Result<Walk>> walk;
    std::thread walker;
    if (with_walk) walker = std::thread([&] { walk = WalkOn(**fabric, sm_node, i); });
    Status up = WaitSubnetUps(log_path, before + 1);
    const long ms = Since(start);
    if (walker.joinable()) walker.join();
    if (!up) {
      std::cerr << "sweep " << i << ": " << up.message() << "\n";
      return 1;
    }
    if (walk && !*walk) {
      std::cerr << "walk " << i << ": " << (*walk).error().message << "\n";
      return 1;
    }
    (with_walk ? walked : alone).push_back(ms);
    if (walk) walks.push_back((**walk).ms);
    std::fprintf(stderr, "sweep %d (%s): %ld ms%s\n", i / 2 + 1, with_walk ? "with a walk" : "alone", ms,
                 walk ? (" (walk " + std::to_string((**walk).ms) + " ms)").c_str() : "");
  }

  const long walk_ms = first->ms;
  const long interval_ms = std::max(10000L, 50 * walk_ms);
  const double slowdown = 100.0 * (Median(walked) - Median(alone)) / std::max(1L, Median(alone));
  const double share = std::min(1.0, static_cast<double>(walk_ms + Median(alone)) / interval_ms);
  std::printf("\nOpenSM heavy sweep (SIGHUP -> SUBNET UP) on fat tree %s, %d sweeps each, ms\n", size.c_str(), sweeps);
  std::printf("%-44s %8s %8s  %s\n", "row", "median", "max", "sweeps");
  auto row = [](const char* name, const std::vector<long>& v) {
    std::string all;
    for (long x : v) all += std::to_string(x) + " ";
    std::printf("%-44s %8ld %8ld  %s\n", name, Median(v), Max(v), all.c_str());
  };
  row("alone", alone);
  row("with smsupd's walk over the whole sweep", walked);
  row("the walks themselves", walks);
  std::printf("walk alone (sweeps idle): %ld ms, %ld ports found\n", walk_ms, first->ports);
  std::printf("sweep slowed by a walk over all of it: %+.1f%%\n", slowdown);
  std::printf("smsupd's MASTER walks every %ld ms (max(10 s, 50 x walk)): at most %.1f%% of sweeps meet a walk, "
              "%+.2f%% on average\n",
              interval_ms, 100.0 * share, share * slowdown);
  return 0;
}

}  // namespace
}  // namespace smsupd::testbed

int main(int argc, char** argv) {
  CLI::App app{"How much smsupd's subnet walk slows OpenSM's heavy sweep"};
  std::string size = "36x18x18";
  int sweeps = 5;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES or PODSxLEAVESxHOSTSxSPINESxCORES (default 36x18x18)");
  app.add_option("-n,--sweeps", sweeps, "sweeps per row (default 5)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  return smsupd::testbed::Run(size, sweeps);
}
