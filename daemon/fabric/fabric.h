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

#include <cstddef>
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
  // The link's width and speed, as IBA 14.2.5.6 bit masks: widths 1 = 1x,
  // 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x; speeds 1 = SDR, 2 = DDR, 4 = QDR; the
  // extended speeds (used when LinkSpeedActive says so and the port sets
  // IsExtendedSpeedsSupported) 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR.
  int link_width_enabled = 0;
  int link_width_supported = 0;
  int link_width_active = 0;
  int link_speed_enabled = 0;
  int link_speed_supported = 0;
  int link_speed_active = 0;
  int link_speed_ext_enabled = 0;
  int link_speed_ext_supported = 0;
  int link_speed_ext_active = 0;

  bool is_sm() const { return (capability_mask & kCapabilityIsSm) != 0; }
};

// The exit ports of a directed route, from the local node on; empty = the
// local node itself. At most kMaxDirectedRouteHops entries.
using DirectedRoute = std::vector<uint8_t>;
// IBA 14.2.2.2: an initial path holds at most 63 hops.
inline constexpr size_t kMaxDirectedRouteHops = 63;

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
  // The directed route the walk reached it by. For a CA port its last hop
  // is the port of the switch (or, cabled back to back, of the local CA)
  // at the other end of its cable: that port's PortInfo, answered by the
  // switch itself, says whether the CA's link is up (LinkPeerPort).
  DirectedRoute route{};
};

// The port at the other end of the cable of the end port reached by
// `route` (non-empty): the node at route minus its last hop, and that hop.
struct LinkPeerPort {
  DirectedRoute node_route;
  int port = 0;
};
LinkPeerPort LinkPeerOf(const DirectedRoute& route);

// The CA port the walk reached by the longest route (ties: the highest port
// GUID), other than `local`: the far end of the fabric from this node, whose
// SM LID shows when the whole subnet knows a new master. nullopt if none has
// a LID.
std::optional<DiscoveredPort> FarthestCaPort(const std::vector<DiscoveredPort>& ports, Guid local);

// One port of a node the walk reached: every port of a switch (0 and each
// external port) and the port of a CA or router the walk entered by.
struct TopologyPort {
  Guid node_guid = 0;
  int port_num = 0;
  // The LID that addresses the port in LID-routed MADs (PerfMgt): a CA
  // port's own LID, a switch's LID (its port 0's) for every switch port.
  uint16_t lid = 0;
  PortInfo info;
  // The other end of the port's link, when the walk crossed it: its node
  // GUID and port number (0 = no link seen).
  Guid peer_node = 0;
  int peer_port = 0;
};

// A node the walk reached (switches and CA nodes once each, however many
// ports it entered them by).
struct TopologyNode {
  Guid node_guid = 0;
  NodeType type = NodeType::kUnknown;
  int num_ports = 0;
  std::string node_description;  // printable text (common/printable_text.h)
  int hops = 0;
};

// The subnet as one directed-route walk saw it: the end ports DiscoverPorts()
// returns, every node and port with its PortInfo, the links between them, and
// what did not answer (the walk never reports an unread port as healthy).
struct FabricTopology {
  std::vector<DiscoveredPort> end_ports;  // sorted by port GUID
  std::vector<TopologyNode> nodes;        // sorted by node GUID
  std::vector<TopologyPort> ports;        // sorted by node GUID, then port
  // One line for each node or port that did not answer, e.g. "node
  // 0x0002c9... (leaf01) port 7: PortInfo: no response". Bounded by
  // kMaxTopologyUnread lines; unread_total counts them all.
  std::vector<std::string> unread;
  int unread_total = 0;
  int smps = 0;
};
inline constexpr size_t kMaxTopologyUnread = 100;

// The highest unicast LID (IBA 4.1.3: 0x0001-0xBFFF) and the forwarding
// table's "no route" port.
inline constexpr uint16_t kMaxUnicastLid = 0xBFFF;
inline constexpr uint8_t kNoRoutePort = 255;

