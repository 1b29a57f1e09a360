#include "daemon/fabric/subnet_walk.h"

#include <algorithm>
#include <set>
#include <utility>

namespace smsupd {
namespace {

// A node the walk reached for the first time, and how.
struct Visit {
  DirectedRoute route;
  NodeInfo node;
  bool local = false;
};

DirectedRoute Extend(const DirectedRoute& route, int port) {
  DirectedRoute next = route;
  next.push_back(static_cast<uint8_t>(port));
  return next;
}

// One walk: the nodes and end ports seen so far, and the rows found.
class Walk {
 public:
  Walk(SubnetReader& reader, SubnetWalkStats& stats) : reader_(reader), stats_(stats) {}

  Status Run(std::chrono::steady_clock::time_point deadline) {
    std::vector<DirectedRoute> frontier{DirectedRoute{}};
    while (!frontier.empty()) {
      Result<std::vector<Visit>> visits = Identify(frontier);
      if (!visits) return Error{visits.error().message};
      frontier = Describe(*visits);
      ++stats_.levels;
      // Checked after a level too: a reader that ran out of time mid-level
      // returns errors, which would otherwise pass for an incomplete fabric.
      if (std::chrono::steady_clock::now() > deadline) {
        return Error{"port discovery ran out of time after " + std::to_string(stats_.levels) +
                     " levels (" + std::to_string(ports_.size()) + " end ports found)"};
      }
    }
    return Status::Ok();
  }

  std::vector<DiscoveredPort> TakePorts() {
    std::sort(ports_.begin(), ports_.end(),
              [](const DiscoveredPort& a, const DiscoveredPort& b) { return a.port_guid < b.port_guid; });
    return std::move(ports_);
  }

 private:
  // NodeInfo of every route; keeps the nodes (switches by node GUID) and
  // end ports (by port GUID) not seen before. A switch is reached once per
  // link into it, so most answers of a meshed fabric are repeats.
  Result<std::vector<Visit>> Identify(const std::vector<DirectedRoute>& routes) {
    std::vector<Result<NodeInfo>> infos = reader_.ReadNodeInfo(routes);
    stats_.smps += static_cast<int>(routes.size());
    std::vector<Visit> visits;
    for (size_t i = 0; i < routes.size() && i < infos.size(); ++i) {
      const bool local = routes[i].empty();
      if (!infos[i]) {
        if (local) return Error{"NodeInfo of the local node: " + infos[i].error().message};
        ++stats_.unanswered;
        continue;
      }
      const NodeInfo& node = *infos[i];
      bool is_new = node.type == NodeType::kSwitch ? seen_switches_.insert(node.node_guid).second
                                                   : seen_end_ports_.insert(node.port_guid).second;
      if (is_new) visits.push_back(Visit{routes[i], node, local});
    }
    return visits;
  }

  // The ports to read on a visited node: a switch's port 0 (the end port)
  // and every external port (to find links), or the CA/router port entered.
  static std::vector<int> PortsToRead(const NodeInfo& node) {
    if (node.type != NodeType::kSwitch) return {node.local_port};
    std::vector<int> ports;
    for (int port = 0; port <= node.num_ports; ++port) ports.push_back(port);
    return ports;
  }

  // Reads PortInfo and NodeDescription of the visited nodes, records their
  // end ports and returns the routes to the next level.
  std::vector<DirectedRoute> Describe(const std::vector<Visit>& visits) {
    std::vector<PortAt> requests;
    std::vector<DirectedRoute> routes;
    for (const Visit& visit : visits) {
      for (int port : PortsToRead(visit.node)) requests.push_back(PortAt{visit.route, port});
      routes.push_back(visit.route);
    }
    std::vector<Result<PortInfo>> port_infos = reader_.ReadPortInfo(requests);
    std::vector<Result<std::string>> descriptions = reader_.ReadNodeDescription(routes);
    stats_.smps += static_cast<int>(requests.size() + routes.size());
    port_infos.resize(requests.size(), Error{"no answer"});
    descriptions.resize(routes.size(), Error{"no answer"});

    std::vector<DirectedRoute> next;
    size_t at = 0;
    for (size_t v = 0; v < visits.size(); ++v) {
      const Visit& visit = visits[v];
      size_t count = PortsToRead(visit.node).size();
      std::vector<Result<PortInfo>> ports(port_infos.begin() + static_cast<long>(at),
                                          port_infos.begin() + static_cast<long>(at + count));
      at += count;
      Record(visit, ports.front(), descriptions[v]);
      Queue(visit, ports, next);
    }
    return next;
  }

  void Record(const Visit& visit, const Result<PortInfo>& port, const Result<std::string>& description) {
    // Without its PortInfo the port has no known LID: leave it out rather
    // than report LID 0, which Fabric queries read as the local port.
    if (!port) {
      ++stats_.unanswered;
      return;
    }
    if (!description) ++stats_.unanswered;
    const bool is_switch = visit.node.type == NodeType::kSwitch;
    DiscoveredPort row;
    row.port_guid = visit.node.port_guid;
    row.node_guid = visit.node.node_guid;
    row.node_type = visit.node.type;
    row.port_num = is_switch ? 0 : visit.node.local_port;
    row.lid = port->lid;
    row.node_description = description ? *description : "";
    row.is_sm = port->is_sm();
    row.hops = static_cast<int>(visit.route.size());
    ports_.push_back(std::move(row));
  }

  // Routes one hop further: out of every live external port of a switch
  // except the one the walk came in by, and out of the local CA's own port.
  // Remote CAs and routers are not forwarded through.
  void Queue(const Visit& visit, const std::vector<Result<PortInfo>>& ports,
             std::vector<DirectedRoute>& next) {
    if (visit.route.size() >= kMaxDirectedRouteHops) return;
    const bool is_switch = visit.node.type == NodeType::kSwitch;
    if (!is_switch && !visit.local) return;
    for (size_t i = is_switch ? 1 : 0; i < ports.size(); ++i) {
      int port = is_switch ? static_cast<int>(i) : visit.node.local_port;
      if (!ports[i] || ports[i]->port_state < kPortStateInit) continue;
      if (is_switch && !visit.local && port == visit.node.local_port) continue;
      next.push_back(Extend(visit.route, port));
    }
  }

  SubnetReader& reader_;
  SubnetWalkStats& stats_;
  std::set<Guid> seen_switches_;
  std::set<Guid> seen_end_ports_;
  std::vector<DiscoveredPort> ports_;
};

}  // namespace

std::string FormatDirectedRoute(const DirectedRoute& route) {
  std::string text = "0";
  for (uint8_t hop : route) text += "," + std::to_string(hop);
  return text;
}

Result<std::vector<DiscoveredPort>> WalkSubnet(SubnetReader& reader,
                                               std::chrono::steady_clock::time_point deadline,
                                               SubnetWalkStats* stats) {
  SubnetWalkStats local_stats;
  Walk walk(reader, stats ? *stats : local_stats);
  if (Status walked = walk.Run(deadline); !walked) return Error{walked.message()};
  return walk.TakePorts();
}

}  // namespace smsupd
