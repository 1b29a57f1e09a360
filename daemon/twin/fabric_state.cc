#include "daemon/twin/fabric_state.h"

#include <algorithm>
#include <map>

namespace smsupd::twin {
namespace {

void Note(FabricState& state, std::string error) {
  ++state.errors_total;
  if (state.errors.size() < kMaxStateErrors) state.errors.push_back(std::move(error));
}

std::string Label(const std::string& name, Guid guid) { return name + " " + FormatGuid(guid); }

// LMC of each end port by (node GUID, port number), from the walk's PortInfo.
std::map<std::pair<Guid, int>, int> LmcByPort(const FabricTopology& topology) {
  std::map<std::pair<Guid, int>, int> lmc;
  for (const TopologyPort& port : topology.ports) lmc[{port.node_guid, port.port_num}] = port.info.lmc;
  return lmc;
}

void ReadPorts(Fabric& fabric, const FabricTopology& topology, Guid local_port,
               std::chrono::steady_clock::time_point deadline, FabricState& state) {
  const auto lmc = LmcByPort(topology);
  for (const DiscoveredPort& found : topology.end_ports) {
    if (state.ports.size() >= kMaxStatePorts) break;
    StatePort port;
    port.port_guid = found.port_guid;
    port.node_guid = found.node_guid;
    port.is_switch = found.node_type == NodeType::kSwitch;
    port.port_num = found.port_num;
    port.lid = found.lid;
    port.name = found.node_description.substr(0, kMaxNameBytes);
    if (auto it = lmc.find({found.node_guid, found.port_num}); it != lmc.end()) port.lmc = it->second;
    const bool local = found.port_guid == local_port;
    if (std::chrono::steady_clock::now() > deadline) {
      Note(state, Label(port.name, port.port_guid) + ": P_Key table: out of time");
    } else if (!local && found.lid == 0) {
      Note(state, Label(port.name, port.port_guid) + ": P_Key table: the port has no LID");
    } else {
      auto table = fabric.GetPKeyTable(local ? 0 : found.lid, found.port_num);
      if (!table) {
        Note(state, Label(port.name, port.port_guid) + ": " + table.error().message);
      } else {
        port.pkeys = std::move(*table);
        if (port.pkeys.size() > kMaxPKeyEntries) port.pkeys.resize(kMaxPKeyEntries);
        port.read = true;
      }
    }
    state.ports.push_back(std::move(port));
  }
}

void ReadSwitches(Fabric& fabric, const FabricTopology& topology,
                  std::chrono::steady_clock::time_point deadline, FabricState& state) {
  std::map<Guid, uint16_t> switch_lid;
  for (const TopologyPort& port : topology.ports)
    if (port.port_num == 0) switch_lid[port.node_guid] = port.lid;
  for (const TopologyNode& node : topology.nodes) {
    if (node.type != NodeType::kSwitch || state.switches.size() >= kMaxStateSwitches) continue;
    StateSwitch sw;
    sw.guid = node.node_guid;
    sw.lid = switch_lid.count(node.node_guid) ? switch_lid[node.node_guid] : 0;
    sw.name = node.node_description.substr(0, kMaxNameBytes);
    if (std::chrono::steady_clock::now() > deadline) {
      Note(state, Label(sw.name, sw.guid) + ": forwarding table: out of time");
    } else if (sw.lid == 0) {
      Note(state, Label(sw.name, sw.guid) + ": forwarding table: the switch has no LID");
    } else {
      auto lft = fabric.GetLinearForwardingTable(sw.lid);
      if (!lft) {
        Note(state, Label(sw.name, sw.guid) + ": " + lft.error().message);
      } else {
        sw.lft = std::move(*lft);
        sw.read = true;
      }
    }
    state.switches.push_back(std::move(sw));
  }
}

// Field readers that refuse anything out of shape (the file crossed a
// process boundary).
Result<uint64_t> Unsigned(const nlohmann::json& object, const char* key, uint64_t max) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<int64_t>() < 0 || it->get<uint64_t>() > max)
    return Error{std::string("field ") + key + " missing or out of range"};
  return it->get<uint64_t>();
}

Result<Guid> GuidField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return Error{std::string("field ") + key + " missing"};
  auto guid = ParseGuid(it->get<std::string>());
  if (!guid) return Error{std::string("field ") + key + " is no GUID"};
  return *guid;
}

bool BoolField(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

std::string NameField(const nlohmann::json& object) {
  auto it = object.find("name");
  if (it == object.end() || !it->is_string()) return "";
  return it->get<std::string>().substr(0, kMaxNameBytes);
}

template <typename T>
Result<std::vector<T>> NumberList(const nlohmann::json& object, const char* key, std::size_t max_size,
                                  uint64_t max_value) {
  std::vector<T> out;
  auto it = object.find(key);
  if (it == object.end()) return out;
  if (!it->is_array() || it->size() > max_size) return Error{std::string("field ") + key + " is no list in bounds"};
  out.reserve(it->size());
  for (const auto& value : *it) {
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<uint64_t>() > max_value)
      return Error{std::string("field ") + key + " holds a value out of range"};
    out.push_back(static_cast<T>(value.get<uint64_t>()));
  }
  return out;
}

