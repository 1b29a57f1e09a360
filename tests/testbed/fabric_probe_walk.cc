// FabricProbe's whole-fabric conveniences, built on the probe's
// directed-route walk.
#include "tests/testbed/fabric_probe.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;

constexpr std::chrono::milliseconds kWalkDeadline(120000);

Result<std::vector<WalkedPort>> ParseWalk(const json& reply, bool with_pkeys) {
  std::vector<WalkedPort> out;
  for (const json& entry : reply.at("nodes")) {
    WalkedPort walked;
    walked.node.type = entry.at("type");
    walked.node.ports = entry.at("ports");
    walked.node.node_guid = ParseGuid(entry.at("node_guid").get<std::string>()).value_or(0);
    walked.node.port_guid = ParseGuid(entry.at("port_guid").get<std::string>()).value_or(0);
    walked.node.local_port = entry.at("local_port");
    walked.node.partition_cap = entry.at("partition_cap");
    walked.port = entry.at("port");
    walked.route = entry.at("route");
    const json& port = entry.at("port_info");
    walked.port_info.lid = port.at("lid");
    walked.port_info.sm_lid = port.at("sm_lid");
    walked.port_info.state = port.at("state");
    walked.port_info.phys_state = port.at("phys_state");
    walked.port_info.capability_mask = port.at("capability_mask");
    if (with_pkeys) walked.raw_pkeys = entry.at("pkeys").get<std::vector<uint16_t>>();
    out.push_back(std::move(walked));
  }
  return out;
}

}  // namespace

Result<std::vector<WalkedPort>> FabricProbe::Discover() {
  Result<json> r = Call("discover", kWalkDeadline);
  if (!r) return r.error();
  return ParseWalk(*r, false);
}

Result<std::vector<WalkedPort>> FabricProbe::DiscoverWithPKeys() {
  Result<json> r = Call("discover-pkeys", kWalkDeadline);
  if (!r) return r.error();
  return ParseWalk(*r, true);
}

Result<std::map<Guid, uint16_t>> FabricProbe::SmLidOfEveryCa() {
  Result<std::vector<WalkedPort>> walk = Discover();
  if (!walk) return walk.error();
  std::map<Guid, uint16_t> out;
  for (const WalkedPort& port : *walk) {
    if (port.node.type == 1) out[port.node.port_guid] = port.port_info.sm_lid;
  }
  return out;
}

Result<std::map<Guid, PKeyTable>> FabricProbe::PKeysOfEveryPort() {
  Result<std::vector<WalkedPort>> walk = DiscoverWithPKeys();
  if (!walk) return walk.error();
  std::map<Guid, PKeyTable> out;
  for (const WalkedPort& port : *walk) out[port.node.port_guid] = ToPKeyTable(port.raw_pkeys);
  return out;
}

Result<std::map<Guid, uint16_t>> FabricProbe::LidsByPortGuid() {
  Result<std::vector<WalkedPort>> walk = Discover();
  if (!walk) return walk.error();
  std::map<Guid, uint16_t> out;
  for (const WalkedPort& port : *walk) out[port.node.port_guid] = port.port_info.lid;
  return out;
}

}  // namespace smsupd::testbed
