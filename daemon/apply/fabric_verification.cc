// The verification comes from daemon/pkey/pkey_verifier.h over the ports
// Fabric::DiscoverPorts() finds.
#include "daemon/apply/fabric_verification.h"

#include "daemon/pkey/pkey_verifier.h"

namespace smsupd {

std::vector<config::FabricPort> ToFabricPorts(const std::vector<DiscoveredPort>& ports,
                                              Guid master_port) {
  std::vector<config::FabricPort> result;
  result.reserve(ports.size());
  for (const auto& port : ports)
    result.push_back({port.port_guid, PortKindOf(port.node_type), port.port_guid == master_port});
  return result;
}

FabricVerification VerifyOnFabric(Fabric& fabric, const config::Config& config, Guid master_port,
                                  int sample_ports) {
  FabricVerification verification;
  auto ports = fabric.DiscoverPorts();
  if (!ports) {
    verification.skipped = true;
    verification.summary = "not verified: port discovery failed: " + ports.error().message;
    verification.json = {{"checked", 0}, {"expected", 0}, {"mismatches", nlohmann::json::array()},
                         {"unreachable", nlohmann::json::array()}, {"default_fallback", false}};
    return verification;
  }
  verification.ports = ToFabricPorts(*ports, master_port);
  verification.far_port = FarthestCaPort(*ports, master_port);
  VerifyOptions options;
  options.sample_ports = sample_ports;
  options.local_sm_port = master_port;
  PKeyVerification result = VerifyPKeys(fabric, config, *ports, options);
  if (result.expected == 0 && result.mismatches.empty() && !result.default_fallback) {
    verification.skipped = true;  // nothing the config names was found
    verification.summary = "not verified: no port to read (" + std::to_string(ports->size()) +
                           " end ports found)";
    verification.json = result.ToJson();
    return verification;
  }
  verification.ok = result.ok();
  verification.default_fallback = result.default_fallback;
  verification.checked = result.checked;
  verification.expected = result.expected;
  for (const auto& mismatch : result.mismatches) verification.mismatches.push_back(mismatch.Describe());
  verification.unreachable = result.unreachable;
  verification.summary = result.Summary();
  verification.json = result.ToJson();
  return verification;
}

}  // namespace smsupd
