// SMP queries of the test-bed probe, done with libibmad from the node the
// probe runs on. Targets are LID-routed ("5") or directed routes
// ("dr:0,1,3": libibmad's str2drpath form; "dr:0" is the probe's own port).
// Every query is bounded by the port's MAD timeout and retry count; the
// library side adds its own deadline because umad2sim may never time out a
// MAD that the simulator dropped.
#pragma once

#include <infiniband/mad.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace smsupd::testbed::probe {

struct Target {
  ib_portid_t portid{};
  std::string text;
};

Result<Target> ParseTarget(const std::string& text);
// The directed route that extends `base` (a "dr:" target) by one hop out of `port`.
Target ExtendRoute(const Target& base, int port);

struct NodeReading {
  int type = 0;  // IB NodeType: 1 CA, 2 switch, 3 router
  int ports = 0;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  int local_port = 0;  // the port the query entered by
  int partition_cap = 0;
  std::string description;
};

struct PortReading {
  int lid = 0;
  int sm_lid = 0;
  int state = 0;  // 1 Down, 2 Init, 3 Armed, 4 Active
  int phys_state = 0;
  int lmc = 0;
  uint32_t capability_mask = 0;
};

struct SmInfoReading {
  uint64_t guid = 0;
  uint64_t sm_key = 0;
  uint32_t act_count = 0;
  int priority = 0;
  int state = 0;  // 0 NOTACTIVE, 1 DISCOVERING, 2 STANDBY, 3 MASTER
};

class MadQueries {
 public:
  // Opens the first umad port (under umad2sim: the SIM_HOST node's port).
  static Result<MadQueries> Open(int timeout_ms, int retries);

  Result<NodeReading> NodeInfo(const Target& target, bool with_description = false);
  Result<PortReading> PortInfo(const Target& target, int port);
  Result<SmInfoReading> SmInfo(const Target& target);
  // Every non-zero entry of the P_Key table of `port` (0 = a switch's
  // management port), all blocks, full-membership bit included.
  Result<std::vector<uint16_t>> PKeys(const Target& target, int port);
  // SubnSet(SMInfo) with AttributeModifier HANDOVER, as a MASTER with
  // `master_guid` and `priority` would send it: a STANDBY OpenSM becomes
  // MASTER at once (the bench's floor).
  Status Handover(const Target& target, uint64_t master_guid, int priority);
  // SubnAdmGet(PathRecord) from this port (GUID `own_guid`) to the port
  // `dest_guid`, asked of the SA at LID `sm_lid`: the path's DLID. An
  // OpenSM's SA drops every query until its first sweep as master is over,
  // so the first answer says that a new master serves paths.
  Result<int> PathRecord(int sm_lid, uint64_t own_guid, uint64_t dest_guid);

 private:
  explicit MadQueries(ibmad_port* port) : port_(port) {}
  Status Query(uint8_t* buf, const Target& target, unsigned attr, unsigned mod, const char* what);

  ibmad_port* port_;
};

}  // namespace smsupd::testbed::probe
