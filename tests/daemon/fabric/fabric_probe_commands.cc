#include "tests/daemon/fabric/fabric_probe_commands.h"

#include <algorithm>
#include <sstream>
#include <thread>
#include <vector>

#include "common/guid.h"
#include "daemon/ports/port_health.h"
#include "daemon/ports/ports_monitor.h"

namespace smsupd::probe {
namespace {

using Json = nlohmann::json;

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ':');) parts.push_back(part);
  return parts;
}

template <typename T>
Result<Json> Wrap(Result<T> result, const char* key) {
  if (!result) return result.error();
  return Json{{key, ToJson(*result)}};
}

// Polls SMInfo at `lid` until it reports MASTER or `limit` passes; the
// answer carries how long that took (the handover-to-master time when it
// follows a handover command).
Result<Json> WaitMaster(Fabric& fabric, uint16_t lid, std::chrono::milliseconds limit) {
  auto start = std::chrono::steady_clock::now();
  std::string last = "no answer yet";
  while (std::chrono::steady_clock::now() - start < limit) {
    Result<SmInfo> info = fabric.GetSmInfo(lid);
    if (info && info->state == SmState::kMaster) {
      auto waited = std::chrono::steady_clock::now() - start;
      return Json{{"sminfo", ToJson(*info)},
                  {"waited_us",
                   std::chrono::duration_cast<std::chrono::microseconds>(waited).count()}};
    }
    last = info ? SmStateName(info->state) : info.error().message;
    // The probe is a test tool: a short pause between polls is its pace.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Error{"LID " + std::to_string(lid) + " not MASTER after " +
               std::to_string(limit.count()) + " ms (last: " + last + ")"};
}

