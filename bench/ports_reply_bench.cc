// What one `smctl ports` reply costs the daemon on a large fabric, without
// a fabric: a two-level fat tree of HOSTS single-port HCAs (36-port leaves,
// half their ports to hosts, half to spines) is evaluated by the daemon's
// own code (EvaluatePorts), and then the reply to `smctl ports` (every port)
// is built (PortsReply) and serialized (SerializeResponse), as the daemon
// does on the ports evaluator's thread. Before, the reply was built and
// serialized on the event loop, which the failover watch shares.
//
//   cmake --build build/dev --target ports_reply_bench
//   build/dev/bench/ports_reply_bench [HOSTS] [RUNS]   # default 10000 3
//
// Prints, per run, the rows and the milliseconds of each step, and the size
// of the reply line.
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "common/control_protocol.h"
#include "daemon/ports/port_health.h"
#include "daemon/ports/port_names.h"
#include "tests/daemon/ports/active_port_info.h"

namespace {

using namespace smsupd;

// HOSTS HCAs under 36-port leaves, every leaf cabled to each of 18 spines.
PortsReadout FatTree(int hosts) {
  constexpr int kLeafPorts = 36, kDown = kLeafPorts / 2;
  const int leaves = (hosts + kDown - 1) / kDown;
  const int spines = kDown;
  const Guid leaf_base = 0x0002c90300000000, spine_base = 0x0002c90400000000, host_base = 0x0002c90500000000;
  PortsReadout readout;
  FabricTopology& t = readout.topology;
  uint16_t next_lid = 1;
  std::vector<uint16_t> host_lid(hosts), leaf_lid(leaves), spine_lid(spines);
  for (auto& lid : host_lid) lid = next_lid++;
  for (auto& lid : leaf_lid) lid = next_lid++;
  for (auto& lid : spine_lid) lid = next_lid++;
  for (int h = 0; h < hosts; ++h) {
    const Guid node = host_base + 2 * h;
    t.nodes.push_back({node, NodeType::kCa, 1, "node" + std::to_string(h) + " HCA-1", 2});
    t.ports.push_back({node, 1, host_lid[h], ActivePortInfo(host_lid[h]), leaf_base + h / kDown, h % kDown + 1});
    t.end_ports.push_back({node + 1, node, NodeType::kCa, 1, host_lid[h], "node" + std::to_string(h) + " HCA-1",
                           false, 2});
  }
  for (int l = 0; l < leaves; ++l) {
    const Guid node = leaf_base + l;
    t.nodes.push_back({node, NodeType::kSwitch, kLeafPorts, "MF0;leaf" + std::to_string(l) + ":SX6036/U1", 1});
    t.ports.push_back({node, 0, leaf_lid[l], ActivePortInfo(leaf_lid[l]), 0, 0});
    for (int p = 1; p <= kLeafPorts; ++p) {
      const int host = l * kDown + p - 1;
      if (p <= kDown && host >= hosts) continue;
      const Guid peer = p <= kDown ? host_base + 2 * host : spine_base + (p - kDown - 1);
      t.ports.push_back({node, p, leaf_lid[l], ActivePortInfo(0), peer, p <= kDown ? 1 : l + 1});
    }
  }
  for (int s = 0; s < spines; ++s) {
    const Guid node = spine_base + s;
    t.nodes.push_back({node, NodeType::kSwitch, leaves, "MF0;spine" + std::to_string(s) + ":SX6536/U1", 1});
    t.ports.push_back({node, 0, spine_lid[s], ActivePortInfo(spine_lid[s]), 0, 0});
    for (int p = 1; p <= leaves; ++p) t.ports.push_back({node, p, spine_lid[s], ActivePortInfo(0), leaf_base + p - 1, kDown + 1 + s});
  }
  for (const auto& [key, target] : CounterTargets(t)) readout.counters.emplace(key, PortCounters{});
  readout.at = std::chrono::steady_clock::now();
  return readout;
}

double Ms(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int hosts = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  if (hosts < 1 || hosts > 40000 || runs < 1) {
    std::cerr << "usage: ports_reply_bench [HOSTS 1..40000] [RUNS]\n";
    return 2;
  }
  const PortsReadout readout = FatTree(hosts);
  const PortNames names(config::Config{}, readout.topology);
  PortsMemory memory;
  for (int run = 1; run <= runs; ++run) {
    auto at = std::chrono::steady_clock::now();
    const PortsReport report = EvaluatePorts(readout, names, memory);
    const double evaluate = Ms(at);
    at = std::chrono::steady_clock::now();
    nlohmann::json data = PortsReply(report, nullptr, false);
    const double build = Ms(at);
    at = std::chrono::steady_clock::now();
    const std::string line = control::SerializeResponse(control::MakeResponse(control::ResultCode::kSuccess, "", std::move(data)));
    const double serialize = Ms(at);
    std::cout << "run " << run << ": " << report.ports.size() << " ports; evaluation " << static_cast<long>(evaluate)
              << " ms, reply built " << static_cast<long>(build) << " ms, serialized " << static_cast<long>(serialize)
              << " ms (" << line.size() / 1000000.0 << " MB)\n";
  }
  return 0;
}
