// failover-bench: failover times on a generated fat tree, side by side in
// one run (bench/failover_bench.sh). For each row it runs N trials, each on
// a fresh fabric, and prints one line per trial, then a table with the
// median and max per row and the targets smsupd must meet, against the
// floor measured in the same run (two plain OpenSMs, a HANDOVER sent to the
// standby the instant the master is lost):
//   (a) kill -9: far HCA sees the new MASTER, median <= 1.2 x the floor's
//       median, every trial <= 2 x
//   (b) loss of the master node: shown beside its floor, no target (the
//       loss must first be detected; the floor is told at the instant)
//   (c) smctl failover --wait: far HCA sees the new MASTER, every trial
//       <= 2 x the floor's median for (a), and never a moment without MASTER
//   the master loss in `smctl events` on the standby   < 1 s
// and the median of each stage of smsupd's failover timeline (ms after the
// fault), which names where the time between the floor and smsupd goes.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "tests/daemon/failover/failover_bench_trials.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

struct Row {
  std::string name;
  long median_limit = -1;  // -1: no target on the median
  long max_limit = -1;     // -1: no target on every trial
  std::vector<long> values;
  int failures = 0;
};

long Median(std::vector<long> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

long Max(const std::vector<long>& v) { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); }

std::string Target(const Row& row) {
  std::string text;
  if (row.median_limit >= 0) text += "median<=" + std::to_string(row.median_limit);
  if (row.max_limit >= 0) text += std::string(text.empty() ? "" : " ") + "max<=" + std::to_string(row.max_limit);
  return text;
}

std::string Verdict(const Row& row) {
  if (row.median_limit < 0 && row.max_limit < 0) return "";
  if (row.values.empty() || row.failures) return "MISSED";
  bool met = (row.median_limit < 0 || Median(row.values) <= row.median_limit) &&
             (row.max_limit < 0 || Max(row.values) <= row.max_limit);
  return met ? "met" : "MISSED";
}

void PrintTable(const std::deque<Row>& rows, const std::string& fabric, int trials) {
  std::printf("\nfailover on fat tree %s, %d trial(s) per row, times in ms from the fault\n", fabric.c_str(), trials);
  std::printf("%-66s %8s %8s  %-22s %-7s %s\n", "row", "median", "max", "target", "", "trials");
  for (const Row& row : rows) {
    std::string trials_text;
    for (long v : row.values) trials_text += std::to_string(v) + " ";
    if (row.failures) trials_text += "(" + std::to_string(row.failures) + " failed)";
    std::printf("%-66s %8ld %8ld  %-22s %-7s %s\n", row.name.c_str(), Median(row.values), Max(row.values),
                Target(row).c_str(), Verdict(row).c_str(), trials_text.c_str());
  }
  std::fflush(stdout);
}

Row Named(std::string name) {
  Row row;
  row.name = std::move(name);
  return row;
}

struct Plan {
  Contender contender;
  Fault fault;
};

// The rows of one plan: the far-HCA time, smctl's own time for (c), and
// one row per timeline stage, added as the trials report them.
struct PlanRows {
  Plan plan{};
  Row* far = nullptr;
  Row* command = nullptr;
  Row* no_master = nullptr;  // (c): the monitor's longest stretch without MASTER
  Row* standby_again = nullptr;  // smsupd (a), (c): the old master STANDBY again
  Row* flip_back = nullptr;      // smsupd (a), (c): samples that showed the old master MASTER again
  Row* setup_takeovers = nullptr;  // smsupd: MASTER_LOST in the set-up
  Row* takeovers_after = nullptr;  // smsupd (a), (c): MASTER_LOST after the fault
  std::map<std::string, Row*> stages;
  std::vector<Row*> ordered;  // every row of the plan, in the order it was made
};

// (c), and (a) under smsupd: the old master's OpenSM starts again as a standby.
bool OldMasterReturns(const Plan& plan) {
  return plan.fault == Fault::kCommand || (plan.contender == Contender::kSmsupd && plan.fault == Fault::kKillOpenSm);
}