// Polls the local port until its SM LID is `lid` (the SM configured this
// HCA): the end of a failover as a host sees it.
Result<Json> WaitSmLid(Fabric& fabric, uint16_t lid, std::chrono::milliseconds limit) {
  auto start = std::chrono::steady_clock::now();
  std::string last = "no answer yet";
  while (std::chrono::steady_clock::now() - start < limit) {
    Result<PortInfo> info = fabric.LocalPortInfo();
    if (info && info->sm_lid == lid && info->port_state == kPortStateActive) {
      auto waited = std::chrono::steady_clock::now() - start;
      return Json{{"waited_us", std::chrono::duration_cast<std::chrono::microseconds>(waited).count()}};
    }
    last = info ? "SM LID " + std::to_string(info->sm_lid) : info.error().message;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Error{"local SM LID not " + std::to_string(lid) + " after " + std::to_string(limit.count()) +
               " ms (last: " + last + ")"};
}

// Times `count` GetSmInfo(lid) round trips (a latency measurement, printed
// by the probe; nothing asserts on it).
Result<Json> TimeSmInfo(Fabric& fabric, uint16_t lid, int count) {
  std::vector<int64_t> micros;
  int errors = 0;
  for (int i = 0; i < count; ++i) {
    auto start = std::chrono::steady_clock::now();
    bool ok = fabric.GetSmInfo(lid).ok();
    auto took = std::chrono::steady_clock::now() - start;
    if (!ok) ++errors;
    micros.push_back(std::chrono::duration_cast<std::chrono::microseconds>(took).count());
  }
  if (micros.empty()) return Error{"count must be positive"};
  std::sort(micros.begin(), micros.end());
  return Json{{"count", count},
              {"errors", errors},
              {"median_us", micros[micros.size() / 2]},
              {"p99_us", micros[micros.size() * 99 / 100]},
              {"max_us", micros.back()}};
}

Result<Json> LocalJson(Fabric& f) {
  Result<PortInfo> info = f.LocalPortInfo();
  if (!info) return info.error();
  return Json{{"portinfo", ToJson(*info)}};
}

Result<Json> ActivePortsJson(Fabric& f) {
  auto ports = f.ActivePorts();
  if (!ports) return ports.error();
  Json list = Json::array();
  for (const LocalPort& port : *ports) list.push_back(ToJson(port));
  return Json{{"ports", list}};
}

Result<Json> SmRecordsJson(Fabric& f) {
  auto records = f.GetSmInfoRecords();
  if (!records) return records.error();
  Json list = Json::array();
  for (const SmRecord& r : *records) list.push_back({{"lid", r.lid}, {"sminfo", ToJson(r.info)}});
  return Json{{"records", list}};
}

Result<Json> PKeysJson(Fabric& f, uint16_t lid, int port) {
  auto table = f.GetPKeyTable(lid, port);
  if (!table) return table.error();
  return Json{{"pkeys", *table}};
}

// Every end port the walk finds, and how long the walk took.
Result<Json> DiscoverJson(Fabric& f) {
  auto start = std::chrono::steady_clock::now();
  auto ports = f.DiscoverPorts();
  auto took = std::chrono::steady_clock::now() - start;
  if (!ports) return ports.error();
  Json list = Json::array();
  for (const DiscoveredPort& port : *ports) list.push_back(ToJson(port));
  return Json{{"ports", list},
              {"walk_us", std::chrono::duration_cast<std::chrono::microseconds>(took).count()}};
}

// Nodes, ports (state, width, speed) and links of one topology walk.
Result<Json> TopologyJson(Fabric& f) {
  auto start = std::chrono::steady_clock::now();
  auto topology = f.DiscoverTopology();
  auto took = std::chrono::steady_clock::now() - start;
  if (!topology) return topology.error();
  Json nodes = Json::array();
  for (const TopologyNode& n : topology->nodes)
    nodes.push_back({{"node_guid", FormatGuid(n.node_guid)}, {"type", static_cast<int>(n.type)},
                     {"description", n.node_description}, {"num_ports", n.num_ports}});
  Json ports = Json::array();
  for (const TopologyPort& p : topology->ports)
    ports.push_back({{"node_guid", FormatGuid(p.node_guid)}, {"port", p.port_num}, {"lid", p.lid},
                     {"state", p.info.port_state}, {"phys_state", p.info.phys_state},
                     {"width_active", p.info.link_width_active}, {"width_supported", p.info.link_width_supported},
                     {"width_enabled", p.info.link_width_enabled}, {"speed_active", p.info.link_speed_active},
                     {"speed_supported", p.info.link_speed_supported}, {"speed_enabled", p.info.link_speed_enabled},
                     {"peer_node", FormatGuid(p.peer_node)}, {"peer_port", p.peer_port}});
  return Json{{"nodes", nodes}, {"ports", ports}, {"unread", topology->unread}, {"smps", topology->smps},
              {"walk_us", std::chrono::duration_cast<std::chrono::microseconds>(took).count()}};
}

Result<Json> CountersJson(Fabric& f, uint16_t lid, int port) {
  auto read = f.ReadPortCounters({CounterTarget{lid, port}});
  if (read.empty() || !read.front()) return read.empty() ? Error{"no answer"} : read.front().error();
  const PortCounters& c = *read.front();
  return Json{{"symbol_errors", c.symbol_errors}, {"link_error_recovery", c.link_error_recovery},
              {"link_downed", c.link_downed}, {"rcv_errors", c.rcv_errors}, {"xmit_discards", c.xmit_discards},
              {"excessive_buffer_overrun_errors", c.excessive_buffer_overrun_errors}};
}

// What one `smctl ports` read-out sends, with the daemon's own constants:
// the topology walk, then PortCounters of every linked port in chunks of
// PortsMonitor::kCounterChunk with PortsMonitor::kChunkPause after each
// (the daemon pauses on its event loop, leaving the MAD thread idle; here
// the MAD thread sleeps: the fabric sees the same thing). Times and rates
// for bench/ports_bench.sh.
Result<Json> ReadoutJson(Fabric& f) {
  using Ms = std::chrono::duration<double, std::milli>;
  auto start = std::chrono::steady_clock::now();
  auto topology = f.DiscoverTopology();
  auto walked = std::chrono::steady_clock::now();
  if (!topology) return topology.error();
  const auto targets = CounterTargets(*topology);
  int perf_mads = 0, perf_errors = 0, chunks = 0;
  std::string first_error;
  for (std::size_t from = 0; from < targets.size(); from += PortsMonitor::kCounterChunk) {
    const std::size_t to = std::min(targets.size(), from + PortsMonitor::kCounterChunk);
    std::vector<CounterTarget> chunk;
    for (std::size_t i = from; i < to; ++i) chunk.push_back(targets[i].second);
    for (const Result<PortCounters>& read : f.ReadPortCounters(chunk)) {
      if (read) continue;
      if (perf_errors++ == 0) first_error = read.error().message;
    }
    perf_mads += static_cast<int>(chunk.size());
    ++chunks;
    std::this_thread::sleep_for(PortsMonitor::kChunkPause);
  }
  auto end = std::chrono::steady_clock::now();
  const double walk_ms = Ms(walked - start).count(), counters_ms = Ms(end - walked).count();
  const double total_ms = Ms(end - start).count();
  const int mads = topology->smps + perf_mads;
  Json out{{"walk_ms", walk_ms}, {"counters_ms", counters_ms}, {"total_ms", total_ms},
           {"smps", topology->smps}, {"perf_mads", perf_mads}, {"perf_errors", perf_errors},
           {"ports", targets.size()}, {"unread", topology->unread_total}, {"chunks", chunks},
           {"chunk", PortsMonitor::kCounterChunk}, {"chunk_pause_ms", PortsMonitor::kChunkPause.count()},
           {"mads", mads}, {"mad_rate", total_ms > 0 ? mads * 1000.0 / total_ms : 0.0},
           {"perf_rate", counters_ms > 0 ? perf_mads * 1000.0 / counters_ms : 0.0}};
  if (!first_error.empty()) out["first_perf_error"] = first_error;
  return out;
}

Result<Json> HandoverJson(Fabric& f, uint16_t lid, const SmInfo& local) {
  Status sent = f.SendHandover(lid, local);
  if (!sent) return Error{sent.message()};
  return Json::object();
}

using Args = std::vector<std::string>;
int Num(const Args& p, size_t i) { return std::stoi(p.at(i), nullptr, 0); }
uint16_t Lid(const Args& p, size_t i) { return static_cast<uint16_t>(Num(p, i)); }

// One query, one answer. False if `p` is not one of them.
bool ParseQuery(const Args& p, ProbeCommand& c) {
  const std::string& name = p[0];
  if (name == "local" && p.size() == 1) {
    c.run = LocalJson;
  } else if (name == "active-ports" && p.size() == 1) {
    c.run = ActivePortsJson;
  } else if (name == "discover" && p.size() == 1) {
    c.run = DiscoverJson;
    c.min_deadline = std::chrono::seconds(15);
  } else if (name == "topology" && p.size() == 1) {
    c.run = TopologyJson;
    c.min_deadline = std::chrono::seconds(15);
  } else if (name == "readout" && p.size() == 1) {
    c.run = ReadoutJson;
    c.min_deadline = std::chrono::seconds(120);
  } else if (name == "counters" && p.size() == 3) {
    c.run = [l = Lid(p, 1), n = Num(p, 2)](Fabric& f) { return CountersJson(f, l, n); };
  } else if (name == "smrecords" && p.size() == 1) {
    c.run = SmRecordsJson;
  } else if (name == "saprobe" && p.size() == 2) {
    c.run = [l = Lid(p, 1)](Fabric& f) -> Result<Json> {
      Status answered = f.ProbeSa(l);
      if (!answered) return Error{answered.message()};
      return Json::object();
    };
  } else if (name == "sminfo" && p.size() == 2) {
    c.run = [l = Lid(p, 1)](Fabric& f) { return Wrap(f.GetSmInfo(l), "sminfo"); };
  } else if (name == "nodeinfo" && p.size() == 2) {
    c.run = [l = Lid(p, 1)](Fabric& f) { return Wrap(f.GetNodeInfo(l), "nodeinfo"); };
  } else if (name == "portinfo" && p.size() == 3) {
    c.run = [l = Lid(p, 1), n = Num(p, 2)](Fabric& f) { return Wrap(f.GetPortInfo(l, n), "portinfo"); };
  } else if (name == "pkeys" && p.size() == 3) {
    c.run = [l = Lid(p, 1), n = Num(p, 2)](Fabric& f) { return PKeysJson(f, l, n); };
  } else {
    return false;
  }
  return true;
}

// Commands that act or wait. False if `p` is not one of them.
bool ParseAction(const Args& p, ProbeCommand& c) {
  const std::string& name = p[0];
  if (name == "handover" && p.size() == 4) {
    // A GUID that does not parse becomes 0, which SendHandover must refuse.
    SmInfo local{ParseGuid(p[2]).value_or(0), 0, 0, Num(p, 3), SmState::kMaster};
    c.run = [l = Lid(p, 1), local](Fabric& f) { return HandoverJson(f, l, local); };
  } else if (name == "wait-master" && p.size() == 3) {
    auto limit = std::chrono::milliseconds(Num(p, 2));
    c.run = [l = Lid(p, 1), limit](Fabric& f) { return WaitMaster(f, l, limit); };
    c.min_deadline = limit + std::chrono::seconds(1);
  } else if (name == "wait-smlid" && p.size() == 3) {
    auto limit = std::chrono::milliseconds(Num(p, 2));
    c.run = [l = Lid(p, 1), limit](Fabric& f) { return WaitSmLid(f, l, limit); };
    c.min_deadline = limit + std::chrono::seconds(1);
  } else if (name == "time-sminfo" && p.size() == 3) {
    c.run = [l = Lid(p, 1), n = Num(p, 2)](Fabric& f) { return TimeSmInfo(f, l, n); };
    c.min_deadline = std::chrono::milliseconds(Num(p, 2) * 1000);
  } else {
    return false;
  }
  return true;
}

Result<ProbeCommand> Parse(const Args& p) {
  ProbeCommand c;
  if (ParseQuery(p, c) || ParseAction(p, c)) return c;
  return Error{"unknown command or wrong arguments"};
}

}  // namespace