// PortCounters (PerfMgt attribute 0x12, IBA 16.1.3.5) of one port. The
// error counters saturate at their width's maximum (they never wrap).
struct PortCounters {
  uint64_t symbol_errors = 0;                  // SymbolErrorCounter
  uint64_t link_error_recovery = 0;            // LinkErrorRecoveryCounter
  uint64_t link_downed = 0;                    // LinkDownedCounter
  uint64_t rcv_errors = 0;                     // PortRcvErrors
  uint64_t rcv_remote_physical_errors = 0;     // PortRcvRemotePhysicalErrors
  uint64_t rcv_switch_relay_errors = 0;        // PortRcvSwitchRelayErrors
  uint64_t xmit_discards = 0;                  // PortXmitDiscards
  uint64_t xmit_constraint_errors = 0;         // PortXmitConstraintErrors
  uint64_t rcv_constraint_errors = 0;          // PortRcvConstraintErrors
  uint64_t local_link_integrity_errors = 0;    // LocalLinkIntegrityErrors
  uint64_t excessive_buffer_overrun_errors = 0;  // ExcessiveBufferOverrunErrors
  uint64_t vl15_dropped = 0;                   // VL15Dropped
  uint64_t xmit_wait = 0;                      // PortXmitWait
};

// A port whose PortCounters to read: the LID that addresses it and the
// port number (PortSelect).
struct CounterTarget {
  uint16_t lid = 0;
  int port = 0;
};

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
  // The same reads by directed route (IBA 14.2.2): PortInfo of `port` of
  // the node at the end of `route`, and that node's NodeInfo. They need no
  // LID and no forwarding table, and a switch answers them from its own
  // SMA however busy any SM is. Default: unsupported (an error).
  virtual Result<PortInfo> GetPortInfoByRoute(const DirectedRoute& route, int port) {
    (void)route;
    (void)port;
    return Error{"this fabric cannot read by directed route"};
  }
  virtual Result<NodeInfo> GetNodeInfoByRoute(const DirectedRoute& route) {
    (void)route;
    return Error{"this fabric cannot read by directed route"};
  }
  // SubnAdmGetTable(SMInfoRecord) from the SA at the master SM's LID (as
  // the local port knows it): every SM the master knows of, itself included.
  // Not the whole truth: OpenSM 3.3.23 lists a remote SM only once a sweep
  // of its own found it, and on ibsim a standby started after the master
  // stayed missing for minutes (SIGHUP did not help). Keep polling the SMs
  // you know (GetSmInfo) rather than trusting this list alone. The SA's
  // records carry SM_Key 0 (it hides keys from untrusted requesters).
  virtual Result<std::vector<SmRecord>> GetSmInfoRecords() = 0;
  // SubnAdmGet(ClassPortInfo) from the SA at `sm_lid`, one short try: Ok
  // when it answered. OpenSM's SA ignores every request while it is not
  // MASTER or its first heavy sweep as master is not over
  // (osm_sa_mad_ctrl.c), so an answer says that sweep has ended (cleanly or
  // in errors, after which OpenSM sweeps again at once). Default:
  // unsupported (an error).
  virtual Status ProbeSa(uint16_t sm_lid) {
    (void)sm_lid;
    return Error{"this fabric cannot ask the SA"};
  }
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
  // The same walk, with every port's PortInfo and the links between nodes
  // (no more SMPs than DiscoverPorts: the walk reads them anyway).
  virtual Result<FabricTopology> DiscoverTopology() { return Error{"this fabric cannot walk its topology"}; }
  // PortCounters of each target (PerfMgt Get over QP1, so the port needs a
  // LID), one answer per target in order; an entry is an Error when its
  // MAD got no answer. Keeps a few MADs in flight; the caller paces batches.
  virtual std::vector<Result<PortCounters>> ReadPortCounters(const std::vector<CounterTarget>& targets) {
    return std::vector<Result<PortCounters>>(targets.size(), Error{"this fabric cannot read PortCounters"});
  }

  // The linear forwarding table of the switch at `lid` (SwitchInfo's
  // LinearFDBTop, then every LinearForwardingTable block up to it, IBA
  // 14.2.5.10): entry i is the exit port for destination LID i; 255 means
  // no route. At most kMaxUnicastLid + 1 entries.
  virtual Result<std::vector<uint8_t>> GetLinearForwardingTable(uint16_t lid) {
    (void)lid;
    return Error{"this fabric cannot read forwarding tables"};
  }

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
