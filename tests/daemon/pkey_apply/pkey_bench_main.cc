// pkey-bench: how long the real smsupd takes from `smctl reload` to
// "verified" on a large simulated fat tree. Run by bench/pkey_bench.sh.
//
// One smsupd (master) runs its OpenSM on the first management node; the
// config names every HCA. Each trial applies two changes with
// `smctl --json reload --wait` and measures its wall time:
//   every-port  the partition `everyone` (ALL, limited) moves to a new P_Key:
//               every end port's table changes (old entry out, new one in);
//   20-hosts    the 20 members of partition `p20` (the far end of the
//               fabric) switch between full and limited.
// After each one the test bed's probe (an independent MAD reader on the far
// HCA) reads the far port's table, then walks the whole fabric and compares
// every port with the product rule. Prints numbers; asserts nothing.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "config/pkey_tables.h"
#include "tests/daemon/pkey_apply/expected_tables.h"
#include "tests/testbed/fabric_pkey_tables.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kUpDeadline(300000);
constexpr int kReloadTimeoutS = 60;
constexpr milliseconds kReloadSmctlDeadline(120000);

struct Bench {
  SimulatedFabric& fabric;
  ManagementNode& node;
  std::string far_host;   // the probe's node, a member of p20
  std::string far_route;  // directed route from the probe: "dr:0"
};

long Since(Clock::time_point start) {
  return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - start).count());
}

// The 20 HCAs at the far end of the fabric (the probe's node last).
std::vector<std::string> FarHosts(const Topology& topology, int count) {
  std::vector<std::string> names;
  std::vector<const TopoNode*> cas = topology.Cas();
  for (auto it = cas.rbegin(); it != cas.rend() && static_cast<int>(names.size()) < count; ++it)
    names.push_back((*it)->name);
  return names;
}

void SetP20(SmsupdConfig& config, const std::vector<std::string>& hosts, const std::string& membership) {
  PartitionSpec* p20 = config.Find("p20");
  p20->members.clear();
  for (const std::string& host : hosts) p20->members.push_back(HostMember(host, membership));
}

// The far port's table (one SMP) against what the config file implies.
std::string CheckFarPort(Bench& bench, const config::Config& config) {
  Result<PKeyEntries> actual = ReadPortPKeys(bench.fabric.probe(), bench.far_route, 1);
  if (!actual) return "far port: " + actual.error().message;
  Guid far = bench.node.config().hosts[bench.far_host];
  auto expected = config::ExpectedPKeyEntries(config, {{far, config::PortKind::kCa, false}});
  if (*actual == expected[far]) return "far port " + bench.far_host + " " + PKeyEntriesText(*actual) + " ok";
  return "far port " + bench.far_host + " MISMATCH: holds " + PKeyEntriesText(*actual) + ", expected " +
         PKeyEntriesText(expected[far]);
}

// Looks for a key (in any object, at any depth) whose name contains `part`
// and whose value is a number: for timings the daemon may report.
void CollectNumbers(const json& value, const std::string& part, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out) {
  if (!value.is_object()) return;
  for (const auto& [key, item] : value.items()) {
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (item.is_number() && key.find(part) != std::string::npos) out.emplace_back(path, item.get<double>());
    CollectNumbers(item, part, path, out);
  }
}

// Applies the node's config, prints one line, returns the wall time (-1: failed).
long Trial(Bench& bench, const std::string& label, int trial) {
  if (Status written = bench.node.WriteConfig(); !written) return -1;
  SmctlResult reply = bench.node.Smctl({"--json", "reload", "--wait", "--timeout", std::to_string(kReloadTimeoutS)},
                                       kReloadSmctlDeadline);
  json args = reply.Arguments();
  std::string state = reply.VerificationState();
  json whole = reply.Json();
  std::string text = whole.is_object() ? whole.value("text", "") : "";
  std::printf("%-11s trial %d: %6ld ms  exit %d, %s", label.c_str(), trial, static_cast<long>(reply.elapsed.count()),
              reply.exit_code, text.c_str());
  std::vector<std::pair<std::string, double>> timings;
  CollectNumbers(args, "ms", "", timings);
  for (const auto& [name, value] : timings) std::printf("; daemon %s=%.0f", name.c_str(), value);
  std::printf("\n");
  Result<config::Config> config = LoadConfig(bench.node.config_path());
  if (!config) return -1;
  std::printf("            probe: %s", CheckFarPort(bench, *config).c_str());
  auto walk_start = Clock::now();
  Result<FabricPKeyTables> tables = ReadFabricPKeyTables(bench.fabric.probe());
  std::string mismatches = tables ? DescribeMismatches(*tables, *config, bench.node.port_guid(), 3)
                                  : tables.error().message + "\n";
  std::printf("; full walk (%ld ms): %s", Since(walk_start),
              mismatches.empty() ? (std::to_string(tables->entries.size()) + " ports as configured\n").c_str()
                                 : ("\n" + mismatches).c_str());
  std::fflush(stdout);
  if (reply.exit_code != 0 || state != "verified") {
    std::printf("            FAILED: %s\n", reply.Describe().c_str());
    return -1;
  }
  return static_cast<long>(reply.elapsed.count());
}

