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
//
// With --readout (bench/ports_bench.sh), a `smctl ports` read-out instead of
// the walk (fabric_probe `readout`: the walk, then PortCounters of every
// linked port paced with the daemon's own chunk and pause), three rows
// interleaved: alone; with a read-out started at the SIGHUP (its walk
// overlaps the sweep); with the sweep started once the read-out's walk is
// over (the sweep overlaps the paced counter reads only). Then the read-out
// alone (sweeps idle), N times: its time, MADs and MAD rates.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
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

// fabric_probe's `command` on `node`, to its end: its JSON answer.
Result<Json> ProbeOn(SimulatedFabric& fabric, const std::string& node, const std::string& command,
                     const std::string& label) {
  auto process = fabric.RunOnNode(node, {FABRIC_PROBE_PATH, "--deadline-ms", "120000", command}, label);
  if (!process) return Error{process.error().message};
  auto exited = (*process)->process->Wait(kSweepDeadline);
  if (!exited) return Error{"fabric_probe " + command + " did not finish"};
  std::ifstream output((*process)->output_path);
  for (std::string line; std::getline(output, line);) {
    if (line.empty() || line[0] != '{') continue;  // umad2sim's chatter
    Json answer = Json::parse(line, nullptr, false);
    if (answer.is_discarded() || !answer.value("ok", false)) return Error{command + " failed: " + line};
    return answer;
  }
  return Error{"no answer from fabric_probe " + command};
}

struct Walk {
  long ms = 0;
  long ports = 0;  // one per CA port, one per switch (port 0)
};

Result<Walk> WalkOn(SimulatedFabric& fabric, const std::string& node, int run) {
  Result<Json> answer = ProbeOn(fabric, node, "discover", "walk-" + std::to_string(run));
  if (!answer) return answer.error();
  return Walk{answer->value("elapsed_us", 0L) / 1000, static_cast<long>(answer->value("ports", Json::array()).size())};
}

// One `ports` read-out, as fabric_probe `readout` answers it.
struct Readout {
  double walk_ms = 0, counters_ms = 0, total_ms = 0, mad_rate = 0, perf_rate = 0;
  long smps = 0, perf_mads = 0, perf_errors = 0, ports = 0, unread = 0;
};

Result<Readout> ReadoutOn(SimulatedFabric& fabric, const std::string& node, const std::string& label) {
  Result<Json> a = ProbeOn(fabric, node, "readout", label);
  if (!a) return a.error();
  Readout r;
  r.walk_ms = a->value("walk_ms", 0.0);
  r.counters_ms = a->value("counters_ms", 0.0);
  r.total_ms = a->value("total_ms", 0.0);
  r.mad_rate = a->value("mad_rate", 0.0);
  r.perf_rate = a->value("perf_rate", 0.0);
  r.smps = a->value("smps", 0L);
  r.perf_mads = a->value("perf_mads", 0L);
  r.perf_errors = a->value("perf_errors", 0L);
  r.ports = a->value("ports", 0L);
  r.unread = a->value("unread", 0L);
  return r;
}

// A generated fat tree with one OpenSM master that has finished its first
// sweep.
struct Bed {
  std::unique_ptr<SimulatedFabric> fabric;
  NodeProcess* sm = nullptr;
  std::string sm_node;
  std::string log_path;
};

Result<Bed> StartBed(const std::string& size) {
  Result<Topology> topology = MakeFatTreeFromSpec(size);
  if (!topology) return topology.error();
  FabricOptions options;
  options.name = "sweep-impact";
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(*topology, options);
  if (!fabric) return Error{"fabric: " + fabric.error().message};
  Bed bed;
  bed.fabric = std::move(*fabric);
  bed.sm_node = topology->management_nodes()[0];
  OpenSmSpec spec = OpenSmOn(bed.sm_node, 15, {{"force_log_flush", "TRUE"}});
  Result<NodeProcess*> sm = StartOpenSm(*bed.fabric, spec);
  if (!sm) return Error{"opensm: " + sm.error().message};
  bed.sm = *sm;
  bed.log_path = bed.sm->dir + "/opensm.log";
  if (Status up = WaitSubnetUps(bed.log_path, 1); !up) return Error{"no first SUBNET UP: " + up.message()};
  return bed;
}

