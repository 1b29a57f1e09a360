// The directed-route walk behind Fabric::DiscoverPorts(), kept apart from
// the MAD I/O so that its logic is testable on a model subnet.
//
// The walk is breadth-first and level-synchronous: every SMP of one level
// (NodeInfo of the nodes one hop further, then their PortInfo and
// NodeDescription) goes to the SubnetReader as one batch, so a reader can
// keep many SMPs in flight (a 648-HCA fat tree needs ~5000 SMPs but only
// ~5 levels). Directed routes follow IBA 14.2.2: the initial path lists the
// port each node forwards the SMP out of, starting at the local node.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// "0,1,3,5" (the initial path as ibnetdiscover prints it, 0 first).
std::string FormatDirectedRoute(const DirectedRoute& route);

// A port of the node at the end of `route`.
struct PortAt {
  DirectedRoute route;
  int port = 0;
};

// Batched directed-route SMP reads. Each call returns one answer per
// request, in request order; an entry is an Error when that SMP got no
// answer. Implementations bound their own time per SMP.
class SubnetReader {
 public:
  virtual ~SubnetReader() = default;
  virtual std::vector<Result<NodeInfo>> ReadNodeInfo(const std::vector<DirectedRoute>& routes) = 0;
  virtual std::vector<Result<PortInfo>> ReadPortInfo(const std::vector<PortAt>& ports) = 0;
  virtual std::vector<Result<std::string>> ReadNodeDescription(
      const std::vector<DirectedRoute>& routes) = 0;
};

struct SubnetWalkStats {
  int levels = 0;
  int smps = 0;          // SMPs asked for
  int unanswered = 0;    // of which got no answer (nodes or ports left out)
};

// Walks the subnet from the local node and returns its end ports sorted by
// port GUID. Switches are walked through every port whose link is at least
// Init; CAs and routers are leaves (only the local CA is left, through its
// own port). Fails if the local node does not answer or `deadline` passes
// between two levels.
Result<std::vector<DiscoveredPort>> WalkSubnet(SubnetReader& reader,
                                               std::chrono::steady_clock::time_point deadline,
                                               SubnetWalkStats* stats = nullptr);

// The same walk, keeping every node, every port it read (with PortInfo) and
// the links it crossed. A link is seen from its far end's NodeInfo
// (LocalPortNum), so a link between two switches is found from both sides
// and a down link not at all. Nodes and ports that did not answer are listed
// in `unread`.
Result<FabricTopology> WalkTopology(SubnetReader& reader, std::chrono::steady_clock::time_point deadline,
                                    SubnetWalkStats* stats = nullptr);

}  // namespace smsupd