void Summarise(const std::string& label, std::vector<long> times, long target_ms,
               const char* what = "reload->verified") {
  bool failed = std::count(times.begin(), times.end(), -1) > 0 || times.empty();
  std::sort(times.begin(), times.end());
  long median = times.empty() ? -1 : times[times.size() / 2];
  long max = times.empty() ? -1 : times.back();
  std::printf("%-11s %s over %zu trial(s): median %ld ms, max %ld ms (target < %ld ms): %s\n",
              label.c_str(), what, times.size(), median, max, target_ms,
              failed ? "FAILED TRIALS" : (max < target_ms ? "met" : "MISSED"));
}

// `smctl why` between the two far hosts of p20: the first request walks the
// subnet (the daemon shares a walk for 30 s), the others read only the two
// ports' P_Key tables. Wall time, smctl start to exit.
void TimeWhy(Bench& bench, const std::string& a, const std::string& b, int trials) {
  std::vector<long> warm;
  for (int trial = 0; trial <= trials; ++trial) {
    SmctlResult reply = bench.node.Smctl({"--json", "why", a, b}, kReloadSmctlDeadline);
    if (reply.exit_code != 0 && reply.exit_code != 1) warm.push_back(-1);
    const bool answered = reply.exit_code == 0 || reply.exit_code == 1;
    std::printf("why %s %s %s: %6ld ms  exit %d, %s\n", a.c_str(), b.c_str(), trial == 0 ? "(walk)" : "(cached)",
                static_cast<long>(reply.elapsed.count()), reply.exit_code,
                answered ? reply.Json().value("text", std::string()).c_str() : reply.Describe().c_str());
    if (trial > 0) warm.push_back(static_cast<long>(reply.elapsed.count()));
  }
  if (!warm.empty()) Summarise("why", warm, 1000, "answer (cached walk)");
}

int Run(const std::string& size, int trials) {
  int leaves = 0, hosts = 0, spines = 0;
  if (std::sscanf(size.c_str(), "%dx%dx%d", &leaves, &hosts, &spines) != 3) return 2;
  Result<Topology> topology = MakeFatTree(leaves, hosts, spines);
  if (!topology) return std::fprintf(stderr, "%s\n", topology.error().message.c_str()), 1;
  FabricOptions options;
  options.name = "pkey-bench";
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(*topology, options);
  if (!fabric) return std::fprintf(stderr, "%s\n", fabric.error().message.c_str()), 1;
  const Topology& topo = (*fabric)->topology();
  Result<std::unique_ptr<ManagementNode>> node =
      ManagementNode::Create(**fabric, EveryHcaConfig(topo, topo.management_nodes()[0], "master"));
  if (!node) return std::fprintf(stderr, "%s\n", node.error().message.c_str()), 1;
  SmsupdConfig& config = (*node)->config();
  std::vector<std::string> far = FarHosts(topo, 20);
  config.partitions.push_back({"everyone", 0x0200, false, std::nullopt, {PortsMember("ALL", "limited")}});
  config.partitions.push_back({"p20", 0x0100, true, std::nullopt, {}});
  SetP20(config, far, "full");
  std::printf("fabric %s: %zu HCAs, %zu switches; smsupd master on %s; p20 = %s..%s; probe on %s\n", size.c_str(),
              topo.Cas().size(), topo.Switches().size(), (*node)->node().c_str(), far.back().c_str(),
              far.front().c_str(), topo.FarCa().name.c_str());
  auto start = Clock::now();
  if (Status started = (*node)->Start(); !started) return std::fprintf(stderr, "%s\n", started.message().c_str()), 1;
  if (Status master = (*node)->WaitForSmState("MASTER", kUpDeadline); !master)
    return std::fprintf(stderr, "%s\n", master.message().c_str()), 1;
  std::printf("smsupd start -> MASTER: %ld ms\n", Since(start));
  Bench bench{**fabric, **node, topo.FarCa().name, "dr:0"};
  std::vector<long> every_port, twenty;
  for (int trial = 1; trial <= trials; ++trial) {
    config.Find("everyone")->pkey = static_cast<std::uint16_t>(0x0200 + trial);
    every_port.push_back(Trial(bench, "every-port", trial));
    SetP20(config, far, trial % 2 ? "limited" : "full");
    twenty.push_back(Trial(bench, "20-hosts", trial));
  }
  Summarise("every-port", every_port, 5000);
  Summarise("20-hosts", twenty, 3000);
  TimeWhy(bench, far.front(), far.back(), trials);
  return 0;
}

}  // namespace
}  // namespace smsupd::testbed::pkey

int main(int argc, char** argv) {
  CLI::App app{"pkey-bench: smctl reload -> verified on a simulated fat tree"};
  std::string size = "36x18x18";
  int trials = 3;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES (default 36x18x18: 648 HCAs)");
  app.add_option("--trials", trials, "trials of each change (default 3)")->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  return smsupd::testbed::pkey::Run(size, trials);
}
