#include "tests/testbed/probe/mad_queries.h"

#include <arpa/inet.h>

#include <cstring>

namespace smsupd::testbed::probe {

Result<Target> ParseTarget(const std::string& text) {
  Target target;
  target.text = text;
  if (text.rfind("dr:", 0) == 0) {
    std::string route = text.substr(3);
    if (str2drpath(&target.portid.drpath, route.data(), 0, 0) < 0) return Error{"bad directed route " + text};
    target.portid.lid = 0;
    return target;
  }
  char* end = nullptr;
  long lid = std::strtol(text.c_str(), &end, 0);
  if (text.empty() || *end != '\0' || lid <= 0 || lid >= 0xc000) return Error{"bad unicast LID " + text};
  ib_portid_set(&target.portid, static_cast<int>(lid), 0, 0);
  return target;
}

Target ExtendRoute(const Target& base, int port) {
  Target next = base;
  next.portid.drpath.cnt++;
  next.portid.drpath.p[next.portid.drpath.cnt] = static_cast<uint8_t>(port);
  next.text = base.text + "," + std::to_string(port);
  return next;
}

Result<MadQueries> MadQueries::Open(int timeout_ms, int retries) {
  int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS};
  ibmad_port* port = mad_rpc_open_port(nullptr, 0, classes, 3);
  if (port == nullptr) return Error{"cannot open the umad port"};
  mad_rpc_set_timeout(port, timeout_ms);
  mad_rpc_set_retries(port, retries);
  return MadQueries(port);
}

Status MadQueries::Query(uint8_t* buf, const Target& target, unsigned attr, unsigned mod, const char* what) {
  std::memset(buf, 0, IB_SMP_DATA_SIZE);
  ib_portid_t portid = target.portid;
  if (smp_query_via(buf, &portid, attr, mod, 0, port_) == nullptr) {
    return Error{std::string(what) + " of " + target.text + " failed (no reply)"};
  }
  return Status::Ok();
}

Result<NodeReading> MadQueries::NodeInfo(const Target& target, bool with_description) {
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (Status s = Query(buf, target, IB_ATTR_NODE_INFO, 0, "NodeInfo"); !s) return Error{s.message()};
  NodeReading node;
  mad_decode_field(buf, IB_NODE_TYPE_F, &node.type);
  mad_decode_field(buf, IB_NODE_NPORTS_F, &node.ports);
  mad_decode_field(buf, IB_NODE_GUID_F, &node.node_guid);
  mad_decode_field(buf, IB_NODE_PORT_GUID_F, &node.port_guid);
  mad_decode_field(buf, IB_NODE_LOCAL_PORT_F, &node.local_port);
  mad_decode_field(buf, IB_NODE_PARTITION_CAP_F, &node.partition_cap);
  if (with_description && Query(buf, target, IB_ATTR_NODE_DESC, 0, "NodeDescription")) {
    node.description.assign(reinterpret_cast<const char*>(buf), strnlen(reinterpret_cast<const char*>(buf), 64));
  }
  return node;
}

Result<PortReading> MadQueries::PortInfo(const Target& target, int port) {
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (Status s = Query(buf, target, IB_ATTR_PORT_INFO, static_cast<unsigned>(port), "PortInfo"); !s) {
    return Error{s.message()};
  }
  PortReading reading;
  mad_decode_field(buf, IB_PORT_LID_F, &reading.lid);
  mad_decode_field(buf, IB_PORT_SMLID_F, &reading.sm_lid);
  mad_decode_field(buf, IB_PORT_STATE_F, &reading.state);
  mad_decode_field(buf, IB_PORT_PHYS_STATE_F, &reading.phys_state);
  mad_decode_field(buf, IB_PORT_LMC_F, &reading.lmc);
  mad_decode_field(buf, IB_PORT_CAPMASK_F, &reading.capability_mask);
  return reading;
}

