// failover-bench: failover times on a generated fat tree, side by side in
// one run (bench/failover_bench.sh). For each row it runs N trials, each on
// a fresh fabric, and prints one line per trial, then a table with the
// median and max per row and the targets smsupd must meet:
//   (a) kill -9 of the master OpenSM   far HCA sees a MASTER   smsupd < 1.5 s median
//   (b) loss of the master node        far HCA sees a MASTER   smsupd < 2 s median
//   (c) smctl failover --wait          returns; far HCA sees   < 1.5 s
//   the master loss in `smctl events` on the standby            < 1 s
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tests/daemon/failover/failover_bench_trials.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

struct Row {
  std::string name;
  std::string target;  // "" for reference rows
  long target_ms = 0;  // compared with the median (with the max for "max" targets)
  bool target_on_max = false;
  std::vector<long> values;
  int failures = 0;
};

long Median(std::vector<long> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Verdict(const Row& row) {
  if (row.target.empty() || row.values.empty()) return "";
  long measured = row.target_on_max ? *std::max_element(row.values.begin(), row.values.end()) : Median(row.values);
  return measured < row.target_ms ? "met" : "MISSED";
}

void PrintTable(const std::vector<Row>& rows, const std::string& fabric, int trials) {
  std::printf("\nfailover on fat tree %s, %d trial(s) per row, times in ms from the fault\n", fabric.c_str(), trials);
  std::printf("%-62s %8s %8s  %-16s %-7s %s\n", "row", "median", "max", "target", "", "trials");
  for (const Row& row : rows) {
    std::string trials_text;
    for (long v : row.values) trials_text += std::to_string(v) + " ";
    if (row.failures) trials_text += "(" + std::to_string(row.failures) + " failed)";
    long max = row.values.empty() ? -1 : *std::max_element(row.values.begin(), row.values.end());
    std::printf("%-62s %8ld %8ld  %-16s %-7s %s\n", row.name.c_str(), Median(row.values), max, row.target.c_str(),
                Verdict(row).c_str(), trials_text.c_str());
  }
  std::fflush(stdout);
}

struct Plan {
  Contender contender;
  Fault fault;
};

Row& AddRow(std::vector<Row>& rows, const std::string& name, const std::string& target = "", long target_ms = 0,
            bool on_max = false) {
  rows.push_back(Row{name, target, target_ms, on_max, {}, 0});
  return rows.back();
}

int Run(const Topology& topology, const std::string& size, int trials, bool skip_defaults, bool skip_tuned,
        bool keep) {
  std::vector<Plan> plans;
  for (Fault fault : {Fault::kKillOpenSm, Fault::kNodeLoss}) {
    if (!skip_defaults) plans.push_back({Contender::kOpenSmDefaults, fault});
    if (!skip_tuned) plans.push_back({Contender::kOpenSmTuned, fault});
    plans.push_back({Contender::kSmsupd, fault});
  }
  plans.push_back({Contender::kSmsupd, Fault::kCommand});

  std::vector<Row> rows;
  rows.reserve(plans.size() * 2 + 2);
  Row* loss_events = nullptr;
  TrialOptions options;
  options.keep_dir = keep;
  for (const Plan& plan : plans) {
    std::string base = std::string(FaultName(plan.fault)) + ": " + ContenderName(plan.contender);
    bool smsupd = plan.contender == Contender::kSmsupd;
    std::string target = !smsupd ? "" : plan.fault == Fault::kNodeLoss ? "< 2000 median" : "< 1500 median";
    Row& far = AddRow(rows, base + ", far HCA sees MASTER", target, plan.fault == Fault::kNodeLoss ? 2000 : 1500,
                      false);
    Row* command = plan.fault == Fault::kCommand ? &AddRow(rows, base + ", smctl --wait returned", "< 1500 max", 1500, true)
                                                 : nullptr;
    for (int trial = 1; trial <= trials; ++trial) {
      TrialResult r = RunTrial(topology, plan.contender, plan.fault, options);
      std::fprintf(stderr, "%s, trial %d: %s far_ms=%ld command_ms=%ld event_ms=%ld %s %s\n", base.c_str(), trial,
                   r.ok ? "ok" : "FAILED", r.far_ms, r.command_ms, r.event_ms, r.event_kind.c_str(), r.error.c_str());
      if (!r.ok) {
        ++far.failures;
        continue;
      }
      far.values.push_back(r.far_ms);
      if (command) command->values.push_back(r.command_ms);
      if (smsupd && plan.fault != Fault::kCommand) {
        if (!loss_events) loss_events = &AddRow(rows, "smsupd (a)+(b): master loss in the standby's smctl events",
                                                "< 1000 max", 1000, true);
        if (r.event_ms >= 0) loss_events->values.push_back(r.event_ms);
        else ++loss_events->failures;
      }
    }
  }
  PrintTable(rows, size, trials);
  bool all_ran = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.failures == 0; });
  return all_ran ? 0 : 1;
}

}  // namespace
}  // namespace smsupd::testbed

int main(int argc, char** argv) {
  CLI::App app{"Times failover on a simulated fat tree: plain OpenSM against smsupd"};
  std::string size = "36x18x18";
  int trials = 3;
  bool skip_defaults = false;
  bool skip_tuned = false;
  bool keep = false;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES (default 36x18x18: 648 HCAs; 72x36x36: 2,592) or PODSxLEAVESxHOSTSxSPINESxCORES (10x25x40x4x8: 10,000)");
  app.add_option("-n,--trials", trials, "trials per row (default 3)")->check(CLI::PositiveNumber);
  app.add_flag("--skip-defaults", skip_defaults, "skip the OpenSM-defaults rows (~60 s per trial)");
  app.add_flag("--skip-tuned", skip_tuned, "skip the tuned-OpenSM rows");
  app.add_flag("--keep", keep, "keep every trial's fabric directory (logs)");
  CLI11_PARSE(app, argc, argv);
  smsupd::Result<smsupd::testbed::Topology> topology = smsupd::testbed::MakeFatTreeFromSpec(size);
  if (!topology) {
    std::cerr << topology.error().message << "\n";
    return 2;
  }
  return smsupd::testbed::Run(*topology, size, trials, skip_defaults, skip_tuned, keep);
}
