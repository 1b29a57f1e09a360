#include "tests/testbed/fabric_conditions.h"

#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr int kPortActive = 4;
// A walk of a big fabric costs thousands of SMPs: do not spin on it.
constexpr milliseconds kWalkInterval(100);
constexpr milliseconds kQueryInterval(20);

}  // namespace

Result<uint16_t> WaitForCaLid(FabricProbe& probe, const Topology& topology, const std::string& node,
                              milliseconds deadline) {
  const TopoNode* ca = topology.Find(node);
  if (ca == nullptr || ca->kind != NodeKind::kCa) return Error{"no HCA " + node};
  uint16_t lid = 0;
  Status s = WaitFor(
      "a LID on " + node,
      [&](std::string& why) {
        Result<std::map<Guid, uint16_t>> lids = probe.LidsByPortGuid();
        if (!lids) {
          why = lids.error().message;
          return false;
        }
        auto it = lids->find(ca->PortGuid(1));
        lid = it == lids->end() ? 0 : it->second;
        return lid != 0;
      },
      deadline, kWalkInterval);
  if (!s) return Error{s.message()};
  return lid;
}

Result<SmInfoView> WaitForSmState(FabricProbe& probe, uint16_t lid, SmStateValue state, milliseconds deadline) {
  SmInfoView seen;
  Status s = WaitFor(
      std::string("SM at LID ") + std::to_string(lid) + " to be " + SmStateText(static_cast<int>(state)),
      [&](std::string& why) {
        Result<SmInfoView> sm = probe.SmInfo(lid);
        if (!sm) {
          why = sm.error().message;
          return false;
        }
        seen = *sm;
        why = SmStateText(sm->state);
        return sm->state == static_cast<int>(state);
      },
      deadline, kQueryInterval);
  if (!s) return Error{s.message()};
  return seen;
}

std::string DescribeCaSmLidMismatch(FabricProbe& probe, const Topology& topology, uint16_t sm_lid) {
  Result<std::vector<WalkedPort>> walk = probe.Discover();
  if (!walk) return walk.error().message;
  std::map<Guid, const WalkedPort*> by_guid;
  for (const WalkedPort& port : *walk) by_guid[port.node.port_guid] = &port;
  const std::vector<const TopoNode*> cas = topology.Cas();
  size_t agreeing = 0;
  std::string example;
  for (const TopoNode* ca : cas) {
    auto it = by_guid.find(ca->PortGuid(1));
    if (it == by_guid.end()) {
      if (example.empty()) example = ca->name + " not reached";
      continue;
    }
    const PortInfoView& port = it->second->port_info;
    if (port.sm_lid == sm_lid && port.state == kPortActive) {
      ++agreeing;
    } else if (example.empty()) {
      example = ca->name + " has SM LID " + std::to_string(port.sm_lid) + ", port state " +
                std::to_string(port.state);
    }
  }
  if (agreeing == cas.size()) return "";
  return std::to_string(agreeing) + " of " + std::to_string(cas.size()) + " HCAs point at SM LID " +
         std::to_string(sm_lid) + "; " + example;
}

Status WaitForEveryCaSmLid(FabricProbe& probe, const Topology& topology, uint16_t sm_lid, milliseconds deadline) {
  return WaitFor(
      "every HCA to point at SM LID " + std::to_string(sm_lid),
      [&](std::string& why) {
        why = DescribeCaSmLidMismatch(probe, topology, sm_lid);
        return why.empty();
      },
      deadline, kWalkInterval);
}

}  // namespace smsupd::testbed
