// Random valid configs over a small fixed fabric, for property tests (unit:
// rendered file + OpenSM model; integration: rendered file + real OpenSM).
// Every case is reproducible from its seed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/pkey_tables.h"

namespace smsupd::config::testing {

struct TestNode {
  std::string name;  // ibsim node name
  bool is_switch = false;
  Guid node_guid = 0;
  int ports = 1;  // HCA ports; a switch is one end port (port 0)
  // ibsim: an HCA port GUID is node GUID + port number; a switch port 0 has the node GUID.
  Guid PortGuid(int port) const { return is_switch ? node_guid : node_guid + port; }
};

// One switch "sw1" and eight HCAs "H1".."H8"; H5..H8 have two ports. The SM
// runs on H1 port 1.
std::vector<TestNode> TestFabricNodes();
std::vector<FabricPort> TestFabricPorts(const std::vector<TestNode>& nodes, Guid sm_port);

struct RandomCase {
  std::uint64_t seed = 0;
  std::string yaml;
};

// A valid smsupd.yaml (sm.port_guid = `sm_port`) with hosts for most HCAs,
// groups (some nested), 1..6 partitions (P_Keys below 0x7000, Default apart)
// with random flags and members of
// every selector kind and membership, sometimes no Default partition, and
// GUIDs that are not in the fabric.
RandomCase RandomConfig(const std::vector<TestNode>& nodes, Guid sm_port, std::uint64_t seed);

}  // namespace smsupd::config::testing
