// The live subnet, as one walk saw it, written for the simulator: an
// ibnetdiscover-form net file ibsim loads, OpenSM's guid2lid file that
// gives every port its live LID, the simulated node this node's port is on,
// and ibsim's table sizes. Pure: tests check the text.
//
// What the net file keeps: every node and link the walk saw, node
// descriptions (printable, at most 63 bytes, '"' replaced: ibsim's limits),
// each link's active width and speed. What ibsim cannot carry: CA port
// GUIDs that are not node GUID + port number (ibsim derives them so); the
// twin then uses node GUID = port GUID - port number, so port GUIDs, which
// partitions.conf names, stay the live ones, and `guid_mismatches` counts
// the ports of a CA whose GUIDs do not follow that rule (they get other
// GUIDs in the twin; docs/twin.md).
#pragma once

#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd::twin {

// ibsim's built-in limits (sim.h) and its line length; bigger topologies
// need its -N / -S / -P options, which the twin passes.
inline constexpr int kIbsimDefaultNodes = 2048;
inline constexpr int kIbsimDefaultSwitches = 256;
inline constexpr int kIbsimDefaultPorts = 256 * 36 + 2048 * 2;
inline constexpr std::size_t kIbsimMaxDescription = 63;
// Past this many nodes the twin refuses: ibsim keeps every node's tables in
// memory, and a walk this large is not a subnet smsupd supervises.
inline constexpr int kMaxTwinNodes = 65536;

struct TwinTopology {
  std::string net_file;   // ibsim -s
  std::string guid2lid;   // $OSM_CACHE_DIR/guid2lid
  std::string sim_host;   // SIM_HOST: the simulated node of the local port
  int nodes = 0, switches = 0, ports = 0;  // ibsim -N / -S / -P
  int guid_mismatches = 0;
  int links = 0;
};

// Fails when the walk holds no local port `local_port`, more nodes than
// kMaxTwinNodes, or more LIDs than the unicast range.
Result<TwinTopology> BuildTwinTopology(const FabricTopology& topology, Guid local_port);

// The simulator's name of a node ("S-0002c90300000a01", "H-..."): also the
// SIM_HOST of a program attached to it.
std::string TwinNodeId(NodeType type, Guid twin_node_guid);

}  // namespace smsupd::twin
