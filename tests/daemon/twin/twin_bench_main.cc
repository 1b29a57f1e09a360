// twin-bench: how long `smctl plan --twin` takes on a large simulated fat
// tree, phase by phase. Run by bench/twin_bench.sh.
//
// One smsupd (master) runs its OpenSM on the first management node; the
// config names every HCA, with one ipoib partition of 20 far hosts. Each
// trial runs `smctl --json plan --twin` of a change (those 20 hosts switch
// between full and limited; every other trial also asks for updn routing)
// and prints the daemon's phase timings (read topology, twin start, OpenSM
// up, read back, total), the wall time and what the twin found. Prints
// numbers; asserts nothing.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/atomic_file.h"
#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kUpDeadline(300000);
constexpr milliseconds kTwinDeadline(300000);

long Since(std::chrono::steady_clock::time_point start) {
  return static_cast<long>(
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start).count());
}

std::vector<std::string> FarHosts(const Topology& topology, int count) {
  std::vector<std::string> names;
  std::vector<const TopoNode*> cas = topology.Cas();
  for (auto it = cas.rbegin(); it != cas.rend() && static_cast<int>(names.size()) < count; ++it)
    names.push_back((*it)->name);
  return names;
}

// One twin plan; its total as the daemon measured it (-1: failed).
long Trial(ManagementNode& node, int trial) {
  const std::string path = node.dir() + "/candidate.yaml";
  if (!WriteFileAtomically(path, node.config().Yaml()).ok()) return -1;
  SmctlResult reply = node.Smctl({"--json", "plan", "--twin", path}, kTwinDeadline);
  json args = reply.Arguments();
  if (reply.exit_code != 0 || !args.is_object() || !args.contains("timings_ms")) {
    std::printf("trial %d: FAILED %s\n", trial, reply.Describe().c_str());
    return -1;
  }
  const json& t = args["timings_ms"];
  std::printf("trial %d: read topology %5ld ms, twin start %5ld ms, OpenSM up %5ld ms, read back %5ld ms, "
              "total %5ld ms (smctl wall %ld ms); %d P_Key tables change, %lld LFT entries move, %s -> %s, "
              "first sweep %s ms\n",
              trial, t.value("read_topology", -1L), t.value("twin_start", -1L), t.value("opensm_up", -1L),
              t.value("read_back", -1L), t.value("total", -1L), static_cast<long>(reply.elapsed.count()),
              args["pkey_tables"].value("changed", -1),
              static_cast<long long>(args["forwarding"].value("entries_moved", -1LL)),
              args["routing"].value("engine_asked", std::string("?")).c_str(),
              args["routing"].value("engine_used", std::string("?")).c_str(), args["opensm"]["first_sweep_ms"].dump().c_str());
  std::printf("         %d P_Key tables compared, %d switches compared", args["pkey_tables"].value("compared", -1),
              args["forwarding"].value("switches_compared", -1));
  for (const json& note : args.value("notes", json::array())) std::printf("; %s", note.get<std::string>().c_str());
  std::printf("\n");
  std::fflush(stdout);
  return t.value("total", -1L);
}

int Run(const std::string& size, int trials) {
  int leaves = 0, hosts = 0, spines = 0;
  if (std::sscanf(size.c_str(), "%dx%dx%d", &leaves, &hosts, &spines) != 3) return 2;
  Result<Topology> topology = MakeFatTree(leaves, hosts, spines);
  if (!topology) return std::fprintf(stderr, "%s\n", topology.error().message.c_str()), 1;
  FabricOptions options;
  options.name = "twin-bench";
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(*topology, options);
  if (!fabric) return std::fprintf(stderr, "%s\n", fabric.error().message.c_str()), 1;
  const Topology& topo = (*fabric)->topology();
  Result<std::unique_ptr<ManagementNode>> node =
      ManagementNode::Create(**fabric, EveryHcaConfig(topo, topo.management_nodes()[0], "master"));
  if (!node) return std::fprintf(stderr, "%s\n", node.error().message.c_str()), 1;
  SmsupdConfig& config = (*node)->config();
  std::vector<std::string> far = FarHosts(topo, 20);
  config.partitions.push_back({"p20", 0x0100, true, std::nullopt, {}});
  for (const std::string& host : far) config.Find("p20")->members.push_back(HostMember(host, "full"));
  std::printf("fabric %s: %zu HCAs, %zu switches; smsupd master on %s\n", size.c_str(), topo.Cas().size(),
              topo.Switches().size(), (*node)->node().c_str());
  auto start = std::chrono::steady_clock::now();
  if (Status started = (*node)->Start(); !started) return std::fprintf(stderr, "%s\n", started.message().c_str()), 1;
  if (Status master = (*node)->WaitForSmState("MASTER", kUpDeadline); !master)
    return std::fprintf(stderr, "%s\n", master.message().c_str()), 1;
  std::printf("smsupd start -> MASTER: %ld ms\n", Since(start));
  // The twin reads the live tables by LID: wait for the master's first sweep
  // to reach every HCA (ports Active, holding the master's SM LID).
  Result<uint16_t> sm_lid = WaitForCaLid((*fabric)->probe(), topo, (*node)->node(), kUpDeadline);
  if (!sm_lid) return std::fprintf(stderr, "%s\n", sm_lid.error().message.c_str()), 1;
  if (Status up = WaitForEveryCaSmLid((*fabric)->probe(), topo, *sm_lid, kUpDeadline); !up)
    return std::fprintf(stderr, "%s\n", up.message().c_str()), 1;
  std::printf("smsupd start -> every HCA Active with the master's SM LID: %ld ms\n", Since(start));
  std::vector<long> totals;
  for (int trial = 1; trial <= trials; ++trial) {
    config.Find("p20")->members.clear();
    for (const std::string& host : far) config.Find("p20")->members.push_back(HostMember(host, trial % 2 ? "limited" : "full"));
    if (trial % 2 == 0) config.opensm_options["routing_engine"] = "updn";
    else config.opensm_options.erase("routing_engine");
    totals.push_back(Trial(**node, trial));
  }
  const bool failed = std::count(totals.begin(), totals.end(), -1) > 0;
  std::sort(totals.begin(), totals.end());
  std::printf("twin plan total over %d trial(s): median %ld ms, max %ld ms%s\n", trials, totals[totals.size() / 2],
              totals.back(), failed ? " (FAILED TRIALS)" : "");
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace smsupd::testbed

int main(int argc, char** argv) {
  CLI::App app{"twin-bench: smctl plan --twin on a simulated fat tree"};
  std::string size = "36x18x18";
  int trials = 3;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES (default 36x18x18: 648 HCAs)");
  app.add_option("--trials", trials, "trials (default 3)")->check(CLI::Range(1, 100));
  CLI11_PARSE(app, argc, argv);
  return smsupd::testbed::Run(size, trials);
}
