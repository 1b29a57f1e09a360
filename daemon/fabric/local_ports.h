// The local InfiniBand ports, read from libibumad (sysfs, or umad2sim's
// emulation of it): no MAD is sent, but under umad2sim the first call
// attaches the process to its simulated node and blocks while no simulator
// listens, so call it on the MAD thread like every other fabric call.
#pragma once

#include <optional>
#include <vector>

#include "common/guid.h"
#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// Every port of every local CA whose link layer is InfiniBand (RDMA over
// Ethernet ports are left out: OpenSM must never bind one, docs/opensm-behaviour.md "The guid
// option").
Result<std::vector<LocalPort>> ListLocalPorts();

// The port to use: the one whose GUID is `wanted` (any state). Without
// `wanted`: the single Active port; if none is Active (no SM has configured
// the subnet yet, so ports wait in Init), the single port whose link is up
// (state Init or Armed). An error names the choices when there are none or
// several, so the operator can set sm.port_guid.
Result<LocalPort> ChooseLocalPort(const std::vector<LocalPort>& ports,
                                  std::optional<Guid> wanted);

}  // namespace smsupd
