#include "daemon/fabric/fabric.h"

namespace smsupd {

const char* SmStateName(SmState state) {
  switch (state) {
    case SmState::kNotActive:
      return "NOTACTIVE";
    case SmState::kDiscovering:
      return "DISCOVERING";
    case SmState::kStandby:
      return "STANDBY";
    case SmState::kMaster:
      return "MASTER";
  }
  return "UNKNOWN";
}

std::optional<DiscoveredPort> FarthestCaPort(const std::vector<DiscoveredPort>& ports, Guid local) {
  std::optional<DiscoveredPort> far;
  for (const DiscoveredPort& port : ports) {
    if (port.node_type != NodeType::kCa || port.port_guid == local || port.lid == 0) continue;
    if (!far || port.hops > far->hops || (port.hops == far->hops && port.port_guid > far->port_guid)) far = port;
  }
  return far;
}

LinkPeerPort LinkPeerOf(const DirectedRoute& route) {
  if (route.empty()) return {};
  return LinkPeerPort{DirectedRoute(route.begin(), route.end() - 1), route.back()};
}

Status CheckSmInfoPayload(const SmInfo& info) {
  if (info.guid == 0) {
    return Error{"refusing to send SMInfo with GUID 0: a standby would poll "
                 "GUID 0 for ever and never take over"};
  }
  if (info.priority < 0 || info.priority > 15) {
    return Error{"SMInfo priority " + std::to_string(info.priority) +
                 " is outside 0..15"};
  }
  return Status::Ok();
}

}  // namespace smsupd
