// testbed-probe: the test bed's one umad client per simulated fabric. It runs
// "on" a node under the umad2sim preload (umad2sim binds a process to one
// node for its lifetime, so the test process itself cannot query many
// simulators) and answers one request line with one JSON line on stdout:
//
//   <id> sminfo <target>          <id> portinfo <target> <port>
//   <id> nodeinfo <target>        <id> pkeys <target> <port>
//   <id> discover                 <id> discover-pkeys
//   <id> handover <target> <master guid> <priority>
//
// <target> is a LID ("12") or a directed route ("dr:0,1,3"). Replies carry
// the request id and "ok"; a failure carries "error". The first line, sent
// once the umad port is open, is {"ready":true,...}.
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "tests/testbed/probe/fabric_walk.h"
#include "tests/testbed/probe/mad_queries.h"

namespace smsupd::testbed::probe {
namespace {

using nlohmann::json;

json NodeJson(const NodeReading& node) {
  return {{"type", node.type},
          {"ports", node.ports},
          {"node_guid", FormatGuid(node.node_guid)},
          {"port_guid", FormatGuid(node.port_guid)},
          {"local_port", node.local_port},
          {"partition_cap", node.partition_cap},
          {"description", node.description}};
}

json PortJson(const PortReading& port) {
  return {{"lid", port.lid},         {"sm_lid", port.sm_lid}, {"state", port.state},
          {"phys_state", port.phys_state}, {"lmc", port.lmc},  {"capability_mask", port.capability_mask}};
}

json WalkJson(const std::vector<WalkedNode>& nodes, bool with_pkeys) {
  json list = json::array();
  for (const WalkedNode& walked : nodes) {
    json entry = NodeJson(walked.node);
    entry["port"] = walked.port;
    entry["route"] = walked.route;
    entry["port_info"] = PortJson(walked.port_info);
    if (with_pkeys) entry["pkeys"] = walked.pkeys;
    list.push_back(std::move(entry));
  }
  return {{"nodes", list}};
}

template <typename T>
Result<json> WithTarget(std::istringstream& args, const std::function<Result<T>(const Target&, int)>& query,
                        const std::function<json(const T&)>& to_json, bool needs_port) {
  std::string target_text;
  int port = 0;
  args >> target_text;
  if (needs_port && !(args >> port)) return Error{"missing port number"};
  Result<Target> target = ParseTarget(target_text);
  if (!target) return target.error();
  Result<T> value = query(*target, port);
  if (!value) return value.error();
  return to_json(*value);
}

Result<json> Dispatch(MadQueries& mads, const std::string& command, std::istringstream& args) {
  if (command == "sminfo") {
    return WithTarget<SmInfoReading>(
        args, [&](const Target& t, int) { return mads.SmInfo(t); },
        [](const SmInfoReading& sm) {
          return json{{"guid", FormatGuid(sm.guid)}, {"sm_key", FormatGuid(sm.sm_key)},
                      {"act_count", sm.act_count},   {"priority", sm.priority}, {"state", sm.state}};
        },
        false);
  }
  if (command == "portinfo") {
    return WithTarget<PortReading>(args, [&](const Target& t, int p) { return mads.PortInfo(t, p); }, PortJson, true);
  }
  if (command == "nodeinfo") {
    return WithTarget<NodeReading>(args, [&](const Target& t, int) { return mads.NodeInfo(t, true); }, NodeJson,
                                   false);
  }
  if (command == "pkeys") {
    return WithTarget<std::vector<uint16_t>>(
        args, [&](const Target& t, int p) { return mads.PKeys(t, p); },
        [](const std::vector<uint16_t>& keys) { return json{{"pkeys", keys}}; }, true);
  }
  if (command == "handover") {
    std::string target_text, guid_text;
    int priority = -1;
    if (!(args >> target_text >> guid_text >> priority) || priority < 0 || priority > 15)
      return Error{"usage: handover <target> <master guid> <priority 0..15>"};
    Result<Target> target = ParseTarget(target_text);
    if (!target) return target.error();
    std::optional<Guid> guid = ParseGuid(guid_text);
    if (!guid) return Error{"bad GUID '" + guid_text + "'"};
    if (Status sent = mads.Handover(*target, *guid, priority); !sent) return Error{sent.message()};
    return json::object();
  }
  if (command == "pathrecord") {
    int sm_lid = 0;
    std::string own_text, dest_text;
    if (!(args >> sm_lid >> own_text >> dest_text) || sm_lid <= 0 || sm_lid >= 0xc000)
      return Error{"usage: pathrecord <SA LID> <own port GUID> <destination port GUID>"};
    std::optional<Guid> own = ParseGuid(own_text);
    std::optional<Guid> dest = ParseGuid(dest_text);
    if (!own || !dest) return Error{"bad GUID"};
    Result<int> dlid = mads.PathRecord(sm_lid, *own, *dest);
    if (!dlid) return dlid.error();
    return json{{"dlid", *dlid}};
  }
  if (command == "discover" || command == "discover-pkeys") {
    const bool with_pkeys = command == "discover-pkeys";
    Result<std::vector<WalkedNode>> nodes = WalkFabric(mads, with_pkeys);
    if (!nodes) return nodes.error();
    return WalkJson(*nodes, with_pkeys);
  }
  return Error{"unknown command '" + command + "'"};
}

// A NodeDescription is whatever bytes the fabric says: bytes that are no
// UTF-8 are replaced (U+FFFD), so one hostile node cannot stop the probe.
void Reply(json reply) {
  std::cout << reply.dump(-1, ' ', false, json::error_handler_t::replace) << std::endl;
}

int Run(int timeout_ms, int retries) {
  Result<MadQueries> mads = MadQueries::Open(timeout_ms, retries);
  if (!mads) {
    Reply({{"ready", false}, {"error", mads.error().message}});
    return 1;
  }
  Result<Target> self = ParseTarget("dr:0");
  Result<NodeReading> node = mads->NodeInfo(*self, true);
  Reply({{"ready", true}, {"node", node ? NodeJson(*node) : json()}});
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream args(line);
    long id = 0;
    std::string command;
    args >> id >> command;
    if (command == "quit") break;
    Result<json> result = Dispatch(*mads, command, args);
    json reply = result ? *result : json{{"error", result.error().message}};
    reply["id"] = id;
    reply["ok"] = result.ok();
    Reply(std::move(reply));
  }
  return 0;
}

}  // namespace
}  // namespace smsupd::testbed::probe

int main(int argc, char** argv) {
  // Short MAD timeouts: the simulator answers in well under a millisecond,
  // and the caller bounds each request anyway.
  int timeout_ms = argc > 1 ? std::atoi(argv[1]) : 200;
  int retries = argc > 2 ? std::atoi(argv[2]) : 2;
  return smsupd::testbed::probe::Run(timeout_ms, retries);
}