Result<StatePort> PortFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Error{"a port is no object"};
  StatePort port;
  auto guid = GuidField(json, "guid");
  auto node = GuidField(json, "node_guid");
  auto num = Unsigned(json, "port", 255);
  auto lid = Unsigned(json, "lid", 0xffff);
  auto lmc = Unsigned(json, "lmc", 7);
  auto pkeys = NumberList<uint16_t>(json, "pkeys", kMaxPKeyEntries, 0xffff);
  for (const std::string* error : {guid ? nullptr : &guid.error().message, node ? nullptr : &node.error().message,
                                   num ? nullptr : &num.error().message, lid ? nullptr : &lid.error().message,
                                   lmc ? nullptr : &lmc.error().message, pkeys ? nullptr : &pkeys.error().message})
    if (error) return Error{*error};
  port.port_guid = *guid;
  port.node_guid = *node;
  port.port_num = static_cast<int>(*num);
  port.lid = static_cast<uint16_t>(*lid);
  port.lmc = static_cast<int>(*lmc);
  port.is_switch = BoolField(json, "switch");
  port.read = BoolField(json, "read");
  port.name = NameField(json);
  port.pkeys = std::move(*pkeys);
  return port;
}

Result<StateSwitch> SwitchFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Error{"a switch is no object"};
  StateSwitch sw;
  auto guid = GuidField(json, "guid");
  if (!guid) return guid.error();
  auto lid = Unsigned(json, "lid", 0xffff);
  if (!lid) return lid.error();
  auto lft = NumberList<uint8_t>(json, "lft", kMaxUnicastLid + 1u, 255);
  if (!lft) return lft.error();
  sw.guid = *guid;
  sw.lid = static_cast<uint16_t>(*lid);
  sw.read = BoolField(json, "read");
  sw.name = NameField(json);
  sw.lft = std::move(*lft);
  return sw;
}

}  // namespace

FabricState ReadFabricState(Fabric& fabric, const FabricTopology& topology, Guid local_port,
                            std::chrono::steady_clock::time_point deadline) {
  FabricState state;
  ReadPorts(fabric, topology, local_port, deadline, state);
  ReadSwitches(fabric, topology, deadline, state);
  return state;
}

nlohmann::json ToJson(const FabricState& state) {
  nlohmann::json ports = nlohmann::json::array();
  for (const StatePort& port : state.ports)
    ports.push_back({{"guid", FormatGuid(port.port_guid)}, {"node_guid", FormatGuid(port.node_guid)},
                     {"switch", port.is_switch}, {"port", port.port_num}, {"lid", port.lid},
                     {"lmc", port.lmc}, {"name", port.name}, {"read", port.read}, {"pkeys", port.pkeys}});
  nlohmann::json switches = nlohmann::json::array();
  for (const StateSwitch& sw : state.switches)
    switches.push_back({{"guid", FormatGuid(sw.guid)}, {"lid", sw.lid}, {"name", sw.name},
                        {"read", sw.read}, {"lft", sw.lft}});
  return {{"ports", ports}, {"switches", switches}, {"errors", state.errors},
          {"errors_total", state.errors_total}};
}

Result<FabricState> FabricStateFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Error{"fabric state: not an object"};
  FabricState state;
  const auto ports = json.find("ports");
  const auto switches = json.find("switches");
  if (ports == json.end() || !ports->is_array() || ports->size() > kMaxStatePorts)
    return Error{"fabric state: no port list in bounds"};
  if (switches == json.end() || !switches->is_array() || switches->size() > kMaxStateSwitches)
    return Error{"fabric state: no switch list in bounds"};
  for (const auto& entry : *ports) {
    auto port = PortFromJson(entry);
    if (!port) return Error{"fabric state: " + port.error().message};
    state.ports.push_back(std::move(*port));
  }
  for (const auto& entry : *switches) {
    auto sw = SwitchFromJson(entry);
    if (!sw) return Error{"fabric state: " + sw.error().message};
    state.switches.push_back(std::move(*sw));
  }
  if (auto errors = json.find("errors"); errors != json.end() && errors->is_array()) {
    for (const auto& error : *errors) {
      if (state.errors.size() >= kMaxStateErrors) break;
      if (error.is_string()) state.errors.push_back(error.get<std::string>().substr(0, 512));
    }
  }
  auto total = Unsigned(json, "errors_total", 1u << 30);
  state.errors_total = std::max<int>(static_cast<int>(state.errors.size()), total ? static_cast<int>(*total) : 0);
  auto by_guid = [](const auto& a, const auto& b) {
    if constexpr (requires { a.port_guid; }) return a.port_guid < b.port_guid;
    else return a.guid < b.guid;
  };
  std::sort(state.ports.begin(), state.ports.end(), by_guid);
  std::sort(state.switches.begin(), state.switches.end(), by_guid);
  return state;
}

}  // namespace smsupd::twin
