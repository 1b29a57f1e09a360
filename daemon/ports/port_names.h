// The names smsupd shows for nodes and ports of the fabric, in one place so
// every output agrees (docs/answers.md "Names"): the cabling's name of a node
// GUID first (switches get names there), then the inventory host that owns
// one of the node's port GUIDs, then the node's NodeDescription, then its
// GUID. A port is its node's name, with " port N" for a switch port and for
// a CA whose ports are not all one host's single port.
#pragma once

#include <map>
#include <string>

#include "common/guid.h"
#include "config/config.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

class PortNames {
 public:
  PortNames() = default;
  PortNames(const config::Config& config, const FabricTopology& topology);

  // The node's name (never empty: the GUID when nothing better is known).
  std::string Node(Guid node_guid) const;
  // The port's name: "gpu01", "leaf01 port 7".
  std::string Port(Guid node_guid, int port) const;
  // The inventory host of a port GUID, or "".
  std::string HostOfPort(Guid port_guid) const;
  // True when the name comes from the config (cabling or hosts).
  bool Declared(Guid node_guid) const;

 private:
  std::map<Guid, std::string> declared_;      // node GUID -> cabling or host name
  std::map<Guid, std::string> descriptions_;  // node GUID -> NodeDescription
  std::map<Guid, std::string> port_hosts_;    // port GUID -> host
  std::map<Guid, NodeType> types_;
  std::map<Guid, int> num_ports_;
  std::map<Guid, int> host_ports_;            // node GUID -> ports of it the inventory names
};

}  // namespace smsupd