// `only`: the faults to run (kill, loss, command; empty: all). (c) is
// measured against the floor of (a), so that floor runs with it.
int Run(const Topology& topology, const std::string& size, int trials, bool skip_defaults,
        bool skip_tuned, bool keep, const std::set<std::string>& only, const std::string& flood,
        bool stages, int watch_after_s, const std::map<std::string, std::string>& master_opensm,
        const std::map<std::string, std::string>& standby_opensm) {
  auto wanted = [&](const char* fault) { return only.empty() || only.count(fault) > 0; };
  std::vector<Plan> plans;
  for (Fault fault : {Fault::kKillOpenSm, Fault::kNodeLoss}) {
    const bool kill = fault == Fault::kKillOpenSm;
    if (!wanted(kill ? "kill" : "loss")) {
      if (kill && wanted("command")) plans.push_back({Contender::kFloor, fault});
      continue;
    }
    if (!skip_defaults) plans.push_back({Contender::kOpenSmDefaults, fault});
    if (!skip_tuned) plans.push_back({Contender::kOpenSmTuned, fault});
    plans.push_back({Contender::kFloor, fault});
    plans.push_back({Contender::kSmsupd, fault});
  }
  if (wanted("command")) plans.push_back({Contender::kSmsupd, Fault::kCommand});

  std::deque<Row> rows;  // stable addresses
  std::deque<PlanRows> done;  // stable addresses too
  Row* loss_events = nullptr;
  TrialOptions options;
  options.keep_dir = keep;
  if (flood == "validate") options.validate_flood = CONTROL_FLOOD_PATH;
  options.stages = stages;
  options.watch_after = std::chrono::seconds(watch_after_s);
  options.master_opensm = master_opensm;
  options.standby_opensm = standby_opensm;
  // Every plan's rows first; then trial 1 of every plan, trial 2 of every
  // plan, ...: a machine that slows down or speeds up during a run weighs
  // on every row alike, not on whichever plan ran last (the floor's own
  // trials on 10,000 HCAs went from ~2.6 s to 3.4-4.3 s within one run).
  auto make_row = [&](PlanRows& p, const std::string& name) {
    Row* row = &rows.emplace_back(Named(name));
    p.ordered.push_back(row);
    return row;
  };
  for (const Plan& plan : plans) {
    const std::string base = std::string(FaultName(plan.fault)) + ": " + ContenderName(plan.contender);
    PlanRows& plan_rows = done.emplace_back();
    plan_rows.plan = plan;
    plan_rows.far = make_row(plan_rows, base + ", far HCA sees MASTER");
    if (plan.fault == Fault::kCommand) {
      plan_rows.command = make_row(plan_rows, base + ", smctl --wait returned");
      plan_rows.no_master = make_row(plan_rows, base + ", longest time without MASTER (100 ms reads)");
      plan_rows.no_master->max_limit = 0;
    }
    if (OldMasterReturns(plan)) {
      plan_rows.standby_again = make_row(plan_rows, base + ", old master STANDBY again");
      plan_rows.flip_back = make_row(plan_rows, base + ", old master MASTER again (100 ms samples)");
      plan_rows.flip_back->max_limit = 0;
    }
    if (plan.contender == Contender::kSmsupd) {
      plan_rows.setup_takeovers =
          make_row(plan_rows, base + ", takeovers in the set-up (MASTER_LOST)");
      plan_rows.setup_takeovers->max_limit = 0;
      if (plan.fault != Fault::kNodeLoss) {
        plan_rows.takeovers_after =
            make_row(plan_rows, base + ", takeovers after the fault (MASTER_LOST)");
        plan_rows.takeovers_after->max_limit = 0;
      }
    }
  }
  for (int trial = 1; trial <= trials; ++trial) {
    for (PlanRows& plan_rows : done) {
      const Plan& plan = plan_rows.plan;
      const std::string base = std::string(FaultName(plan.fault)) + ": " + ContenderName(plan.contender);
      const bool smsupd = plan.contender == Contender::kSmsupd;
      const bool old_master_returns = OldMasterReturns(plan);
      TrialResult r = RunTrial(topology, plan.contender, plan.fault, options);
      std::string stages_text;
      for (const auto& [stage, ms] : r.stages) stages_text += " " + stage + "=" + std::to_string(ms);
      std::string command_text;
      if (old_master_returns)
        command_text = " standby_again_ms=" + std::to_string(r.standby_again_ms) +
                       " flip_back_samples=" + std::to_string(r.flip_back_samples);
      if (smsupd)
        command_text += " setup_takeovers=" + std::to_string(r.setup_takeovers) +
                        " takeovers_after=" + std::to_string(r.takeovers_after);
      std::fprintf(stderr, "%s, trial %d: %s far_ms=%ld command_ms=%ld event_ms=%ld%s %s%s %s\n", base.c_str(), trial,
                   r.ok ? "ok" : "FAILED", r.far_ms, r.command_ms, r.event_ms, command_text.c_str(),
                   r.event_kind.c_str(), stages_text.c_str(), r.error.c_str());
      if (!r.ok) {
        ++plan_rows.far->failures;
        continue;
      }
      plan_rows.far->values.push_back(r.far_ms);
      if (plan_rows.command) plan_rows.command->values.push_back(r.command_ms);
      if (plan_rows.standby_again) plan_rows.standby_again->values.push_back(r.standby_again_ms);
      if (plan_rows.flip_back) plan_rows.flip_back->values.push_back(r.flip_back_samples);
      if (plan_rows.setup_takeovers) plan_rows.setup_takeovers->values.push_back(r.setup_takeovers);
      if (plan_rows.takeovers_after) plan_rows.takeovers_after->values.push_back(r.takeovers_after);
      if (plan_rows.no_master) {
        if (r.no_master_ms >= 0) plan_rows.no_master->values.push_back(r.no_master_ms);
        else ++plan_rows.no_master->failures;  // the monitor never saw a MASTER: nothing was measured
      }
      for (const auto& [stage, ms] : r.stages) {
        Row*& row = plan_rows.stages[stage];
        if (!row)
          row = make_row(plan_rows, "  " + std::string(FaultName(plan.fault)).substr(0, 3) + " timeline, " + stage);
        row->values.push_back(ms);
      }
      if (smsupd && plan.fault != Fault::kCommand) {
        if (!loss_events) {
          loss_events = &rows.emplace_back(Named("smsupd (a)+(b): master loss in the standby's smctl events"));
          loss_events->max_limit = 999;
        }
        if (r.event_ms >= 0) loss_events->values.push_back(r.event_ms);
        else ++loss_events->failures;
      }
    }
  }

  // The targets, from the floor measured in this run.
  std::map<Fault, long> floor;
  for (const PlanRows& p : done)
    if (p.plan.contender == Contender::kFloor && !p.far->values.empty()) floor[p.plan.fault] = Median(p.far->values);
  for (PlanRows& p : done) {
    // (b) is shown beside its floor, without a target: a lost node must be
    // detected (polls), and the floor is told at the instant of the loss.
    if (p.plan.contender != Contender::kSmsupd || p.plan.fault == Fault::kNodeLoss) continue;
    const Fault reference = Fault::kKillOpenSm;
    auto found = floor.find(reference);
    if (found == floor.end()) {
      p.far->median_limit = 0;  // no floor: nothing to compare with, the row cannot be met
      continue;
    }
    if (p.plan.fault != Fault::kCommand) p.far->median_limit = found->second * 12 / 10;
    p.far->max_limit = found->second * 2;
  }
  std::deque<Row> printed;  // each plan's rows together, in the plans' order
  for (const PlanRows& p : done)
    for (const Row* row : p.ordered) printed.push_back(*row);
  if (loss_events) printed.push_back(*loss_events);
  PrintTable(printed, size, trials);
  for (const auto& [who, given] : {std::pair{"first master", &master_opensm}, std::pair{"standby", &standby_opensm}})
    for (const auto& [key, value] : *given) std::printf("floor %s's OpenSM: %s %s\n", who, key.c_str(), value.c_str());
  bool all_ran = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.failures == 0; });
  return all_ran ? 0 : 1;
}

