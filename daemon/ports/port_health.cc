#include "daemon/ports/port_health.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "daemon/ports/port_rates.h"

namespace smsupd {
namespace {

using nlohmann::json;

bool Linked(const PortInfo& info) { return info.port_state >= kPortStateInit; }

std::string WithGuid(const std::string& name, Guid guid) {
  const std::string text = FormatGuid(guid);
  return name == text ? name : name + " (" + text + ")";
}

// The kind of a link, for the rate most links of that kind run at.
enum class LinkClass { kSwitchToSwitch, kSwitchToEnd, kEndToEnd };

std::string Rounded(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

class Evaluation {
 public:
  Evaluation(const PortsReadout& readout, const PortNames& names, PortsMemory& memory, const PortsRules& rules)
      : readout_(readout), names_(names), memory_(memory), rules_(rules) {
    for (const TopologyNode& node : readout.topology.nodes) types_[node.node_guid] = node.type;
    for (const TopologyPort& port : readout.topology.ports) ports_[{port.node_guid, port.port_num}] = &port;
    for (const DiscoveredPort& end : readout.topology.end_ports) port_guids_[{end.node_guid, end.port_num}] = end.port_guid;
    for (const TopologyNode& node : readout.topology.nodes) descriptions_[node.node_guid] = node.node_description;
  }

  PortsReport Run() {
    report_.unread = readout_.topology.unread;
    report_.unread_total = readout_.topology.unread_total;
    report_.master_lid = MasterLid();
    report_.took_ms = static_cast<long>(readout_.took.count());
    report_.smps = readout_.topology.smps;
    report_.perf_mads = readout_.perf_mads;
    ModalRates();
    for (const TopologyPort& port : readout_.topology.ports) Port(port);
    // Bounded by the fabric: after a complete walk, a port it no longer
    // reaches (a CA whose link went down, a node replaced) is forgotten; its
    // switch end is not. A partial walk forgets nothing.
    if (readout_.topology.unread_total == 0)
      std::erase_if(memory_, [this](const auto& entry) { return ports_.count(entry.first) == 0; });
    std::stable_sort(report_.problems.begin(), report_.problems.end(), [](const PortProblem& a, const PortProblem& b) {
      if (PortProblemRank(a.kind) != PortProblemRank(b.kind)) return PortProblemRank(a.kind) < PortProblemRank(b.kind);
      return a.score > b.score;
    });
    return std::move(report_);
  }

 private:
  bool IsSwitch(Guid node) const {
    auto it = types_.find(node);
    return it != types_.end() && it->second == NodeType::kSwitch;
  }

  // The master's LID as this node's own port knows it.
  uint16_t MasterLid() const {
    for (const DiscoveredPort& end : readout_.topology.end_ports) {
      if (end.port_guid != readout_.local_port_guid) continue;
      auto it = ports_.find({end.node_guid, end.port_num});
      if (it != ports_.end()) return it->second->info.sm_lid;
    }
    return 0;
  }

  const TopologyPort* Peer(const TopologyPort& port) const {
    if (port.peer_node == 0) return nullptr;
    auto it = ports_.find({port.peer_node, port.peer_port});
    return it == ports_.end() ? nullptr : it->second;
  }

  LinkClass ClassOf(const TopologyPort& port) const {
    const int switches = (IsSwitch(port.node_guid) ? 1 : 0) + (IsSwitch(port.peer_node) ? 1 : 0);
    return switches == 2 ? LinkClass::kSwitchToSwitch : switches == 1 ? LinkClass::kSwitchToEnd : LinkClass::kEndToEnd;
  }

  // The rate most Active links of each class train at.
  void ModalRates() {
    std::map<LinkClass, std::map<std::string, std::pair<int, config::LinkRate>>> counts;
    for (const TopologyPort& port : readout_.topology.ports) {
      if (port.info.port_state != kPortStateActive || Peer(port) == nullptr) continue;
      auto rate = ActiveRate(port.info);
      if (!rate) continue;
      auto& entry = counts[ClassOf(port)][rate->Text()];
      entry.first++;
      entry.second = *rate;
    }
    for (auto& [link_class, rates] : counts) {
      const std::pair<int, config::LinkRate>* best = nullptr;
      for (auto& [text, entry] : rates)
        if (best == nullptr || entry.first > best->first ||
            (entry.first == best->first && entry.second.Gbps() > best->second.Gbps()))
          best = &entry;
      if (best != nullptr) modal_[link_class] = best->second;
    }
  }

  // The rate the link should run at: what both ends support, but no more
  // than most links of its kind run at.
  std::optional<config::LinkRate> Expected(const TopologyPort& port, const TopologyPort& peer) const {
    auto common = BestCommonRate(port.info, peer.info);
    auto modal = modal_.find(ClassOf(port));
    if (!common) return std::nullopt;
    if (modal == modal_.end()) return common;
    return modal->second.Gbps() < common->Gbps() ? modal->second : *common;
  }

  void Add(PortProblemKind kind, const TopologyPort& port, const std::string& name, std::string text,
           std::string advice, double score, json& row) {
    report_.problems.push_back(
        PortProblem{kind, name, port.node_guid, port.port_num, std::move(text), std::move(advice), score});
    row["problems"].push_back(PortProblemName(kind));
  }

  void Port(const TopologyPort& port) {
    const PortKey key{port.node_guid, port.port_num};
    const PortInfo& info = port.info;
    const bool is_switch = IsSwitch(port.node_guid);
    const std::string name = names_.Port(port.node_guid, port.port_num);
    PortMemory& memory = memory_[key];
    const TopologyPort* peer = Peer(port);
    const std::string peer_name = peer ? names_.Port(peer->node_guid, peer->port_num) : "";

    json row = {{"name", name},
                {"node", names_.Node(port.node_guid)},
                {"node_guid", FormatGuid(port.node_guid)},
                {"port", port.port_num},
                {"type", is_switch ? "switch" : "ca"},
                {"lid", port.lid},
                {"state", PortStateName(info.port_state)},
                {"phys_state", PhysStateName(info.phys_state)},
                {"sm_lid", info.sm_lid},
                {"width", {{"active", WidthsText(info.link_width_active)},
                           {"enabled", WidthsText(info.link_width_enabled)},
                           {"supported", WidthsText(info.link_width_supported)}}},
                {"speed", {{"active", SpeedsText(info.link_speed_active, info.link_speed_ext_active)},
                           {"enabled", SpeedsText(info.link_speed_enabled, info.link_speed_ext_enabled)},
                           {"supported", SpeedsText(info.link_speed_supported, info.link_speed_ext_supported)}}},
                {"rate", nullptr},
                {"expected_rate", nullptr},
                {"peer", nullptr},
                {"counters", nullptr},
                {"rates_per_minute", nullptr},
                {"problems", json::array()}};
    if (auto guid = port_guids_.find(key); guid != port_guids_.end()) row["port_guid"] = FormatGuid(guid->second);
    row["node_description"] = descriptions_[port.node_guid];
    if (peer) row["peer"] = {{"name", peer_name}, {"node_guid", FormatGuid(peer->node_guid)}, {"port", peer->port_num}};
    const bool switch_port0 = is_switch && port.port_num == 0;
    auto active = Linked(info) && !switch_port0 ? ActiveRate(info) : std::nullopt;
    if (active) row["rate"] = active->Text();

    if (!switch_port0) LinkChecks(port, key, name, peer, peer_name, active, memory, row);
    if (!is_switch || switch_port0) SmCheck(port, name, row);
    Counters(port, key, name, memory, row);
    report_.ports.push_back(std::move(row));
  }

  void LinkChecks(const TopologyPort& port, const PortKey& key, const std::string& name, const TopologyPort* peer,
                  const std::string& peer_name, const std::optional<config::LinkRate>& active, PortMemory& memory,
                  json& row) {
    const PortInfo& info = port.info;
    if (Linked(info)) {
      memory.linked_before = true;
      if (!peer_name.empty()) memory.peer = peer_name;
    } else if (memory.linked_before) {
      std::string text = WithGuid(name, port.node_guid) + " is " + PortStateName(info.port_state) + " (" +
                         PhysStateName(info.phys_state) + ")";
      text += memory.peer.empty() ? "; it was linked before" : "; it was linked to " + memory.peer;
      Add(PortProblemKind::kPortDown, port, name, text,
          "check the cable and both ends (seated, powered, the far host up); Polling means no link trained, "
          "Disabled that the port was turned off (ibportstate)",
          0, row);
    }
    if (info.port_state == kPortStateInit || info.port_state == kPortStateArmed) {
      if (!memory.inactive_since) memory.inactive_since = readout_.at;
      const auto stuck = readout_.at - *memory.inactive_since;
      if (stuck >= rules_.stuck_after) {
        Add(PortProblemKind::kNotActive, port, name,
            name + " has been " + PortStateName(info.port_state) + " for " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(stuck).count()) +
                " s: the link is up but no SM made it Active",
            "check that the master SM sweeps (smctl status) and that its log names this port; a port no SM "
            "reaches stays Init",
            0, row);
      }
    } else {
      memory.inactive_since.reset();
    }
    if (!active || peer == nullptr || info.port_state != kPortStateActive) return;
    auto expected = Expected(port, *peer);
    if (!expected) return;
    row["expected_rate"] = expected->Text();
    // One problem per link: reported from the end with the lower key.
    if (!config::BelowRate(*active, *expected) || PortKey{peer->node_guid, peer->port_num} < key) return;
    auto common = BestCommonRate(info, peer->info);
    std::string why = "both ends support " + expected->Text() + " (" + Rounded(expected->Gbps()) + " Gb/s)";
    if (common && common->Gbps() > expected->Gbps() + 1e-9)
      why = "its kind of link runs at " + expected->Text() + " (" + Rounded(expected->Gbps()) +
            " Gb/s) in this fabric, and both ends support " + common->Text();
    Add(PortProblemKind::kBelowRate, port, name,
        "link " + name + " - " + peer_name + " runs at " + active->Text() + " (" + Rounded(active->Gbps()) +
            " Gb/s); " + why,
        "reseat or replace the cable (a lane or the speed fell back), check it is rated for " + expected->Text() +
            " and both ends' firmware",
        expected->Gbps() - active->Gbps(), row);
  }

  void SmCheck(const TopologyPort& port, const std::string& name, json& row) {
    if (port.info.port_state != kPortStateActive || report_.master_lid == 0) return;
    if (port.info.sm_lid == report_.master_lid) return;
    Add(PortProblemKind::kWrongSm, port, name,
        name + " follows the SM at LID " + std::to_string(port.info.sm_lid) + ", not the master at LID " +
            std::to_string(report_.master_lid),
        "look for a second master or a split subnet (smctl status); the port's SM must be the master", 0, row);
  }

  void Counters(const TopologyPort& port, const PortKey& key, const std::string& name, PortMemory& memory, json& row) {
    auto read = readout_.counters.find(key);
    if (read == readout_.counters.end()) return;
    if (!read->second) {
      row["counters_error"] = read->second.error().message;
      ++report_.unread_total;
      if (report_.unread.size() < kMaxTopologyUnread)
        report_.unread.push_back(name + ": PortCounters not read: " + read->second.error().message);
      return;
    }
    const PortCounters& now = *read->second;
    json counters = json::object();
    for (const CounterField& field : ErrorCounterFields()) counters[field.name] = now.*field.field;
    row["counters"] = counters;
    if (memory.counters) {
      const double seconds = std::chrono::duration<double>(readout_.at - memory.counters_at).count();
      bool reset = false;
      std::string rose;
      double worst = 0;
      json rates = json::object();
      for (const CounterField& field : ErrorCounterFields()) {
        const uint64_t before = (*memory.counters).*field.field, after = now.*field.field;
        if (after < before) reset = true;
        const uint64_t delta = after > before ? after - before : 0;
        const double per_minute = seconds > 0 ? static_cast<double>(delta) * 60.0 / seconds : 0;
        rates[field.name] = per_minute;
        if (delta > 0) {
          rose += (rose.empty() ? "" : ", ") + std::string(field.name) + " +" + std::to_string(delta) + " (" +
                  Rounded(per_minute) + "/min)";
          worst = std::max(worst, per_minute);
        }
      }
      row["rates_per_minute"] = rates;
      if (reset) {
        memory.last_rise.reset();  // counters cleared: a fresh start
      } else if (!rose.empty()) {
        memory.last_rise = readout_.at;
        memory.rise_text = rose;
        rise_score_[key] = worst;
      }
    }
    memory.counters = now;
    memory.counters_at = readout_.at;
    if (memory.last_rise && readout_.at - *memory.last_rise < rules_.error_hold) {
      const bool now_rising = *memory.last_rise == readout_.at;
      Add(PortProblemKind::kErrors, port, name,
          name + (now_rising ? ": error counters rising: " : ": error counters rose recently: ") + memory.rise_text,
          "symbol errors and link error recoveries point at the cable or a transceiver: reseat, clean or replace "
          "it, then clear the counters (perfquery -R) and watch",
          rise_score_.count(key) ? rise_score_[key] : 0, row);
    }
  }

  const PortsReadout& readout_;
  const PortNames& names_;
  PortsMemory& memory_;
  const PortsRules& rules_;
  std::map<Guid, NodeType> types_;
  std::map<PortKey, const TopologyPort*> ports_;
  std::map<PortKey, Guid> port_guids_;
  std::map<Guid, std::string> descriptions_;
  std::map<LinkClass, config::LinkRate> modal_;
  std::map<PortKey, double> rise_score_;
  PortsReport report_;
};

}  // namespace

const std::vector<CounterField>& ErrorCounterFields() {
  static const std::vector<CounterField> fields = {
      {"SymbolErrorCounter", &PortCounters::symbol_errors},
      {"LinkErrorRecoveryCounter", &PortCounters::link_error_recovery},
      {"LinkDownedCounter", &PortCounters::link_downed},
      {"PortRcvErrors", &PortCounters::rcv_errors},
      {"PortRcvRemotePhysicalErrors", &PortCounters::rcv_remote_physical_errors},
      {"PortRcvSwitchRelayErrors", &PortCounters::rcv_switch_relay_errors},
      {"PortXmitDiscards", &PortCounters::xmit_discards},
      {"PortXmitConstraintErrors", &PortCounters::xmit_constraint_errors},
      {"PortRcvConstraintErrors", &PortCounters::rcv_constraint_errors},
      {"LocalLinkIntegrityErrors", &PortCounters::local_link_integrity_errors},
      {"ExcessiveBufferOverrunErrors", &PortCounters::excessive_buffer_overrun_errors},
      {"VL15Dropped", &PortCounters::vl15_dropped},
  };
  return fields;
}

const char* PortProblemName(PortProblemKind kind) {
  switch (kind) {
    case PortProblemKind::kPortDown: return "port-down";
    case PortProblemKind::kWrongSm: return "wrong-sm";
    case PortProblemKind::kNotActive: return "not-active";
    case PortProblemKind::kErrors: return "errors";
    case PortProblemKind::kBelowRate: return "below-rate";
  }
  return "unknown";
}

int PortProblemRank(PortProblemKind kind) { return static_cast<int>(kind); }

const char* PortStateName(int state) {
  switch (state) {
    case 1: return "Down";
    case 2: return "Init";
    case 3: return "Armed";
    case 4: return "Active";
    case 5: return "ActiveDefer";
    default: return "NoChange";
  }
}

const char* PhysStateName(int phys_state) {
  switch (phys_state) {
    case 1: return "Sleep";
    case 2: return "Polling";
    case 3: return "Disabled";
    case 4: return "PortConfigurationTraining";
    case 5: return "LinkUp";
    case 6: return "LinkErrorRecovery";
    case 7: return "PhyTest";
    default: return "NoChange";
  }
}

std::vector<std::pair<PortKey, CounterTarget>> CounterTargets(const FabricTopology& topology) {
  std::map<Guid, NodeType> types;
  for (const TopologyNode& node : topology.nodes) types[node.node_guid] = node.type;
  std::vector<std::pair<PortKey, CounterTarget>> targets;
  for (const TopologyPort& port : topology.ports) {
    const bool is_switch = types[port.node_guid] == NodeType::kSwitch;
    if ((is_switch && port.port_num == 0) || !Linked(port.info) || port.lid == 0) continue;
    targets.push_back({{port.node_guid, port.port_num}, CounterTarget{port.lid, port.port_num}});
  }
  return targets;
}

PortsReport EvaluatePorts(const PortsReadout& readout, const PortNames& names, PortsMemory& memory,
                          const PortsRules& rules) {
  return Evaluation(readout, names, memory, rules).Run();
}

nlohmann::json PortsReply(const PortsReport& report, const std::vector<PortKey>* only, bool problems_only) {
  auto wanted = [only](Guid node, int port) {
    return only == nullptr || std::find(only->begin(), only->end(), PortKey{node, port}) != only->end();
  };
  json problems = json::array();
  for (const PortProblem& problem : report.problems) {
    if (!wanted(problem.node_guid, problem.port_num)) continue;
    problems.push_back({{"kind", PortProblemName(problem.kind)},
                        {"port", problem.port},
                        {"node_guid", FormatGuid(problem.node_guid)},
                        {"port_num", problem.port_num},
                        {"text", problem.text},
                        {"advice", problem.advice}});
  }
  json ports = json::array();
  if (!problems_only && only == nullptr) {
    ports = report.ports;
  } else if (!problems_only) {
    for (const json& row : report.ports) {
      Guid node = 0;
      if (auto guid = ParseGuid(row["node_guid"].get<std::string>())) node = *guid;
      if (wanted(node, row["port"].get<int>())) ports.push_back(row);
    }
  }
  return {{"ports", ports},
          {"ports_total", report.ports.size()},
          {"problems", problems},
          {"problems_total", problems.size()},
          {"unread", report.unread},
          {"unread_total", report.unread_total},
          {"master_sm_lid", report.master_lid},
          {"took_ms", report.took_ms},
          {"smps", report.smps},
          {"perf_mads", report.perf_mads}};
}

}  // namespace smsupd
