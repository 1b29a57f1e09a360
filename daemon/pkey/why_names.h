// How `smctl why` turns what an operator typed into end ports: an inventory
// host name (every port of the host), a NodeDescription (exact, every port
// the walk found with it), a port GUID (0x + 16 hex digits) or a LID
// (decimal, a port's base LID). Pure: the inventory and the walk's ports in.
// A host (or a host's GUID) the walk did not find is known, without ports;
// a GUID or LID neither the inventory nor the walk has is unknown.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/guid.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// The ports one name stands for that `why` considers (a host with more is
// cut to its first ones, and says so).
inline constexpr std::size_t kMaxWhyPortsPerName = 8;
// Suggestions given for an unknown name.
inline constexpr std::size_t kMaxWhySuggestions = 3;

struct NamedPorts {
  std::string name;                   // the name to print: the host, else the NodeDescription, else the GUID
  std::vector<DiscoveredPort> ports;  // found on the fabric (at most kMaxWhyPortsPerName)
  std::vector<Guid> missing;          // the inventory's GUIDs of the host not found
  std::size_t cut = 0;                // ports left out past kMaxWhyPortsPerName
};

struct UnknownName {
  std::string name;
  std::vector<std::string> suggestions;  // the closest host names and NodeDescriptions
};

using Inventory = std::map<std::string, std::vector<Guid>>;

std::variant<NamedPorts, UnknownName> ResolveWhyName(std::string_view name, const Inventory& hosts,
                                                     const std::vector<DiscoveredPort>& ports);

// The name a port is shown by: its inventory host, else its NodeDescription,
// else its GUID.
std::string PortDisplayName(const DiscoveredPort& port, const Inventory& hosts);

}  // namespace smsupd
