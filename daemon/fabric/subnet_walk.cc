#include "daemon/fabric/subnet_walk.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "common/guid.h"

namespace smsupd {
namespace {

// A route to try, and the port of the node before it that it leaves by
// (none for the local node).
struct Hop {
  DirectedRoute route;
  Guid from_node = 0;
  int from_port = 0;
};

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
    std::vector<Hop> frontier{Hop{}};
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

  FabricTopology Take() {
    FabricTopology topology;
    std::sort(ports_.begin(), ports_.end(),
              [](const DiscoveredPort& a, const DiscoveredPort& b) { return a.port_guid < b.port_guid; });
    topology.end_ports = std::move(ports_);
    for (auto& [guid, node] : nodes_) topology.nodes.push_back(std::move(node));
    for (auto& [key, port] : all_ports_) {
      auto link = links_.find(key);
      if (link != links_.end()) {
        port.peer_node = link->second.first;
        port.peer_port = link->second.second;
      }
      topology.ports.push_back(std::move(port));
    }
    topology.unread = std::move(unread_);
    topology.unread_total = unread_total_;
    topology.smps = stats_.smps;
    return topology;
  }

 private:
  // NodeInfo of every route; keeps the nodes (switches by node GUID) and
  // end ports (by port GUID) not seen before. A switch is reached once per
  // link into it, so most answers of a meshed fabric are repeats.
  // Every answer, repeat or not, is one end of a link: the port it left
  // the previous node by, and the port it arrived on (NodeInfo.LocalPortNum).
  Result<std::vector<Visit>> Identify(const std::vector<Hop>& hops) {
    std::vector<DirectedRoute> routes;
    routes.reserve(hops.size());
    for (const Hop& hop : hops) routes.push_back(hop.route);
    std::vector<Result<NodeInfo>> infos = reader_.ReadNodeInfo(routes);
    stats_.smps += static_cast<int>(routes.size());
    infos.resize(routes.size(), Error{"no answer"});
    std::vector<Visit> visits;
    for (size_t i = 0; i < routes.size(); ++i) {
      const bool local = routes[i].empty();
      if (!infos[i]) {
        if (local) return Error{"NodeInfo of the local node: " + infos[i].error().message};
        ++stats_.unanswered;
        Unread(hops[i].from_node, hops[i].from_port, "the node behind it did not answer NodeInfo");
        continue;
      }
      const NodeInfo& node = *infos[i];
      if (!local) Link(hops[i].from_node, hops[i].from_port, node.node_guid, node.local_port);
      bool is_new = node.type == NodeType::kSwitch ? seen_switches_.insert(node.node_guid).second
                                                   : seen_end_ports_.insert(node.port_guid).second;
      if (is_new) visits.push_back(Visit{routes[i], node, local});
    }
    return visits;
  }

  void Link(Guid a, int a_port, Guid b, int b_port) {
    links_[{a, a_port}] = {b, b_port};
    links_[{b, b_port}] = {a, a_port};
  }

  // One line for a node or port that did not answer (bounded).
  void Unread(Guid node, int port, const std::string& why) {
    ++unread_total_;
    if (unread_.size() >= kMaxTopologyUnread) return;
    std::string name = FormatGuid(node);
    auto it = nodes_.find(node);
    if (it != nodes_.end() && !it->second.node_description.empty())
      name = it->second.node_description + " (" + name + ")";
    unread_.push_back(name + " port " + std::to_string(port) + ": " + why);
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
  std::vector<Hop> Describe(const std::vector<Visit>& visits) {
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

    std::vector<Hop> next;
    size_t at = 0;
    for (size_t v = 0; v < visits.size(); ++v) {
      const Visit& visit = visits[v];
      size_t count = PortsToRead(visit.node).size();
      std::vector<Result<PortInfo>> ports(port_infos.begin() + static_cast<long>(at),
                                          port_infos.begin() + static_cast<long>(at + count));
      at += count;
      Record(visit, ports.front(), descriptions[v]);
      RecordNode(visit, ports, descriptions[v]);
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
    row.route = visit.route;
    ports_.push_back(std::move(row));
  }

  // The node and each port read on it, for the topology.
  void RecordNode(const Visit& visit, const std::vector<Result<PortInfo>>& ports,
                  const Result<std::string>& description) {
    const NodeInfo& info = visit.node;
    const bool is_switch = info.type == NodeType::kSwitch;
    TopologyNode& node = nodes_[info.node_guid];
    if (node.node_guid == 0) {
      node.node_guid = info.node_guid;
      node.type = info.type;
      node.num_ports = info.num_ports;
      node.hops = static_cast<int>(visit.route.size());
    }
    if (description) node.node_description = *description;
    // A switch's ports are addressed by its port 0's LID.
    const uint16_t switch_lid = is_switch && ports.front() ? ports.front()->lid : 0;
    for (size_t i = 0; i < ports.size(); ++i) {
      const int port_num = is_switch ? static_cast<int>(i) : info.local_port;
      if (!ports[i]) {
        Unread(info.node_guid, port_num, "PortInfo: " + ports[i].error().message);
        continue;
      }
      TopologyPort port;
      port.node_guid = info.node_guid;
      port.port_num = port_num;
      port.lid = is_switch ? switch_lid : ports[i]->lid;
      port.info = *ports[i];
      all_ports_[{info.node_guid, port_num}] = std::move(port);
    }
  }

  // Routes one hop further: out of every live external port of a switch
  // except the one the walk came in by, and out of the local CA's own port.
  // Remote CAs and routers are not forwarded through.
  void Queue(const Visit& visit, const std::vector<Result<PortInfo>>& ports,
             std::vector<Hop>& next) {
    if (visit.route.size() >= kMaxDirectedRouteHops) return;
    const bool is_switch = visit.node.type == NodeType::kSwitch;
    if (!is_switch && !visit.local) return;
    for (size_t i = is_switch ? 1 : 0; i < ports.size(); ++i) {
      int port = is_switch ? static_cast<int>(i) : visit.node.local_port;
      if (!ports[i] || ports[i]->port_state < kPortStateInit) continue;
      if (is_switch && !visit.local && port == visit.node.local_port) continue;
      next.push_back(Hop{Extend(visit.route, port), visit.node.node_guid, port});
    }
  }

  SubnetReader& reader_;
  SubnetWalkStats& stats_;
  std::set<Guid> seen_switches_;
  std::set<Guid> seen_end_ports_;
  std::vector<DiscoveredPort> ports_;
  std::map<Guid, TopologyNode> nodes_;
  std::map<std::pair<Guid, int>, TopologyPort> all_ports_;
  std::map<std::pair<Guid, int>, std::pair<Guid, int>> links_;
  std::vector<std::string> unread_;
  int unread_total_ = 0;
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
  Result<FabricTopology> topology = WalkTopology(reader, deadline, stats);
  if (!topology) return topology.error();
  return std::move(topology->end_ports);
}

Result<FabricTopology> WalkTopology(SubnetReader& reader, std::chrono::steady_clock::time_point deadline,
                                    SubnetWalkStats* stats) {
  SubnetWalkStats local_stats;
  Walk walk(reader, stats ? *stats : local_stats);
  if (Status walked = walk.Run(deadline); !walked) return Error{walked.message()};
  return walk.Take();
}

}  // namespace smsupd