// SIGHUP -> the next SUBNET UP, in ms; `beside` (if any) runs on its own
// thread, started `lead` before the SIGHUP, and is waited for.
Result<long> TimeSweep(Bed& bed, const std::function<void()>& beside, milliseconds lead) {
  const int before = SubnetUps(bed.log_path);
  std::thread side;
  if (beside) side = std::thread(beside);
  if (lead.count() > 0) std::this_thread::sleep_for(lead);  // a bench: the lead is the measurement's setup
  const Clock::time_point start = Clock::now();
  Status hup = bed.sm->process->Signal(SIGHUP);
  Status up = hup ? WaitSubnetUps(bed.log_path, before + 1) : hup;
  const long ms = Since(start);
  if (side.joinable()) side.join();
  if (!up) return Error{up.message()};
  return ms;
}

void Row(const char* name, const std::vector<long>& v) {
  std::string all;
  for (long x : v) all += std::to_string(x) + " ";
  const long min = v.empty() ? -1 : *std::min_element(v.begin(), v.end());
  std::printf("%-46s %7ld %7ld %7ld  %s\n", name, min, Median(v), Max(v), all.c_str());
}

double MedianOf(const std::vector<Readout>& v, double Readout::*field) {
  std::vector<long> x;
  for (const Readout& r : v) x.push_back(static_cast<long>(r.*field * 10));  // 0.1 resolution
  return Median(x) / 10.0;
}

// Sweeps alone, with a read-out from the SIGHUP, and with the paced counter
// reads only; then the read-out alone.
int RunReadout(const std::string& size, int sweeps) {
  Result<Bed> bed = StartBed(size);
  if (!bed) {
    std::cerr << bed.error().message << "\n";
    return 1;
  }
  std::vector<Readout> idle;
  for (int i = 0; i < std::max(1, sweeps); ++i) {  // the first also warms the fabric up
    Result<Readout> r = ReadoutOn(*bed->fabric, bed->sm_node, "readout-idle-" + std::to_string(i));
    if (!r) {
      std::cerr << r.error().message << "\n";
      return 1;
    }
    idle.push_back(*r);
    std::fprintf(stderr, "read-out alone %d: %.0f ms (walk %.0f ms, counters %.0f ms)\n", i + 1, r->total_ms,
                 r->walk_ms, r->counters_ms);
  }
  // The counter phase starts once the walk is over: its slowest idle time,
  // and a margin, before the SIGHUP.
  double walk_max = 0;
  for (const Readout& r : idle) walk_max = std::max(walk_max, r.walk_ms);
  const milliseconds lead(static_cast<long>(walk_max * 1.5) + 100);

  std::vector<long> alone, at_hup, counters_only;
  std::vector<Readout> beside;
  for (int i = 0; i < 3 * sweeps; ++i) {
    const int kind = i % 3;  // interleaved: drift in the machine's load hits all rows alike
    std::optional<Result<Readout>> r;
    std::function<void()> run;
    if (kind != 0) run = [&] { r = ReadoutOn(*bed->fabric, bed->sm_node, "readout-" + std::to_string(i)); };
    Result<long> ms = TimeSweep(*bed, run, kind == 2 ? lead : milliseconds(0));
    if (!ms || (r && !*r)) {
      std::cerr << "sweep " << i << ": " << (!ms ? ms.error().message : (*r).error().message) << "\n";
      return 1;
    }
    (kind == 0 ? alone : kind == 1 ? at_hup : counters_only).push_back(*ms);
    if (r) beside.push_back(**r);
    static const char* kNames[] = {"alone", "read-out from the SIGHUP", "counter reads only"};
    std::fprintf(stderr, "sweep %d (%s): %ld ms%s\n", i / 3 + 1, kNames[kind], *ms,
                 r ? (" (read-out " + std::to_string(static_cast<long>((**r).total_ms)) + " ms)").c_str() : "");
  }

  const double base = std::max(1L, Median(alone));
  const double slow_hup = 100.0 * (Median(at_hup) - Median(alone)) / base;
  const double slow_counters = 100.0 * (Median(counters_only) - Median(alone)) / base;
  std::printf("\nOpenSM heavy sweep (SIGHUP -> SUBNET UP) on fat tree %s, %d sweeps each, ms\n", size.c_str(),
              sweeps);
  std::printf("%-46s %7s %7s %7s  %s\n", "row", "min", "median", "max", "sweeps");
  Row("alone", alone);
  Row("with a read-out started at the SIGHUP", at_hup);
  Row("with the paced counter reads only", counters_only);
  std::printf("sweep slowed by a read-out from the SIGHUP (walk over the sweep): %+.1f%%\n", slow_hup);
  std::printf("sweep slowed by the paced counter reads: %+.1f%%\n", slow_counters);

  auto table = [](const char* title, const std::vector<Readout>& v) {
    std::printf("\n%s (%zu, medians)\n", title, v.size());
    std::printf("  total %.0f ms = walk %.0f ms + counters %.0f ms\n", MedianOf(v, &Readout::total_ms),
                MedianOf(v, &Readout::walk_ms), MedianOf(v, &Readout::counters_ms));
    long errors = 0, unread = 0;
    for (const Readout& r : v) errors += r.perf_errors, unread += r.unread;
    const Readout& last = v.back();
    std::printf("  MADs %ld = %ld SMPs + %ld PerfMgt (%ld ports; %ld PerfMgt errors, %ld unread in all)\n",
                last.smps + last.perf_mads, last.smps, last.perf_mads, last.ports, errors, unread);
    std::printf("  MAD rate %.0f /s over the read-out; PerfMgt %.0f /s over the counter phase\n",
                MedianOf(v, &Readout::mad_rate), MedianOf(v, &Readout::perf_rate));
  };
  table("read-out alone, sweeps idle", idle);
  if (!beside.empty()) table("read-out beside a sweep", beside);
  // smsupd reads every PortsMonitor::kInterval (60 s): the share of heavy
  // sweeps that can meet a read-out's walk, and its counter reads, and what
  // that makes on average (a speed-up measured in noise counts as none).
  const double walk_share = std::min(1.0, (MedianOf(idle, &Readout::walk_ms) + base) / 60000.0);
  const double counters_share = std::min(1.0, MedianOf(idle, &Readout::counters_ms) / 60000.0);
  const double average = walk_share * std::max(0.0, slow_hup) + counters_share * std::max(0.0, slow_counters);
  std::printf("\nsmsupd reads every 60 s: %.1f%% of sweeps can meet a read-out's walk, %.1f%% its counter reads; "
              "%+.2f%% on average\n",
              100.0 * walk_share, 100.0 * counters_share, average);
  return 0;
}