Result<SmInfoReading> MadQueries::SmInfo(const Target& target) {
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (Status s = Query(buf, target, IB_ATTR_SMINFO, 0, "SMInfo"); !s) return Error{s.message()};
  SmInfoReading sm;
  mad_decode_field(buf, IB_SMINFO_GUID_F, &sm.guid);
  mad_decode_field(buf, IB_SMINFO_KEY_F, &sm.sm_key);
  mad_decode_field(buf, IB_SMINFO_ACT_F, &sm.act_count);
  mad_decode_field(buf, IB_SMINFO_PRIO_F, &sm.priority);
  mad_decode_field(buf, IB_SMINFO_STATE_F, &sm.state);
  return sm;
}

Status MadQueries::Handover(const Target& target, uint64_t master_guid, int priority) {
  constexpr unsigned kHandover = 1;  // SMInfo AttributeModifier
  constexpr int kMaster = 3;
  uint8_t buf[IB_SMP_DATA_SIZE] = {};
  mad_encode_field(buf, IB_SMINFO_GUID_F, &master_guid);
  mad_encode_field(buf, IB_SMINFO_PRIO_F, &priority);
  int state = kMaster;
  mad_encode_field(buf, IB_SMINFO_STATE_F, &state);
  ib_portid_t portid = target.portid;
  if (smp_set_via(buf, &portid, IB_ATTR_SMINFO, kHandover, 0, port_) == nullptr)
    return Error{"SMInfo HANDOVER to " + target.text + " failed (no reply)"};
  return Status::Ok();
}

Result<std::vector<uint16_t>> MadQueries::PKeys(const Target& target, int port) {
  Result<NodeReading> node = NodeInfo(target);
  if (!node) return node.error();
  int capacity = node->partition_cap;
  uint8_t buf[IB_SMP_DATA_SIZE];
  if (node->type == IB_NODE_SWITCH && port != 0) {
    // External switch ports size their table by PartitionEnforcementCap.
    if (Status s = Query(buf, target, IB_ATTR_SWITCH_INFO, 0, "SwitchInfo"); !s) return Error{s.message()};
    mad_decode_field(buf, IB_SW_PARTITION_ENFORCE_CAP_F, &capacity);
  }
  std::vector<uint16_t> keys;
  for (int block = 0; block * 32 < capacity; ++block) {
    unsigned mod = static_cast<unsigned>(block) | (static_cast<unsigned>(port) << 16);
    if (Status s = Query(buf, target, IB_ATTR_PKEY_TBL, mod, "P_Key table"); !s) return Error{s.message()};
    for (int i = 0; i < 32 && block * 32 + i < capacity; ++i) {
      uint16_t be = 0;
      std::memcpy(&be, buf + 2 * i, 2);
      if (uint16_t key = ntohs(be); key != 0) keys.push_back(key);
    }
  }
  return keys;
}

namespace {

// A port GID of the default subnet prefix (fe80::/64) and `guid`, network order.
void DefaultGid(uint64_t guid, ibmad_gid_t gid) {
  constexpr uint64_t kDefaultPrefix = 0xfe80000000000000ull;
  for (int i = 0; i < 8; ++i) {
    gid[i] = static_cast<uint8_t>(kDefaultPrefix >> (56 - 8 * i));
    gid[8 + i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  }
}

}  // namespace

Result<int> MadQueries::PathRecord(int sm_lid, uint64_t own_guid, uint64_t dest_guid) {
  ibmad_gid_t source{};
  ibmad_gid_t dest{};
  DefaultGid(own_guid, source);
  DefaultGid(dest_guid, dest);
  ib_portid_t sa{};
  sa.lid = sm_lid;
  uint8_t buf[IB_MAD_SIZE] = {};  // the answer's data, at most IB_SA_DATA_SIZE
  const int dlid = ib_path_query_via(port_, source, dest, &sa, buf);
  if (dlid <= 0) return Error{"PathRecord from the SA at LID " + std::to_string(sm_lid) + " failed (no answer)"};
  return dlid;
}

}  // namespace smsupd::testbed::probe
