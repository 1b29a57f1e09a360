// The fabric as smsupd sees it: a few management queries (SMInfo, PortInfo,
// NodeInfo, P_Key tables, the SA's SMInfoRecords) and one command (SMInfo
// HANDOVER). The real implementation speaks libibmad/libibumad on the local
// port (umad_fabric.h); unit tests use tests/daemon/fabric/fake_fabric.h.
//
// Contract for every call:
// - it blocks the calling thread and returns within a bounded time set by the
//   implementation's MAD timeout and retries (UmadFabricOptions); a MAD that
//   gets no answer is an Error, never an exception. Run calls through
//   MadWorker (mad_worker.h), which adds a watchdog deadline on top, because
//   a simulated umad device may never time a dropped MAD out.
// - calls are not thread-safe: one thread (the MAD thread) makes them all.
// - LID 0 in a query means the local port, reached by directed route: it
//   works before the SM has given the port a LID (e.g. GetSmInfo(0) is the
//   local OpenSM's own SMInfo). SendHandover refuses LID 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "common/result.h"

namespace smsupd {

// SMInfo.SMState (IBA 14.2.5.13).
enum class SmState { kNotActive = 0, kDiscovering = 1, kStandby = 2, kMaster = 3 };

// "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER" (the names smctl prints).
const char* SmStateName(SmState state);

// SMInfo as an SM reports it. act_count counts the QP0 MADs that SM sent
// (our own polls raise it): a reply proves the SM process answers, not that
// it sweeps.
struct SmInfo {
  Guid guid = 0;
  uint64_t sm_key = 0;
  uint32_t act_count = 0;
  int priority = 0;  // 0..15
  SmState state = SmState::kNotActive;
};

// PortInfo.PortState values (IBA 14.2.5.6).
inline constexpr int kPortStateDown = 1;
inline constexpr int kPortStateInit = 2;
inline constexpr int kPortStateArmed = 3;
inline constexpr int kPortStateActive = 4;
// PortInfo.CapabilityMask bit IsSM: an SM runs behind this port.
inline constexpr uint32_t kCapabilityIsSm = 1u << 1;

struct PortInfo {
  uint16_t lid = 0;
  uint16_t sm_lid = 0;  // the LID of the master SM this port was told about
  int port_state = 0;   // 1 Down, 2 Init, 3 Armed, 4 Active
  int phys_state = 0;   // 1 Sleep, 2 Polling, 3 Disabled, 4 PortConfigurationTraining, 5 LinkUp
  int lmc = 0;
  uint32_t capability_mask = 0;
  int local_port = 0;  // PortInfo.LocalPortNum: the port the query arrived on
  Guid port_guid = 0;  // only from LocalPortInfo(); PortInfo itself has no GUID

  bool is_sm() const { return (capability_mask & kCapabilityIsSm) != 0; }
};

// NodeInfo.NodeType (IBA 14.2.5.3).
enum class NodeType { kUnknown = 0, kCa = 1, kSwitch = 2, kRouter = 3 };

struct NodeInfo {
  NodeType type = NodeType::kUnknown;
  int num_ports = 0;
  Guid node_guid = 0;
  Guid port_guid = 0;  // of the port the query arrived on
  int partition_cap = 0;
  int local_port = 0;
};

// One END port of the subnet, as a directed-route walk finds it: a CA port,
// a switch's management port 0 or a router port (IBA 14.2.5: only these have
// P_Key tables that partitions program). A multi-port CA gives one row per
// port the walk reached.
struct DiscoveredPort {
  Guid port_guid = 0;
  Guid node_guid = 0;
  NodeType node_type = NodeType::kUnknown;
  int port_num = 0;  // 0 for a switch
  uint16_t lid = 0;  // PortInfo.LID (base LID); 0 before the SM assigned one
  std::string node_description;  // NodeDescription as printable text (common/printable_text.h)
  bool is_sm = false;            // PortInfo.CapabilityMask.IsSM
  int hops = 0;                  // length of the directed route the walk reached it by
};

// The CA port the walk reached by the longest route (ties: the highest port
// GUID), other than `local`: the far end of the fabric from this node, whose
// SM LID shows when the whole subnet knows a new master. nullopt if none has
// a LID.
std::optional<DiscoveredPort> FarthestCaPort(const std::vector<DiscoveredPort>& ports, Guid local);

// One row of the SA's SMInfoRecord table (SubnAdmGetTable, attribute 0x18).
struct SmRecord {
  uint16_t lid = 0;
  SmInfo info;
};

// A port of a local channel adapter (read from umad/sysfs, no MAD sent).
struct LocalPort {
  std::string ca_name;  // e.g. "mlx5_0" or "ibsim0"
  int port_num = 0;
  Guid port_guid = 0;
  int port_state = 0;  // as PortInfo.port_state
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
};

// Abstract fabric access. Every call is blocking with a bounded duration; see
// the contract at the top of this file.
class Fabric {
 public:
  virtual ~Fabric() = default;

