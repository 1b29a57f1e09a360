#include "daemon/twin/twin_probe.h"

#include <chrono>
#include <iostream>
#include <string>

#include "common/atomic_file.h"
#include "daemon/fabric/umad_fabric.h"
#include "daemon/twin/fabric_state.h"
#include "daemon/twin/twin_topology.h"

namespace smsupd::twin {
namespace {

struct ProbeArguments {
  Guid port_guid = 0;
  std::string out;
  std::string net_dir;
};

bool ParseProbeArguments(int argc, char** argv, ProbeArguments& args) {
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string name = argv[i], value = argv[i + 1];
    if (name == "--port-guid") {
      auto guid = ParseGuid(value);
      if (!guid) return false;
      args.port_guid = *guid;
    } else if (name == "--out") {
      args.out = value;
    } else if (name == "--net") {
      args.net_dir = value;
    } else {
      return false;
    }
  }
  return args.port_guid != 0 && !args.out.empty() && argc % 2 == 0;
}

// The walk for the simulator, into `dir`.
Status WriteNet(const FabricTopology& topology, Guid port, const std::string& dir) {
  Result<TwinTopology> twin = BuildTwinTopology(topology, port);
  if (!twin) return Error{"the simulator cannot load this topology: " + twin.error().message};
  nlohmann::json sim = {{"sim_host", twin->sim_host}, {"nodes", twin->nodes}, {"switches", twin->switches},
                        {"ports", twin->ports}, {"links", twin->links}, {"guid_mismatches", twin->guid_mismatches},
                        {"unread", topology.unread}, {"unread_total", topology.unread_total}};
  for (auto [name, text] : {std::pair<const char*, const std::string*>{"/net", &twin->net_file},
                            {"/guid2lid", &twin->guid2lid}}) {
    if (Status s = WriteFileAtomically(dir + name, *text, 0600); !s) return s;
  }
  return WriteFileAtomically(dir + "/sim.json", sim.dump(), 0600);
}

}  // namespace

int RunTwinProbe(int argc, char** argv) {
  ProbeArguments args;
  if (!ParseProbeArguments(argc, argv, args)) {
    std::cerr << "usage: smsupd --twin-probe --port-guid GUID --out FILE [--net DIR]\n";
    return 2;
  }
  UmadFabricOptions options;
  options.port_guid = args.port_guid;
  UmadFabric fabric(options);
  Result<FabricTopology> topology = fabric.DiscoverTopology();
  if (!topology) {
    std::cerr << "cannot walk the subnet: " << topology.error().message << "\n";
    return 1;
  }
  if (!args.net_dir.empty()) {
    if (Status written = WriteNet(*topology, args.port_guid, args.net_dir); !written) {
      std::cerr << written.message() << "\n";
      return 1;
    }
  }
  // Each table is a few SMPs; a 2,592-HCA fabric needs ~10,000: seconds at most.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  FabricState state = ReadFabricState(fabric, *topology, args.port_guid, deadline);
  if (Status written = WriteFileAtomically(args.out, ToJson(state).dump(), 0600); !written) {
    std::cerr << written.message() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace smsupd::twin