Result<ProbeCommand> ParseProbeCommand(const std::string& text) {
  std::vector<std::string> parts = Split(text);
  if (parts.empty()) return Error{"empty command"};
  try {
    Result<ProbeCommand> command = Parse(parts);
    if (!command) return Error{text + ": " + command.error().message};
    command->text = text;
    return command;
  } catch (const std::exception&) {
    return Error{text + ": bad number"};
  }
}

Json ToJson(const SmInfo& info) {
  return {{"guid", FormatGuid(info.guid)}, {"sm_key", FormatGuid(info.sm_key)},
          {"act_count", info.act_count},   {"priority", info.priority},
          {"state", SmStateName(info.state)}};
}

Json ToJson(const PortInfo& info) {
  return {{"lid", info.lid},
          {"sm_lid", info.sm_lid},
          {"port_state", info.port_state},
          {"phys_state", info.phys_state},
          {"lmc", info.lmc},
          {"capability_mask", info.capability_mask},
          {"is_sm", info.is_sm()},
          {"local_port", info.local_port},
          {"port_guid", FormatGuid(info.port_guid)}};
}

Json ToJson(const NodeInfo& info) {
  return {{"type", static_cast<int>(info.type)},    {"num_ports", info.num_ports},
          {"node_guid", FormatGuid(info.node_guid)}, {"port_guid", FormatGuid(info.port_guid)},
          {"partition_cap", info.partition_cap},    {"local_port", info.local_port}};
}

Json ToJson(const DiscoveredPort& port) {
  return {{"port_guid", FormatGuid(port.port_guid)},
          {"node_guid", FormatGuid(port.node_guid)},
          {"node_type", static_cast<int>(port.node_type)},
          {"port_num", port.port_num},
          {"lid", port.lid},
          {"node_description", port.node_description},
          {"is_sm", port.is_sm}};
}

Json ToJson(const LocalPort& port) {
  return {{"ca_name", port.ca_name},         {"port_num", port.port_num},
          {"port_guid", FormatGuid(port.port_guid)}, {"port_state", port.port_state},
          {"lid", port.lid},                 {"sm_lid", port.sm_lid}};
}

}  // namespace smsupd::probe