  // PortInfo of the local port (the one the SM runs on), queried with a
  // directed-route SMP so it works before the port has a LID.
  virtual Result<PortInfo> LocalPortInfo() = 0;
  virtual Result<Guid> LocalPortGuid() = 0;
  // Every local CA port whose state is Active. The daemon uses it to pick
  // the port when sm.port_guid is not configured (exactly one, else it asks
  // the operator to choose).
  virtual Result<std::vector<LocalPort>> ActivePorts() = 0;

  // SubnGet(SMInfo) to the SM behind `lid`. An error means no SM answered:
  // the SM process is gone, or the node is (tell them apart with
  // GetPortInfo, which the HCA answers without an SM).
  virtual Result<SmInfo> GetSmInfo(uint16_t lid) = 0;
  // SubnGet(PortInfo) of `port` at `lid`; port 0 on a CA means "the port
  // that owns this LID", on a switch the management port.
  virtual Result<PortInfo> GetPortInfo(uint16_t lid, int port) = 0;
  virtual Result<NodeInfo> GetNodeInfo(uint16_t lid) = 0;
  // SubnAdmGetTable(SMInfoRecord) from the SA at the master SM's LID (as
  // the local port knows it): every SM the master knows of, itself included.
  // Not the whole truth: OpenSM 3.3.23 lists a remote SM only once a sweep
  // of its own found it, and on ibsim a standby started after the master
  // stayed missing for minutes (SIGHUP did not help). Keep polling the SMs
  // you know (GetSmInfo) rather than trusting this list alone. The SA's
  // records carry SM_Key 0 (it hides keys from untrusted requesters).
  virtual Result<std::vector<SmRecord>> GetSmInfoRecords() = 0;
  // The whole P_Key table of `port` at `lid` (every block up to the port's
  // partition capacity), in table order. Entries are raw: bit 15 set means
  // full membership, 0x0000 is an empty slot (kept, so indices are real).
  virtual Result<std::vector<uint16_t>> GetPKeyTable(uint16_t lid, int port) = 0;

  // Every end port of the subnet, found by a directed-route walk from the
  // local port (NodeInfo, PortInfo, NodeDescription SMPs, as ibnetdiscover
  // does): needs neither LIDs nor an SA, so it works at any fabric size and
  // before or without a master SM. Rows are sorted by port GUID. A node that
  // does not answer is left out with what lies behind it (a partial walk is
  // still useful to a verifier, which reports the ports it misses); the call
  // fails only when the local port cannot be read or the walk exceeds the
  // implementation's time budget (UmadFabricOptions::discovery_budget).
  virtual Result<std::vector<DiscoveredPort>> DiscoverPorts() = 0;

  // SubnSet(SMInfo) with AttributeModifier HANDOVER to the SM at
  // `target_lid`, carrying `local` as the sending (master) SM's SMInfo.
  // OpenSM accepts it only from a MASTER (the payload's state is always
  // sent as MASTER) and, if the target is STANDBY, becomes MASTER at once.
  //
  // RULE (docs/opensm-behaviour.md "SMInfo Set: HANDOVER and the GUID-0 trap"): never send an
  // SMInfo Set with GUID 0. A standby told GUID 0 polls GUID 0 for ever and never takes over.
  // `local.guid` must be the real port GUID of an SM; CheckSmInfoPayload() refuses 0, and every
  // implementation returns that error without sending anything. A target LID of 0 (ourselves) is
  // refused the same way.
  virtual Status SendHandover(uint16_t target_lid, const SmInfo& local) = 0;

  // Clears the IsSM capability bit an SM that died left on the local port,
  // by opening and closing the port's issm device (what the kernel does when
  // an SM process ends). Call only while no SM runs on the port: the device
  // is taken with O_NONBLOCK and left alone when an SM holds it. Why: an SM
  // that sweeps the subnet sends SubnGet(SMInfo) to every port with IsSM
  // set; the simulator keeps the bit of a killed OpenSM and drops those
  // requests unanswered, which hangs the new master's sweep. Default: no-op.
  virtual Status ClearStaleSmFlag() { return Status::Ok(); }
};

// The payload rule above, shared by every implementation: ok, or the reason
// the payload must not go on the wire.
Status CheckSmInfoPayload(const SmInfo& info);

}  // namespace smsupd
