// A directed-route walk of the whole subnet from the probe's port, the way
// an SM discovers it: works before any LID is assigned and does not trust
// the SA. Each switch is reported once (port 0), and each CA port reached
// through a link once, entered by that port.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "tests/testbed/probe/mad_queries.h"

namespace smsupd::testbed::probe {

struct WalkedNode {
  NodeReading node;
  int port = 0;  // the CA port entered by, or 0 for a switch
  PortReading port_info;
  std::string route;  // "dr:..." target that reaches it
  std::vector<uint16_t> pkeys;  // filled only when asked for
};

// Walks every node reachable through ports in state Init or above. With
// `with_pkeys`, also reads the P_Key table of each node's reported port.
Result<std::vector<WalkedNode>> WalkFabric(MadQueries& mads, bool with_pkeys);

}  // namespace smsupd::testbed::probe
