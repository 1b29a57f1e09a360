#include "daemon/fabric/mad_codec.h"

#include <infiniband/mad.h>

#include <cstring>

namespace smsupd {
namespace {

// libibmad's accessors take non-const buffers but only read through them.
uint32_t Field(const uint8_t* data, MAD_FIELDS field) {
  return mad_get_field(const_cast<uint8_t*>(data), 0, field);
}

uint64_t Field64(const uint8_t* data, MAD_FIELDS field) {
  return mad_get_field64(const_cast<uint8_t*>(data), 0, field);
}

// SMInfoRecord (IBA 15.2.5.13): LID (16 bits), 16 reserved bits, then the
// SMInfo attribute.
constexpr size_t kSmInfoRecordInfoOffset = 4;
constexpr size_t kSmInfoSize = 21;

}  // namespace

SmInfo DecodeSmInfo(const uint8_t* data) {
  SmInfo info;
  info.guid = Field64(data, IB_SMINFO_GUID_F);
  info.sm_key = Field64(data, IB_SMINFO_KEY_F);
  info.act_count = Field(data, IB_SMINFO_ACT_F);
  info.priority = static_cast<int>(Field(data, IB_SMINFO_PRIO_F));
  info.state = static_cast<SmState>(Field(data, IB_SMINFO_STATE_F) & 0x3);
  return info;
}

void EncodeSmInfo(const SmInfo& info, uint8_t* data) {
  std::memset(data, 0, kSmpDataSize);
  mad_set_field64(data, 0, IB_SMINFO_GUID_F, info.guid);
  mad_set_field64(data, 0, IB_SMINFO_KEY_F, info.sm_key);
  mad_set_field(data, 0, IB_SMINFO_ACT_F, info.act_count);
  mad_set_field(data, 0, IB_SMINFO_PRIO_F, static_cast<uint32_t>(info.priority) & 0xf);
  mad_set_field(data, 0, IB_SMINFO_STATE_F, static_cast<uint32_t>(info.state));
}

PortInfo DecodePortInfo(const uint8_t* data) {
  PortInfo info;
  info.lid = static_cast<uint16_t>(Field(data, IB_PORT_LID_F));
  info.sm_lid = static_cast<uint16_t>(Field(data, IB_PORT_SMLID_F));
  info.port_state = static_cast<int>(Field(data, IB_PORT_STATE_F));
  info.phys_state = static_cast<int>(Field(data, IB_PORT_PHYS_STATE_F));
  info.lmc = static_cast<int>(Field(data, IB_PORT_LMC_F));
  info.capability_mask = Field(data, IB_PORT_CAPMASK_F);
  info.local_port = static_cast<int>(Field(data, IB_PORT_LOCAL_PORT_F));
  info.link_width_enabled = static_cast<int>(Field(data, IB_PORT_LINK_WIDTH_ENABLED_F));
  info.link_width_supported = static_cast<int>(Field(data, IB_PORT_LINK_WIDTH_SUPPORTED_F));
  info.link_width_active = static_cast<int>(Field(data, IB_PORT_LINK_WIDTH_ACTIVE_F));
  info.link_speed_enabled = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_ENABLED_F));
  info.link_speed_supported = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_SUPPORTED_F));
  info.link_speed_active = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_ACTIVE_F));
  info.link_speed_ext_enabled = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_EXT_ENABLED_F));
  info.link_speed_ext_supported = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
  info.link_speed_ext_active = static_cast<int>(Field(data, IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
  return info;
}

PortCounters DecodePortCounters(const uint8_t* data) {
  PortCounters c;
  c.symbol_errors = Field(data, IB_PC_ERR_SYM_F);
  c.link_error_recovery = Field(data, IB_PC_LINK_RECOVERS_F);
  c.link_downed = Field(data, IB_PC_LINK_DOWNED_F);
  c.rcv_errors = Field(data, IB_PC_ERR_RCV_F);
  c.rcv_remote_physical_errors = Field(data, IB_PC_ERR_PHYSRCV_F);
  c.rcv_switch_relay_errors = Field(data, IB_PC_ERR_SWITCH_REL_F);
  c.xmit_discards = Field(data, IB_PC_XMT_DISCARDS_F);
  c.xmit_constraint_errors = Field(data, IB_PC_ERR_XMTCONSTR_F);
  c.rcv_constraint_errors = Field(data, IB_PC_ERR_RCVCONSTR_F);
  c.local_link_integrity_errors = Field(data, IB_PC_ERR_LOCALINTEG_F);
  c.excessive_buffer_overrun_errors = Field(data, IB_PC_ERR_EXCESS_OVR_F);
  c.vl15_dropped = Field(data, IB_PC_VL15_DROPPED_F);
  c.xmit_wait = Field(data, IB_PC_XMT_WAIT_F);
  return c;
}

NodeInfo DecodeNodeInfo(const uint8_t* data) {
  NodeInfo info;
  uint32_t type = Field(data, IB_NODE_TYPE_F);
  info.type = type <= 3 ? static_cast<NodeType>(type) : NodeType::kUnknown;
  info.num_ports = static_cast<int>(Field(data, IB_NODE_NPORTS_F));
  info.node_guid = Field64(data, IB_NODE_GUID_F);
  info.port_guid = Field64(data, IB_NODE_PORT_GUID_F);
  info.partition_cap = static_cast<int>(Field(data, IB_NODE_PARTITION_CAP_F));
  info.local_port = static_cast<int>(Field(data, IB_NODE_LOCAL_PORT_F));
  return info;
}

std::vector<uint16_t> DecodePKeyBlock(const uint8_t* data) {
  std::vector<uint16_t> block(32);
  for (size_t i = 0; i < block.size(); ++i) {
    block[i] = static_cast<uint16_t>((data[2 * i] << 8) | data[2 * i + 1]);
  }
  return block;
}

Result<std::vector<SmRecord>> DecodeSmInfoRecords(const uint8_t* records, size_t length,
                                                  unsigned attr_offset) {
  std::vector<SmRecord> out;
  if (length == 0) return out;
  size_t record_size = static_cast<size_t>(attr_offset) * 8;
  if (record_size < kSmInfoRecordInfoOffset + kSmInfoSize) {
    return Error{"SA SMInfoRecord response has attribute offset " +
                 std::to_string(attr_offset) + " (record too small)"};
  }
  for (size_t off = 0; off + record_size <= length; off += record_size) {
    SmRecord record;
    record.lid = static_cast<uint16_t>((records[off] << 8) | records[off + 1]);
    record.info = DecodeSmInfo(records + off + kSmInfoRecordInfoOffset);
    out.push_back(record);
  }
  return out;
}

}  // namespace smsupd