int Run(const std::string& size, int sweeps) {
  Result<Bed> started = StartBed(size);
  if (!started) {
    std::cerr << started.error().message << "\n";
    return 1;
  }
  Bed& bed = *started;
  const std::string sm_node = bed.sm_node;
  const std::string log_path = bed.log_path;
  Result<Walk> first = WalkOn(*bed.fabric, sm_node, 0);
  if (!first) {
    std::cerr << first.error().message << "\n";
    return 1;
  }

  std::vector<long> alone, walked, walks;
  for (int i = 0; i < 2 * sweeps; ++i) {
    const bool with_walk = i % 2 == 1;  // interleaved: drift in the machine's load hits both alike
    const int before = SubnetUps(log_path);
    const Clock::time_point start = Clock::now();
    if (Status hup = bed.sm->process->Signal(SIGHUP); !hup) {
      std::cerr << "SIGHUP: " << hup.message() << "\n";
      return 1;
    }
    std::optional<Result<Walk>> walk;
    std::thread walker;
    if (with_walk) walker = std::thread([&] { walk = WalkOn(*bed.fabric, sm_node, i); });
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
  CLI::App app{"How much smsupd's subnet walk (or a `ports` read-out) slows OpenSM's heavy sweep"};
  std::string size = "36x18x18";
  int sweeps = 5;
  bool readout = false;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES or PODSxLEAVESxHOSTSxSPINESxCORES (default 36x18x18)");
  app.add_option("-n,--sweeps", sweeps, "sweeps per row (default 5)")->check(CLI::PositiveNumber);
  app.add_flag("--readout", readout, "a `smctl ports` read-out beside the sweeps instead of the walk");
  CLI11_PARSE(app, argc, argv);
  if (auto spec = smsupd::testbed::MakeFatTreeFromSpec(size); !spec) {
    std::cerr << spec.error().message << "\n";
    return 2;
  }
  return readout ? smsupd::testbed::RunReadout(size, sweeps) : smsupd::testbed::Run(size, sweeps);
}