int RunLoad(const Topology& topology, const std::string& size, int seconds, bool keep) {
  TrialOptions options;
  options.keep_dir = keep;
  LoadResult load = MeasureLoad(topology, std::chrono::seconds(seconds), options);
  if (!load.ok) {
    std::fprintf(stderr, "load: FAILED %s\n", load.error.c_str());
    return 1;
  }
  std::printf("\nsmsupd's MAD load on fat tree %s, steady state (MASTER + STANDBY), %d s\n", size.c_str(), seconds);
  std::printf("%-10s %14s %22s\n", "node", "MADs sent/s", "of them requests/s");
  std::printf("%-10s %14.1f %22.1f\n", "master", load.master_mads_per_s, load.master_requests_per_s);
  std::printf("%-10s %14.1f %22.1f\n", "standby", load.standby_mads_per_s, load.standby_requests_per_s);
  std::printf("smctl reload --wait (a partition of every port) on the master: %ld ms, %s, %ld MADs\n",
              load.reload_ms, load.reload_verification.c_str(), load.reload_mads);
  std::fflush(stdout);
  return 0;
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
  int load_seconds = 0;
  std::set<std::string> only;
  std::string flood;
  bool stages = false;
  int watch_after_s = 0;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES (default 36x18x18: 648 HCAs; 72x36x36: 2,592) or PODSxLEAVESxHOSTSxSPINESxCORES (10x25x40x4x8: 10,000)");
  app.add_option("-n,--trials", trials, "trials per row (default 3)")->check(CLI::PositiveNumber);
  app.add_flag("--skip-defaults", skip_defaults, "skip the OpenSM-defaults rows (~60 s per trial)");
  app.add_flag("--skip-tuned", skip_tuned, "skip the tuned-OpenSM rows");
  app.add_flag("--keep", keep, "keep every trial's fabric directory (logs)");
  app.add_option("--only", only, "run only these faults: kill, loss, command (repeatable; command brings the kill floor)")
      ->check(CLI::IsMember({"kill", "loss", "command"}));
  app.add_option("--flood", flood,
                 "validate: in every smsupd trial, 128 connections of group members on each node ask "
                 "`validate` back to back (10,000 more hosts in both configs) from before the fault on")
      ->check(CLI::IsMember({"validate"}));
  app.add_flag("--stages", stages,
               "the new master's OpenSM logs at log_flags 0x07 (smsupd's too); its first sweep's stages "
               "and, for the floor, the far HCA's first PathRecord are rows of their own");
  app.add_option("--watch-after", watch_after_s,
                 "smsupd (a) and (c): end each trial no sooner than this many seconds after the "
                 "fault, so that the takeovers-after row covers the new master's later sweeps "
                 "(default 0)")
      ->check(CLI::NonNegativeNumber);
  std::vector<std::string> master_opensm, standby_opensm;
  app.add_option("--master-opensm", master_opensm,
                 "KEY=VALUE: an opensm.conf option of the floor's first master (repeatable)");
  app.add_option("--standby-opensm", standby_opensm,
                 "KEY=VALUE: an opensm.conf option of the floor's standby, the new master (repeatable)");
  app.add_option("--load", load_seconds,
                 "instead of failovers: the MADs/s each smsupd sends over this many seconds in the steady state, "
                 "then the time of one reload --wait adding a partition of every port")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  smsupd::Result<smsupd::testbed::Topology> topology = smsupd::testbed::MakeFatTreeFromSpec(size);
  if (!topology) {
    std::cerr << topology.error().message << "\n";
    return 2;
  }
  if (load_seconds > 0) return smsupd::testbed::RunLoad(*topology, size, load_seconds, keep);
  std::map<std::string, std::string> master_options, standby_options;
  for (auto [given, into] : {std::pair{&master_opensm, &master_options}, std::pair{&standby_opensm, &standby_options}})
    for (const std::string& option : *given) {
      // One opensm.conf line each: a key of OpenSM's characters, a value
      // without a line break.
      const std::size_t equals = option.find('=');
      const bool key_ok = equals != 0 && equals != std::string::npos &&
                          std::all_of(option.begin(), option.begin() + static_cast<long>(equals), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                   c == '_';
                          });
      if (!key_ok || option.find_first_of("\r\n") != std::string::npos) {
        std::cerr << "an OpenSM option is KEY=VALUE on one line, KEY of letters, digits and '_'\n";
        return 2;
      }
      (*into)[option.substr(0, equals)] = option.substr(equals + 1);
    }
  return smsupd::testbed::Run(*topology, size, trials, skip_defaults, skip_tuned, keep, only, flood,
                              stages, watch_after_s, master_options, standby_options);
}
