// pkey_verify_tool: DiscoverPorts + VerifyPKeys with the real UmadFabric on
// the node it runs on, as the daemon will call them; prints one JSON line
// per run. Integration tests and the verification benchmark run it on a
// simulated node (umad2sim preload).
//
//   pkey_verify_tool --config FILE [--sm-port 0x..] [--sample N] [--runs N]
// Output per run: {"ok", "ports", "switches", "discover_us", "verify_us",
// "verification": PKeyVerification JSON} or {"ok": false, "error"}.
// Exit status: 0 if the last run verified, 1 if not, 2 usage or bad config.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "config/validator.h"
#include "daemon/fabric/umad_fabric.h"
#include "daemon/pkey/pkey_verifier.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Flags {
  std::string config_path;
  smsupd::VerifyOptions verify;
  int runs = 1;
};

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string arg = argv[i];
    std::string value = argv[i + 1];
    if (arg == "--config") {
      flags.config_path = value;
    } else if (arg == "--sm-port") {
      auto guid = smsupd::ParseGuid(value);
      if (!guid) return false;
      flags.verify.local_sm_port = *guid;
    } else if (arg == "--sample") {
      flags.verify.sample_ports = std::stoi(value);
    } else if (arg == "--runs") {
      flags.runs = std::stoi(value);
    } else {
      return false;
    }
  }
  return argc % 2 == 1 && !flags.config_path.empty();
}

long Micros(Clock::duration elapsed) {
  return static_cast<long>(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
}

nlohmann::json RunOnce(smsupd::Fabric& fabric, const smsupd::config::Config& config, const Flags& flags) {
  auto start = Clock::now();
  auto ports = fabric.DiscoverPorts();
  long discover_us = Micros(Clock::now() - start);
  if (!ports) return {{"ok", false}, {"error", ports.error().message}, {"discover_us", discover_us}};
  int switches = 0;
  for (const smsupd::DiscoveredPort& port : *ports) switches += port.node_type == smsupd::NodeType::kSwitch;
  start = Clock::now();
  smsupd::PKeyVerification verification = smsupd::VerifyPKeys(fabric, config, *ports, flags.verify);
  long verify_us = Micros(Clock::now() - start);
  return {{"ok", verification.ok()},       {"ports", ports->size()},   {"switches", switches},
          {"discover_us", discover_us},    {"verify_us", verify_us},   {"verification", verification.ToJson()}};
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::cerr << "usage: pkey_verify_tool --config FILE [--sm-port 0x..] [--sample N] [--runs N]\n";
    return 2;
  }
  std::ifstream file(flags.config_path);
  std::stringstream text;
  text << file.rdbuf();
  smsupd::config::ValidationOutcome outcome = smsupd::config::ValidateText(text.str(), flags.config_path);
  if (!outcome.config) {
    for (const auto& diagnostic : outcome.diagnostics) std::cerr << diagnostic.Format() << "\n";
    return 2;
  }
  smsupd::UmadFabric fabric(smsupd::UmadFabricOptions{});
  bool ok = false;
  for (int run = 0; run < flags.runs; ++run) {
    nlohmann::json out = RunOnce(fabric, *outcome.config, flags);
    ok = out["ok"].get<bool>();
    std::cout << out.dump() << std::endl;
  }
  return ok ? 0 : 1;
}
