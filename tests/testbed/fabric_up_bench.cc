// testbed-fabric-up: how long a generated fabric takes to come up under a
// real OpenSM. Run by bench/fabric_up.sh. For each run (a fresh ibsim):
//   far_ms  OpenSM start -> the far HCA's port is Active with the master's SM LID
//           (one DR PortInfo every 10 ms);
//   all_ms  OpenSM start -> a full walk finds every HCA Active with that SM LID
//           (granularity: one walk, printed as walk_ms).
#include <cstdio>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/simulated_fabric.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kDeadline(300000);

long Since(Clock::time_point start) {
  return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - start).count());
}

Result<std::string> RouteTo(const std::vector<WalkedPort>& walk, Guid port_guid) {
  for (const WalkedPort& port : walk) {
    if (port.node.port_guid == port_guid) return port.route;
  }
  return Error{"node not reached by the walk"};
}

// The far HCA's port: Active and pointing at an SM (0 until then).
uint16_t FarSmLid(FabricProbe& probe, const std::string& route) {
  Result<nlohmann::json> port = probe.Call("portinfo " + route + " 1", milliseconds(5000));
  if (!port || port->at("state") != 4) return 0;
  return port->at("sm_lid");
}

Status RunOnce(const Topology& topology, int run) {
  const Clock::time_point fabric_start = Clock::now();
  FabricOptions options;
  options.name = "bench";
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(topology, options);
  if (!fabric) return Error{fabric.error().message};
  FabricProbe& probe = (*fabric)->probe();
  const long ibsim_ms = Since(fabric_start);
  const Clock::time_point walk_start = Clock::now();
  Result<std::vector<WalkedPort>> walk = probe.Discover();
  if (!walk) return Error{walk.error().message};
  const long walk_ms = Since(walk_start);
  Result<std::string> far_route = RouteTo(*walk, topology.FarCa().PortGuid(1));
  if (!far_route) return Error{far_route.error().message};

  const Clock::time_point sm_start = Clock::now();
  Result<NodeProcess*> sm = StartOpenSm(**fabric, OpenSmOn(topology.management_nodes()[0], 15));
  if (!sm) return Error{sm.error().message};
  uint16_t sm_lid = 0;
  Status far = WaitFor("the far HCA to see an SM", [&] { return (sm_lid = FarSmLid(probe, *far_route)) != 0; },
                       kDeadline, milliseconds(10));
  if (!far) return far;
  const long far_ms = Since(sm_start);
  if (Status all = WaitForEveryCaSmLid(probe, topology, sm_lid, kDeadline); !all) return all;
  const long all_ms = Since(sm_start);
  std::printf("run %d: hcas=%zu switches=%zu ibsim_ready_ms=%ld walk_ms=%ld far_ms=%ld all_ms=%ld sm_lid=%u\n", run,
              topology.Cas().size(), topology.Switches().size(), ibsim_ms, walk_ms, far_ms, all_ms, sm_lid);
  std::fflush(stdout);
  return Status::Ok();
}

}  // namespace
}  // namespace smsupd::testbed

int main(int argc, char** argv) {
  CLI::App app{"Times a generated fabric coming up under OpenSM"};
  std::string size = "36x18x18";
  int runs = 3;
  app.add_option("--fat-tree", size, "LEAVESxHOSTSxSPINES");
  app.add_option("--runs", runs, "fresh fabrics to time");
  CLI11_PARSE(app, argc, argv);
  int leaves = 0, hosts = 0, spines = 0;
  if (std::sscanf(size.c_str(), "%dx%dx%d", &leaves, &hosts, &spines) != 3) {
    std::cerr << "--fat-tree wants LEAVESxHOSTSxSPINES\n";
    return 2;
  }
  smsupd::Result<smsupd::testbed::Topology> topo = smsupd::testbed::MakeFatTree(leaves, hosts, spines);
  if (!topo) {
    std::cerr << topo.error().message << "\n";
    return 2;
  }
  for (int run = 1; run <= runs; ++run) {
    if (smsupd::Status s = smsupd::testbed::RunOnce(*topo, run); !s) {
      std::cerr << "run " << run << ": " << s.message() << "\n";
      return 1;
    }
  }
  return 0;
}
