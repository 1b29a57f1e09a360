#include "tests/testbed/probe/fabric_walk.h"

#include <deque>
#include <set>

namespace smsupd::testbed::probe {
namespace {

constexpr int kPortStateInit = 2;

struct Pending {
  Target target;
  bool is_local;
};

// Reads the port a walked node is reported by and, for switches, queues the
// neighbours behind every live port except the one the walk came in by.
Status VisitNode(MadQueries& mads, const Pending& at, WalkedNode& walked, std::deque<Pending>& queue) {
  const bool is_switch = walked.node.type == IB_NODE_SWITCH;
  walked.port = is_switch ? 0 : walked.node.local_port;
  Result<PortReading> port = mads.PortInfo(at.target, walked.port);
  if (!port) return Error{port.error().message};
  walked.port_info = *port;
  if (!is_switch) {
    // Walk out of our own HCA only; remote CAs are leaves of the walk.
    if (at.is_local) queue.push_back({ExtendRoute(at.target, walked.port), false});
    return Status::Ok();
  }
  for (int p = 1; p <= walked.node.ports; ++p) {
    if (p == walked.node.local_port && !at.is_local) continue;
    Result<PortReading> link = mads.PortInfo(at.target, p);
    if (!link) return Error{link.error().message};
    if (link->state >= kPortStateInit) queue.push_back({ExtendRoute(at.target, p), false});
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<WalkedNode>> WalkFabric(MadQueries& mads, bool with_pkeys) {
  Result<Target> self = ParseTarget("dr:0");
  if (!self) return self.error();
  std::deque<Pending> queue{{*self, true}};
  std::set<uint64_t> seen;
  std::vector<WalkedNode> out;
  while (!queue.empty()) {
    Pending at = queue.front();
    queue.pop_front();
    Result<NodeReading> node = mads.NodeInfo(at.target);
    if (!node) return node.error();
    // A switch answers with its port 0 GUID whichever port a query enters
    // by; a CA with the GUID of that port: each is reported once.
    if (!seen.insert(node->port_guid).second) continue;
    WalkedNode walked;
    walked.node = *node;
    walked.route = at.target.text;
    if (Status s = VisitNode(mads, at, walked, queue); !s) return Error{s.message()};
    if (with_pkeys) {
      Result<std::vector<uint16_t>> keys = mads.PKeys(at.target, walked.port);
      if (!keys) return keys.error();
      walked.pkeys = *keys;
    }
    out.push_back(std::move(walked));
  }
  return out;
}

}  // namespace smsupd::testbed::probe
