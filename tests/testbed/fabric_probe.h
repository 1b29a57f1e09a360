// Ground-truth queries of a simulated fabric, done with libibmad by the test
// bed's own probe process (testbed-probe) running on one node. The probe is
// started once per fabric and kept alive: one umad client serves every query
// of a test (ibsim serves at most 10 clients). Every call has a deadline; a
// probe that misses one is killed and restarted on the next call, because a
// MAD the simulator dropped may never time out under umad2sim.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"
#include "tests/testbed/child_process.h"

namespace smsupd::testbed {

// IB SMInfo states (IBA 14.2.5.13).
enum class SmStateValue { kNotActive = 0, kDiscovering = 1, kStandby = 2, kMaster = 3 };
const char* SmStateText(int state);

struct SmInfoView {
  Guid guid = 0;
  uint64_t sm_key = 0;
  uint32_t act_count = 0;
  int priority = 0;
  int state = 0;
  bool is_master() const { return state == static_cast<int>(SmStateValue::kMaster); }
  bool is_standby() const { return state == static_cast<int>(SmStateValue::kStandby); }
};

struct PortInfoView {
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  int state = 0;  // 1 Down, 2 Init, 3 Armed, 4 Active
  int phys_state = 0;
  uint32_t capability_mask = 0;
};

struct NodeInfoView {
  int type = 0;  // 1 CA, 2 switch
  int ports = 0;
  Guid node_guid = 0;
  Guid port_guid = 0;
  int local_port = 0;
  int partition_cap = 0;
  std::string description;  // ibsim: the node's name in the net file
};

// A P_Key table as OpenSM programs it: 15-bit P_Key -> full member.
using PKeyTable = std::map<uint16_t, bool>;
PKeyTable ToPKeyTable(const std::vector<uint16_t>& raw_entries);

struct WalkedPort {
  NodeInfoView node;
  int port = 0;  // CA port, or 0 for a switch
  PortInfoView port_info;
  std::string route;  // directed route that reaches it ("dr:0,1,...")
  std::vector<uint16_t> raw_pkeys;  // only from DiscoverWithPKeys
};

class FabricProbe {
 public:
  // How to start a probe: the launcher runs testbed-probe on a node with
  // umad2sim preloaded and stdin/stdout piped.
  using Launcher = std::function<Result<std::unique_ptr<ChildProcess>>()>;

  explicit FabricProbe(Launcher launcher) : launcher_(std::move(launcher)) {}

  // Each query targets a LID (LID-routed SMP). Default deadline 5 s.
  Result<SmInfoView> SmInfo(uint16_t lid);
  Result<PortInfoView> PortInfo(uint16_t lid, int port);
  Result<NodeInfoView> NodeInfo(uint16_t lid);
  Result<std::vector<uint16_t>> RawPKeys(uint16_t lid, int port);
  Result<PKeyTable> PKeys(uint16_t lid, int port);
  // The probe node's own port (directed route "dr:0").
  Result<PortInfoView> LocalPortInfo();

  // Directed-route walk of the subnet (no LIDs or SA needed).
  Result<std::vector<WalkedPort>> Discover();
  Result<std::vector<WalkedPort>> DiscoverWithPKeys();
  // The SM LID every CA port holds, by port GUID.
  Result<std::map<Guid, uint16_t>> SmLidOfEveryCa();
  // The P_Key table of every CA port and every switch's port 0, by port GUID.
  Result<std::map<Guid, PKeyTable>> PKeysOfEveryPort();
  // Port GUID -> LID for every node port the walk reports.
  Result<std::map<Guid, uint16_t>> LidsByPortGuid();

  // Sends one request line (without id) and returns the JSON reply.
  Result<nlohmann::json> Call(const std::string& request, std::chrono::milliseconds deadline);

  pid_t pid() const { return child_ ? child_->pid() : -1; }
  void Stop() { child_.reset(); }

 private:
  Status EnsureStarted();
  Result<std::string> ReadLine(std::chrono::steady_clock::time_point deadline);

  Launcher launcher_;
  std::unique_ptr<ChildProcess> child_;
  std::string buffer_;
  long next_id_ = 1;
};

}  // namespace smsupd::testbed
