#include "daemon/failover/failover_watch.h"

#include <algorithm>
#include <map>

namespace smsupd {
namespace {

// Step 4: the SA's list corrected by first-hand answers. An SM that does not
// answer its own SMInfo is listed NOTACTIVE (the SA's row may be seconds old);
// one only we knew of and that does not answer is dropped.
std::optional<std::vector<SmRecord>> TakeInventory(Fabric& fabric, WatchRound& round,
                                                   const std::vector<uint16_t>& known,
                                                   bool discover, Guid route_wanted) {
  std::map<uint16_t, SmRecord> by_lid;
  bool from_sa = false;
  if (auto records = fabric.GetSmInfoRecords()) {
    from_sa = true;
    for (const SmRecord& r : *records) by_lid[r.lid] = r;
  }
  for (uint16_t lid : known)
    if (lid != 0 && !by_lid.contains(lid)) by_lid[lid] = SmRecord{lid, {}};
  if (discover) {
    if (auto ports = fabric.DiscoverPorts()) {
      round.far_port = FarthestCaPort(*ports, round.local_port ? round.local_port->port_guid : 0);
      round.sm_routes.emplace();
      for (const DiscoveredPort& port : *ports)
        if ((port.is_sm || port.port_guid == route_wanted) && !port.route.empty() &&
            round.sm_routes->size() < kMaxSmRoutes)
          round.sm_routes->push_back({port.port_guid, port.route});
      for (const DiscoveredPort& port : *ports)
        if (port.is_sm && port.lid != 0 && !by_lid.contains(port.lid))
          by_lid[port.lid] = SmRecord{port.lid, {}};
    }
  }
  const uint16_t local_lid = round.local_port ? round.local_port->lid : 0;
  std::vector<SmRecord> out;
  for (auto& [lid, record] : by_lid) {
    if (lid == local_lid) continue;  // the local SM is added below
    if (lid == round.master_lid && round.master) {
      record.info = *round.master;
    } else if (auto info = fabric.GetSmInfo(lid)) {
      record.info = *info;
    } else if (record.info.guid != 0) {
      record.info.state = SmState::kNotActive;
    } else {
      continue;
    }
    out.push_back(record);
  }
  if (round.local_sm && local_lid != 0) out.push_back({local_lid, *round.local_sm});
  if (!from_sa && out.empty()) return std::nullopt;
  return out;
}

// GetSmInfo(lid), with the time an answer took added to the round.
std::optional<SmInfo> PollSmInfo(Fabric& fabric, uint16_t lid, WatchRound& round) {
  const auto started = std::chrono::steady_clock::now();
  auto info = fabric.GetSmInfo(lid);
  if (!info) return std::nullopt;
  round.sminfo_poll_times.push_back(std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::steady_clock::now() - started));
  return *info;
}

// PortInfo of the port at the other end of the master's cable; true when it
// reads the link down.
bool ReadMasterLink(Fabric& fabric, const MasterLinkWatch& link, WatchRound& round) {
  const LinkPeerPort peer = LinkPeerOf(link.route);
  if (link.route.empty()) return false;
  auto info = fabric.GetPortInfoByRoute(peer.node_route, peer.port);
  if (!info) return false;
  round.master_link_port = *info;
  return LinkReadsDown(*info);
}

// The node GUID NodeInfo by `route` names; 0 without an answer.
Guid NodeGuidAt(Fabric& fabric, const DirectedRoute& route) {
  auto node = fabric.GetNodeInfoByRoute(route);
  return node ? node->node_guid : 0;
}

}  // namespace

bool LinkReadsDown(const PortInfo& port) {
  constexpr int kPhysStateLinkUp = 5;  // IBA 14.2.5.6 PortPhysicalState
  return port.port_state == kPortStateDown ||
         (port.phys_state != 0 && port.phys_state != kPhysStateLinkUp);
}

WatchRound RunWatchRound(Fabric& fabric, const WatchRequest& request) {
  WatchRound round;
  auto port = fabric.LocalPortInfo();
  if (!port) {
    round.port_error = port.error().message;
    return round;
  }
  round.local_port = *port;
  round.local_sm = PollSmInfo(fabric, 0, round);
  if (port->sm_lid != 0 && port->sm_lid != port->lid) {
    round.master_lid = port->sm_lid;
    const MasterLinkWatch* link =
        request.master_link && request.master_link->master_lid == port->sm_lid ? &*request.master_link : nullptr;
    const bool link_down = link && ReadMasterLink(fabric, *link, round);
    if (link_down && link->trusted) {
      round.master_link_switch = NodeGuidAt(fabric, LinkPeerOf(link->route).node_route);
      round.master_link_down = *round.master_link_switch == link->switch_guid;
    }
    if (round.master_link_down) {
      // The master's cable is dead: no SMInfo poll to wait out.
    } else if (auto master = PollSmInfo(fabric, port->sm_lid, round)) {
      round.master = *master;
      if (request.probe_sa) round.master_sa_answers = fabric.ProbeSa(port->sm_lid).ok();
      if (link && link->verify) {
        auto end = fabric.GetNodeInfoByRoute(link->route);
        round.master_link_end = end ? end->port_guid : 0;
        round.master_link_switch = NodeGuidAt(fabric, LinkPeerOf(link->route).node_route);
      }
    } else {
      round.master_port_answers = fabric.GetPortInfo(port->sm_lid, 0).ok();
    }
  }
  if (!request.inventory && port->sm_lid != 0 && port->sm_lid == port->lid) {
    for (uint16_t lid : request.standby_lids) {
      if (round.standbys.size() >= kMaxStandbyPolls) break;
      if (lid == 0 || lid == port->lid) continue;
      if (auto info = fabric.GetSmInfo(lid)) round.standbys.push_back({lid, *info});
    }
  }
  const bool master_healthy = round.master_lid == 0 || round.master.has_value();
  const bool sa_reachable = port->port_state == kPortStateActive && port->sm_lid != 0;
  // An SA that did not answer the probe would hold the MAD thread for the
  // table request's whole timeout (the new master is still in its first
  // sweep): the inventory (the table and the direct reads of known SMs)
  // waits for a round it answers in.
  if (request.inventory && master_healthy && sa_reachable && round.master_sa_answers != false) {
    round.sms = TakeInventory(fabric, round, request.known_sm_lids, request.discover, request.route_wanted);
  }
  return round;
}

}  // namespace smsupd
