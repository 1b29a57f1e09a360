#include "daemon/fabric/local_ports.h"

#include <endian.h>
#include <infiniband/umad.h>

#include <cstring>
#include <string>

namespace smsupd {
namespace {

// Kernels say "InfiniBand" or "Ethernet"; old kernels say nothing and
// umad2sim says "IB". Only an Ethernet (RoCE) port is left out.
bool IsInfiniBand(const umad_port_t& port) {
  return std::strcmp(port.link_layer, "Ethernet") != 0;
}

LocalPort ToLocalPort(const umad_port_t& port) {
  LocalPort out;
  out.ca_name = port.ca_name;
  out.port_num = port.portnum;
  out.port_guid = be64toh(port.port_guid);
  out.port_state = static_cast<int>(port.state);
  out.lid = static_cast<uint16_t>(port.base_lid);
  out.sm_lid = static_cast<uint16_t>(port.sm_lid);
  return out;
}

std::string Describe(const std::vector<LocalPort>& ports) {
  std::string text;
  for (const LocalPort& port : ports) {
    if (!text.empty()) text += ", ";
    text += port.ca_name + "/" + std::to_string(port.port_num) + " " +
            FormatGuid(port.port_guid) +
            (port.port_state == kPortStateActive ? " (Active)" : " (not Active)");
  }
  return text.empty() ? "none" : text;
}

}  // namespace

Result<std::vector<LocalPort>> ListLocalPorts() {
  if (umad_init() < 0) return Error{"cannot initialise libibumad"};
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  int count = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  if (count < 0) return Error{"cannot list InfiniBand devices"};
  std::vector<LocalPort> ports;
  for (int i = 0; i < count; ++i) {
    umad_ca_t ca;
    if (umad_get_ca(names[i], &ca) < 0) continue;  // vanished meanwhile
    for (umad_port_t* port : ca.ports) {
      if (port != nullptr && IsInfiniBand(*port)) ports.push_back(ToLocalPort(*port));
    }
    umad_release_ca(&ca);
  }
  return ports;
}

Result<LocalPort> ChooseLocalPort(const std::vector<LocalPort>& ports,
                                  std::optional<Guid> wanted) {
  if (wanted) {
    for (const LocalPort& port : ports) {
      if (port.port_guid == *wanted) return port;
    }
    return Error{"no local InfiniBand port has GUID " + FormatGuid(*wanted) +
                 "; local ports: " + Describe(ports)};
  }
  std::vector<LocalPort> active;
  std::vector<LocalPort> link_up;
  for (const LocalPort& port : ports) {
    if (port.port_state == kPortStateActive) active.push_back(port);
    if (port.port_state > kPortStateDown) link_up.push_back(port);
  }
  if (active.size() == 1) return active.front();
  if (active.empty() && link_up.size() == 1) return link_up.front();
  std::string why = !active.empty() ? "several Active local InfiniBand ports"
                    : link_up.empty() ? "no local InfiniBand port has its link up"
                                      : "several local InfiniBand ports have their link up";
  return Error{why + ": set sm.port_guid to one of: " + Describe(ports)};
}

}  // namespace smsupd
