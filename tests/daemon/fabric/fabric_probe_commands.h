// The commands of fabric_probe (see fabric_probe_main.cc) and the JSON form
// of the Fabric types, shared by the probe and the integration test that
// reads its output.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd::probe {

struct ProbeCommand {
  std::string text;
  std::function<Result<nlohmann::json>(Fabric&)> run;
  // The MAD thread deadline the command needs at least (wait-master).
  std::chrono::milliseconds min_deadline{0};
};

Result<ProbeCommand> ParseProbeCommand(const std::string& text);

nlohmann::json ToJson(const SmInfo& info);
nlohmann::json ToJson(const PortInfo& info);
nlohmann::json ToJson(const NodeInfo& info);
nlohmann::json ToJson(const LocalPort& port);
nlohmann::json ToJson(const DiscoveredPort& port);

}  // namespace smsupd::probe
