#include "daemon/twin/twin_report.h"

#include <algorithm>

namespace smsupd::twin {
namespace {

std::set<uint16_t> Entries(const std::vector<uint16_t>& table) {
  std::set<uint16_t> out(table.begin(), table.end());
  out.erase(0);
  out.erase(0x8000);  // the invalid P_Key: no entry either (IBA 10.9.1.2)
  return out;
}

std::map<Guid, const StatePort*> ByGuid(const FabricState& state) {
  std::map<Guid, const StatePort*> out;
  for (const StatePort& port : state.ports) out[port.port_guid] = &port;
  return out;
}

void ComparePKeys(const std::map<Guid, const StatePort*>& live, const std::map<Guid, const StatePort*>& twin,
                  TableComparison& out) {
  for (const auto& [guid, before] : live) {
    auto it = twin.find(guid);
    if (it == twin.end()) {
      ++out.only_live;
      continue;
    }
    const StatePort& after = *it->second;
    if (before->lid != after.lid) ++out.lid_changes;
    if (!before->read || !after.read) continue;
    ++out.ports_compared;
    std::set<uint16_t> a = Entries(before->pkeys), b = Entries(after.pkeys);
    if (a == b) continue;
    ++out.pkey_changes_total;
    if (out.pkey_changes.size() < kMaxReportRows)
      out.pkey_changes.push_back({guid, before->name, before->lid, std::move(a), std::move(b)});
  }
  for (const auto& [guid, port] : twin)
    if (!live.count(guid)) ++out.only_twin;
}

uint8_t Exit(const std::vector<uint8_t>& lft, unsigned lid) { return lid < lft.size() ? lft[lid] : kNoRoutePort; }

// Destinations present on both sides (by GUID) with a LID on both.
struct Destination {
  const StatePort* live;
  const StatePort* twin;
};

std::vector<Destination> Destinations(const std::map<Guid, const StatePort*>& live,
                                      const std::map<Guid, const StatePort*>& twin) {
  std::vector<Destination> out;
  for (const auto& [guid, port] : live) {
    auto it = twin.find(guid);
    if (it != twin.end() && port->lid != 0 && it->second->lid != 0) out.push_back({port, it->second});
  }
  return out;
}

void CompareForwarding(const FabricState& live, const FabricState& twin, const std::vector<Destination>& destinations,
                       TableComparison& out) {
  std::map<Guid, const StateSwitch*> twin_switches;
  for (const StateSwitch& sw : twin.switches) twin_switches[sw.guid] = &sw;
  for (const StateSwitch& before : live.switches) {
    auto it = twin_switches.find(before.guid);
    if (it == twin_switches.end() || !before.read || !it->second->read) continue;
    const StateSwitch& after = *it->second;
    ++out.switches_compared;
    int64_t moved = 0;
    for (const Destination& d : destinations) {
      const unsigned live_count = 1u << (d.live->lmc & 7), twin_count = 1u << (d.twin->lmc & 7);
      for (unsigned offset = 0; offset < std::max(live_count, twin_count); ++offset) {
        uint8_t a = offset < live_count ? Exit(before.lft, d.live->lid + offset) : kNoRoutePort;
        uint8_t b = offset < twin_count ? Exit(after.lft, d.twin->lid + offset) : kNoRoutePort;
        ++out.entries_compared;
        if (a != b) ++moved;
      }
    }
    if (moved == 0) continue;
    ++out.switches_changed;
    out.entries_moved += moved;
    if (out.forwarding_changes.size() < kMaxReportRows)
      out.forwarding_changes.push_back({before.guid, before.name, moved});
  }
}

// Destination LIDs (base LIDs of end ports) some switch has no route to.
std::vector<UnreachableLid> Unreachable(const FabricState& state, int* total) {
  std::vector<UnreachableLid> out;
  *total = 0;
  for (const StatePort& port : state.ports) {
    if (port.lid == 0) continue;
    int missing = 0;
    for (const StateSwitch& sw : state.switches) {
      if (!sw.read) continue;
      if (port.is_switch && port.port_guid == sw.guid) continue;  // its own LID: port 0
      if (Exit(sw.lft, port.lid) == kNoRoutePort) ++missing;
    }
    if (missing == 0) continue;
    ++*total;
    if (out.size() < kMaxReportRows) out.push_back({port.lid, port.name, missing});
  }
  return out;
}

}  // namespace

TableComparison CompareFabricStates(const FabricState& live, const FabricState& twin) {
  TableComparison out;
  const auto live_ports = ByGuid(live), twin_ports = ByGuid(twin);
  ComparePKeys(live_ports, twin_ports, out);
  CompareForwarding(live, twin, Destinations(live_ports, twin_ports), out);
  out.unreachable = Unreachable(twin, &out.unreachable_total);
  Unreachable(live, &out.unreachable_live);
  return out;
}

bool TwinReport::changed() const {
  return tables.pkey_changes_total > 0 || tables.entries_moved > 0 || engine_fallback() ||
         opensm.engine_used.empty() || opensm.default_partition_fallback || !opensm.partition_errors.empty() ||
         tables.unreachable_total > tables.unreachable_live || live_unread > 0 || twin_unread > 0;
}

namespace {

nlohmann::json EntriesJson(const std::set<uint16_t>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (uint16_t e : entries) out.push_back(FormatPKey(e));
  return out;
}

}  // namespace

nlohmann::json ToJson(const TwinReport& r) {
  const TableComparison& t = r.tables;
  nlohmann::json pkeys = nlohmann::json::array();
  for (const PKeyChange& c : t.pkey_changes)
    pkeys.push_back({{"guid", FormatGuid(c.guid)}, {"name", c.name}, {"lid", c.lid},
                     {"before", EntriesJson(c.before)}, {"after", EntriesJson(c.after)}});
  nlohmann::json switches = nlohmann::json::array();
  for (const ForwardingChange& c : t.forwarding_changes)
    switches.push_back({{"guid", FormatGuid(c.guid)}, {"name", c.name}, {"entries", c.entries}});
  nlohmann::json unreachable = nlohmann::json::array();
  for (const UnreachableLid& u : t.unreachable)
    unreachable.push_back({{"lid", u.lid}, {"name", u.name}, {"switches", u.switches}});
  nlohmann::json groups = nlohmann::json::array();
  for (const MulticastGroup& g : r.multicast_groups) groups.push_back(ToJson(g));
  return {
      {"changed", r.changed()},
      {"pkey_tables", {{"changed", t.pkey_changes_total}, {"compared", t.ports_compared}, {"ports", pkeys}}},
      {"forwarding",
       {{"switches_changed", t.switches_changed}, {"switches_compared", t.switches_compared},
        {"entries_moved", t.entries_moved}, {"entries_compared", t.entries_compared}, {"switches", switches},
        {"lid_changes", t.lid_changes}}},
      {"routing",
       {{"engine_asked", r.engine_asked}, {"engine_used", r.opensm.engine_used},
        {"fallback", r.engine_fallback()}, {"engines_failed", r.opensm.engines_failed},
        {"credit_loops", r.opensm.credit_loops}}},
      {"unreachable", {{"total", t.unreachable_total}, {"live", t.unreachable_live}, {"lids", unreachable}}},
      {"opensm", ToJson(r.opensm)},
      {"multicast_groups", groups},
      {"ports_only_live", t.only_live},
      {"ports_only_twin", t.only_twin},
      {"timings_ms",
       {{"read_topology", r.timings.read_topology_ms}, {"twin_start", r.timings.twin_start_ms},
        {"opensm_up", r.timings.opensm_up_ms}, {"read_back", r.timings.read_back_ms},
        {"total", r.timings.total_ms}}},
      {"notes", r.notes},
      {"unread", {{"live", r.live_unread}, {"twin", r.twin_unread}}}};
}

}  // namespace smsupd::twin
