// The P_Key verification of an apply, as the pipeline consumes it:
// daemon/pkey/pkey_verifier.h's VerifyPKeys over the ports
// Fabric::DiscoverPorts finds, reduced to what the decision table
// (apply_decision.h) and the reply need. Keeps the pipeline testable on a
// fake fabric and one place that knows the verification's wire form.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "config/pkey_tables.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// Discovered end ports as the plan and the expected tables see them;
// `master_port` is the SM port of OpenSM's base rule.
std::vector<config::FabricPort> ToFabricPorts(const std::vector<DiscoveredPort>& ports,
                                              Guid master_port);

struct FabricVerification {
  bool skipped = false;      // no verifier or no port list: nothing was read
  bool ok = false;
  bool default_fallback = false;
  int checked = 0;
  int expected = 0;
  std::vector<std::string> mismatches;   // PKeyMismatch::Describe()
  std::vector<std::string> unreachable;
  std::string summary;                   // "verified 40/40 ports", "3 mismatches"
  nlohmann::json json = nlohmann::json::object();  // PKeyVerification::ToJson()
  std::vector<config::FabricPort> ports;  // the end ports found (for later plans)
  std::optional<DiscoveredPort> far_port;  // FarthestCaPort of the walk
};

// Blocking: runs on the MAD thread (MadWorker). Discovers the end ports and
// reads the P_Key tables the config names plus `sample_ports` others.
// `master_port`: the port of the MASTER SM (OpenSM's SM-port base rule).
FabricVerification VerifyOnFabric(Fabric& fabric, const config::Config& config, Guid master_port,
                                  int sample_ports);

}  // namespace smsupd
