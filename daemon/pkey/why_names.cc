#include "daemon/pkey/why_names.h"

#include <algorithm>
#include <charconv>

#include "config/edit_distance.h"

namespace smsupd {

namespace {

const DiscoveredPort* FindGuid(const std::vector<DiscoveredPort>& ports, Guid guid) {
  auto it = std::lower_bound(ports.begin(), ports.end(), guid,
                             [](const DiscoveredPort& p, Guid g) { return p.port_guid < g; });
  if (it != ports.end() && it->port_guid == guid) return &*it;
  // The walk sorts its rows; a list that is not sorted is searched in full.
  for (const DiscoveredPort& p : ports)
    if (p.port_guid == guid) return &p;
  return nullptr;
}

std::string HostOf(Guid guid, const Inventory& hosts) {
  for (const auto& [host, guids] : hosts)
    if (std::find(guids.begin(), guids.end(), guid) != guids.end()) return host;
  return "";
}

void Add(NamedPorts& named, const DiscoveredPort& port) {
  if (named.ports.size() < kMaxWhyPortsPerName) named.ports.push_back(port);
  else ++named.cut;
}

std::vector<std::string> Suggestions(std::string_view name, const Inventory& hosts,
                                     const std::vector<DiscoveredPort>& ports) {
  std::vector<std::string> candidates;
  for (const auto& [host, guids] : hosts) candidates.push_back(host);
  for (const DiscoveredPort& port : ports) candidates.push_back(port.node_description);
  return config::ClosestNames(name, candidates, kMaxWhySuggestions);
}

}  // namespace

std::string PortDisplayName(const DiscoveredPort& port, const Inventory& hosts) {
  std::string host = HostOf(port.port_guid, hosts);
  if (!host.empty()) return host;
  return port.node_description.empty() ? FormatGuid(port.port_guid) : port.node_description;
}

std::variant<NamedPorts, UnknownName> ResolveWhyName(std::string_view name, const Inventory& hosts,
                                                     const std::vector<DiscoveredPort>& ports) {
  NamedPorts named;
  if (auto host = hosts.find(std::string(name)); host != hosts.end()) {
    named.name = host->first;
    for (Guid guid : host->second) {
      if (const DiscoveredPort* port = FindGuid(ports, guid)) Add(named, *port);
      else named.missing.push_back(guid);
    }
    return named;
  }
  for (const DiscoveredPort& port : ports)
    if (!port.node_description.empty() && port.node_description == name) Add(named, port);
  if (!named.ports.empty()) {
    named.name = PortDisplayName(named.ports.front(), hosts);
    return named;
  }
  if (auto guid = ParseGuid(name); guid && name.size() == 18) {
    std::string host = HostOf(*guid, hosts);
    named.name = host.empty() ? FormatGuid(*guid) : host;
    if (const DiscoveredPort* port = FindGuid(ports, *guid)) {
      Add(named, *port);
      named.name = PortDisplayName(*port, hosts);
      return named;
    }
    if (!host.empty()) {  // the inventory's, not discovered: an answer, not an error
      named.missing.push_back(*guid);
      return named;
    }
  }
  unsigned lid = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), lid);
  if (error == std::errc() && end == name.data() + name.size() && lid > 0 && lid < 0xc000) {
    for (const DiscoveredPort& port : ports)
      if (port.lid == lid) Add(named, port);
    if (!named.ports.empty()) {
      named.name = PortDisplayName(named.ports.front(), hosts);
      return named;
    }
  }
  return UnknownName{std::string(name), Suggestions(name, hosts, ports)};
}

}  // namespace smsupd
