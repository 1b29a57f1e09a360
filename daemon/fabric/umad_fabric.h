// The real Fabric: SMPs and SA queries on one local CA port through
// libibumad (libibmad opens the port and encodes requests). Works the same on
// hardware and on ibsim through the umad2sim preload.
//
// Opening is lazy: the first call opens the port (and, under umad2sim,
// attaches the process to its simulated node, which blocks while no
// simulator listens). Make every call, the first included, on the MAD
// thread (MadWorker), whose watchdog bounds that wait for the caller.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "daemon/fabric/fabric.h"
#include "daemon/fabric/mad_transport.h"

struct ibmad_port;

namespace smsupd {

struct UmadFabricOptions {
  // The port to use; absent: the single Active (or link-up) local port.
  std::optional<Guid> port_guid;
  // Per-MAD timeout and attempts. The defaults answer within ~300 ms: a
  // healthy SM or HCA answers a MAD in well under a millisecond on an idle
  // fabric, and the master's liveness is polled every 100-250 ms. SA table
  // requests use `sa` instead: the SA may be busy in a heavy sweep.
  MadTimeouts smp{std::chrono::milliseconds(150), 2};
  MadTimeouts sa{std::chrono::milliseconds(500), 2};
  // ProbeSa(): one short try. An SA that is up answers at once; one that is
  // still in its first sweep ignores the request, and the probe is asked
  // again next round.
  MadTimeouts sa_probe{std::chrono::milliseconds(100), 1};
  // DiscoverPorts(): per-SMP timeout and attempts, SMPs in flight at once,
  // and the budget for the whole walk. A 700-node fabric needs ~5000 SMPs.
  // Measured on ibsim's 648-HCA fat tree (702 end ports): one SMP at a time
  // 263 ms, 8 in flight 150-350 ms, 32 ~150 ms, 64 ~105 ms. 32 keeps a real
  // switch's queue short (its SMA answers one SMP at a time, and a deep
  // queue only turns into timeouts).
  MadTimeouts discovery{std::chrono::milliseconds(100), 3};
  size_t discovery_window = 32;
  std::chrono::milliseconds discovery_budget{10000};
  // ReadPortCounters(): per-MAD timeout and attempts, and MADs in flight.
  // A port's PerfMgt agent answers from its own firmware; a few in flight
  // keep the read quick without queueing at any one switch.
  MadTimeouts counters{std::chrono::milliseconds(150), 2};
  size_t counters_window = 8;
};

class UmadFabric : public Fabric {
 public:
  explicit UmadFabric(UmadFabricOptions options);
  ~UmadFabric() override;
  UmadFabric(const UmadFabric&) = delete;
  UmadFabric& operator=(const UmadFabric&) = delete;

  // Opens the port if not yet open. Every call below does it on demand.
  Status Open();
  // The port chosen by Open() (valid after a successful Open()).
  const LocalPort& local_port() const { return local_; }

  Result<PortInfo> LocalPortInfo() override;
  Result<Guid> LocalPortGuid() override;
  Result<std::vector<LocalPort>> ActivePorts() override;
  Result<SmInfo> GetSmInfo(uint16_t lid) override;
  Result<PortInfo> GetPortInfo(uint16_t lid, int port) override;
  Result<NodeInfo> GetNodeInfo(uint16_t lid) override;
  Result<PortInfo> GetPortInfoByRoute(const DirectedRoute& route, int port) override;
  Result<NodeInfo> GetNodeInfoByRoute(const DirectedRoute& route) override;
  Result<std::vector<SmRecord>> GetSmInfoRecords() override;
  Status ProbeSa(uint16_t sm_lid) override;
  Result<std::vector<uint16_t>> GetPKeyTable(uint16_t lid, int port) override;
  Result<std::vector<uint8_t>> GetLinearForwardingTable(uint16_t lid) override;
  Status SendHandover(uint16_t target_lid, const SmInfo& local) override;
  Status ClearStaleSmFlag() override;
  Result<std::vector<DiscoveredPort>> DiscoverPorts() override;
  Result<FabricTopology> DiscoverTopology() override;
  std::vector<Result<PortCounters>> ReadPortCounters(const std::vector<CounterTarget>& targets) override;

 private:
  // SubnGet/SubnSet of one SMP attribute; `lid` 0 means the local port by
  // directed route. Returns the 64 bytes of attribute data.
  Result<std::vector<uint8_t>> Smp(int method, uint16_t lid, unsigned attr, unsigned mod,
                                   const uint8_t* payload, const std::string& what);
  // One SubnAdm request (no payload) to the SA at `lid`, with `transport`'s
  // timeouts. Returns the whole response MAD.
  Result<MadResponse> Sa(MadTransport& transport, int method, unsigned attr, uint16_t lid,
                         const std::string& what);
  Result<int> PKeyCapacity(uint16_t lid, int port, const NodeInfo& node);
  // When a single directed-route SMP read (smp timeouts) gives up.
  std::chrono::steady_clock::time_point SingleSmpDeadline() const;

  UmadFabricOptions options_;
  ibmad_port* port_ = nullptr;
  LocalPort local_;
  std::unique_ptr<MadTransport> smp_transport_;
  std::unique_ptr<MadTransport> sa_transport_;
  std::unique_ptr<MadTransport> sa_probe_transport_;
  std::unique_ptr<MadTransport> discovery_transport_;
  std::unique_ptr<MadTransport> counters_transport_;
};

}  // namespace smsupd
