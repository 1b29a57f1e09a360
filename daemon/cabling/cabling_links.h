// The subnet walk's topology as the cabling check sees it: each link once,
// its ends named as every smsupd output names them (daemon/ports/port_names.h),
// and the ports the walk could not read, so that a cable behind one is never
// reported missing as if the walk had seen its port empty.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "config/cabling_check.h"
#include "daemon/fabric/fabric.h"
#include "daemon/ports/port_names.h"

namespace smsupd {

// Every link the walk crossed, once (a link between two switches is seen
// from both sides), with the rate either end reports as active.
std::vector<config::DiscoveredLink> LinksOf(const FabricTopology& topology, const PortNames& names);

// Where the walk could not tell what is plugged: (device name, port) of
// every switch port whose PortInfo did not answer, and of every live port
// whose neighbour did not answer NodeInfo.
std::set<std::pair<std::string, int>> UnreadPositions(const FabricTopology& topology, const PortNames& names);

// The names of every node the walk reached.
std::set<std::string> ReachedDevices(const FabricTopology& topology, const PortNames& names);

}  // namespace smsupd
