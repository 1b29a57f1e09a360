// SubnetReader over one opened umad port: directed-route SMPs, pipelined
// through MadTransport::CallMany. Used by UmadFabric::DiscoverPorts().
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "daemon/fabric/mad_transport.h"
#include "daemon/fabric/subnet_walk.h"

namespace smsupd {

class UmadSubnetReader : public SubnetReader {
 public:
  // `agent`: the umad agent registered for the directed-route SMP class.
  // `window`: SMPs in flight at once. SMPs still unanswered at `deadline`
  // fail, so a walk of a silent fabric ends in time.
  UmadSubnetReader(MadTransport& transport, int agent, size_t window,
                   std::chrono::steady_clock::time_point deadline)
      : transport_(transport), agent_(agent), window_(window), deadline_(deadline) {}

  std::vector<Result<NodeInfo>> ReadNodeInfo(const std::vector<DirectedRoute>& routes) override;
  std::vector<Result<PortInfo>> ReadPortInfo(const std::vector<PortAt>& ports) override;
  std::vector<Result<std::string>> ReadNodeDescription(
      const std::vector<DirectedRoute>& routes) override;

 private:
  // SubnGet(`attribute`) at each target (AttributeModifier = its port);
  // one answer (the 64 bytes of attribute data) per target.
  std::vector<Result<std::vector<uint8_t>>> Get(unsigned attribute, const std::vector<PortAt>& targets,
                                                const char* what);

  MadTransport& transport_;
  int agent_;
  size_t window_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace smsupd
