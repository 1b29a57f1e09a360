// Fuzz target: the MAD payload decoders (daemon/fabric/mad_codec.h) on
// arbitrary bytes. Byte 0 picks the decoder: SMInfo, PortInfo, NodeInfo and
// a P_Key block get the next 64 bytes (zero-padded), exactly the SMP data
// size they read; SMInfoRecords get bytes 1-2 as the SA AttributeOffset and
// the rest as `length` record bytes.
//
// Properties, for any bytes:
// - no decoder reads past its buffer: the buffer ends right before an
//   unreadable page, so even libibmad's uninstrumented accessors fault;
// - every decoded field equals the field read straight from the IBA layout
//   (IBA 14.2.5.3 NodeInfo, 14.2.5.6 PortInfo, 14.2.5.7 P_KeyTable,
//   14.2.5.13 SMInfo, 15.2.5.13 SMInfoRecord), big-endian;
// - SMInfo encodes back to the bytes it was decoded from (the fields
//   smsupd knows: GUID, SM_Key, ActCount, priority, state);
// - the same 64 bytes read as a NodeDescription (any switch or HCA may
//   answer anything) come out as printable UTF-8: no byte below 0x20, no
//   sequence a strict JSON writer refuses, at most kMaxNodeDescriptionText.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

#include "common/printable_text.h"
#include "daemon/fabric/mad_codec.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd {
namespace {

std::uint64_t BigEndian(const std::uint8_t* bytes, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i) value = value << 8 | bytes[i];
  return value;
}

void CheckSmInfo(const SmInfo& info, const std::uint8_t* bytes) {
  FUZZ_CHECK(info.guid == BigEndian(bytes, 8), "SMInfo.GUID");
  FUZZ_CHECK(info.sm_key == BigEndian(bytes + 8, 8), "SMInfo.SM_Key");
  FUZZ_CHECK(info.act_count == BigEndian(bytes + 16, 4), "SMInfo.ActCount");
  FUZZ_CHECK(info.priority == bytes[20] >> 4, "SMInfo.Priority");
  FUZZ_CHECK(static_cast<int>(info.state) == (bytes[20] & 0x3), "SMInfo.SMState");
}

void SmInfoCase(const std::uint8_t* data) {
  SmInfo info = DecodeSmInfo(data);
  CheckSmInfo(info, data);
  std::uint8_t encoded[kSmpDataSize];
  EncodeSmInfo(info, encoded);
  FUZZ_CHECK(std::memcmp(encoded, data, 20) == 0 && (encoded[20] & 0xf3) == (data[20] & 0xf3),
             "SMInfo does not encode back to its bytes");
}

void PortInfoCase(const std::uint8_t* data) {
  PortInfo info = DecodePortInfo(data);
  FUZZ_CHECK(info.lid == BigEndian(data + 16, 2), "PortInfo.LID");
  FUZZ_CHECK(info.sm_lid == BigEndian(data + 18, 2), "PortInfo.MasterSMLID");
  FUZZ_CHECK(info.capability_mask == BigEndian(data + 20, 4), "PortInfo.CapabilityMask");
  FUZZ_CHECK(info.local_port == data[28], "PortInfo.LocalPortNum");
  FUZZ_CHECK(info.port_state == (data[32] & 0xf), "PortInfo.PortState");
  FUZZ_CHECK(info.phys_state == data[33] >> 4, "PortInfo.PortPhysicalState");
  FUZZ_CHECK(info.lmc == (data[34] & 0x7), "PortInfo.LMC");
}

// PerfMgt PortCounters (IBA 16.1.3.5) from the same bytes, padded to the
// attribute's 192 bytes: every error counter from its own bits, none wider.
void PortCountersCase(const std::uint8_t* data) {
  PortCounters c = DecodePortCounters(data);
  FUZZ_CHECK(c.symbol_errors == BigEndian(data + 4, 2), "PortCounters.SymbolErrorCounter");
  FUZZ_CHECK(c.link_error_recovery == data[6], "PortCounters.LinkErrorRecoveryCounter");
  FUZZ_CHECK(c.link_downed == data[7], "PortCounters.LinkDownedCounter");
  FUZZ_CHECK(c.rcv_errors == BigEndian(data + 8, 2), "PortCounters.PortRcvErrors");
  FUZZ_CHECK(c.xmit_discards == BigEndian(data + 14, 2), "PortCounters.PortXmitDiscards");
  FUZZ_CHECK(c.local_link_integrity_errors == static_cast<std::uint64_t>(data[19] >> 4),
             "PortCounters.LocalLinkIntegrityErrors");
  FUZZ_CHECK(c.excessive_buffer_overrun_errors == static_cast<std::uint64_t>(data[19] & 0xf),
             "PortCounters.ExcessiveBufferOverrunErrors");
  FUZZ_CHECK(c.vl15_dropped == BigEndian(data + 22, 2), "PortCounters.VL15Dropped");
}

void NodeInfoCase(const std::uint8_t* data) {
  NodeInfo info = DecodeNodeInfo(data);
  int type = data[2] <= 3 ? data[2] : 0;
  FUZZ_CHECK(static_cast<int>(info.type) == type, "NodeInfo.NodeType");
  FUZZ_CHECK(info.num_ports == data[3], "NodeInfo.NumPorts");
  FUZZ_CHECK(info.node_guid == BigEndian(data + 12, 8), "NodeInfo.NodeGUID");
  FUZZ_CHECK(info.port_guid == BigEndian(data + 20, 8), "NodeInfo.PortGUID");
  FUZZ_CHECK(info.partition_cap == static_cast<int>(BigEndian(data + 28, 2)), "NodeInfo.PartitionCap");
  FUZZ_CHECK(info.local_port == data[36], "NodeInfo.LocalPortNum");
}

void PKeyBlockCase(const std::uint8_t* data) {
  std::vector<std::uint16_t> block = DecodePKeyBlock(data);
  FUZZ_CHECK(block.size() == 32, "a P_Key block has 32 entries");
  for (std::size_t i = 0; i < block.size(); ++i)
    FUZZ_CHECK(block[i] == BigEndian(data + 2 * i, 2), "P_Key entry " + std::to_string(i));
}

void RecordsCase(const std::uint8_t* records, std::size_t length, unsigned attr_offset) {
  auto decoded = DecodeSmInfoRecords(records, length, attr_offset);
  std::size_t record_size = std::size_t{attr_offset} * 8;
  // SMInfoRecord: LID, 2 reserved bytes, then the 21 bytes of SMInfo.
  if (length > 0 && record_size < 4 + 21) {
    FUZZ_CHECK(!decoded.ok(), "record size " + std::to_string(record_size) + " accepted");
    return;
  }
  FUZZ_CHECK(decoded.ok(), decoded.error().message);
  std::size_t count = length == 0 ? 0 : length / record_size;
  FUZZ_CHECK(decoded->size() == count, std::to_string(decoded->size()) + " records decoded, " +
                                           std::to_string(count) + " in the bytes");
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t* record = records + i * record_size;
    FUZZ_CHECK((*decoded)[i].lid == BigEndian(record, 2), "SMInfoRecord.LID");
    CheckSmInfo((*decoded)[i].info, record + 4);
  }
}

}  // namespace
}  // namespace smsupd

namespace smsupd {
namespace {

void NodeDescriptionCase(const std::uint8_t* data) {
  const std::string text =
      PrintableNodeDescription(std::string_view(reinterpret_cast<const char*>(data), kSmpDataSize));
  FUZZ_CHECK(text.size() <= kMaxNodeDescriptionText, text);
  for (unsigned char c : text) FUZZ_CHECK(c >= 0x20 && c != 0x7f, text);
  FUZZ_CHECK(nlohmann::json::accept(nlohmann::json(text).dump(-1, ' ', false,
                                                               nlohmann::json::error_handler_t::strict)),
             text);
}

}  // namespace
}  // namespace smsupd

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd;
  static fuzz::GuardedBytes buffer;
  if (size < 1) return 0;
  unsigned which = data[0] % 5;
  if (which == 4) {
    if (size < 3) return 0;
    unsigned attr_offset = static_cast<unsigned>(data[1] << 8 | data[2]);
    const std::uint8_t* records = buffer.Place(data + 3, size - 3);
    RecordsCase(records, size - 3, attr_offset);
    return 0;
  }
  std::uint8_t smp[kSmpDataSize] = {};
  std::memcpy(smp, data + 1, std::min(size - 1, kSmpDataSize));
  const std::uint8_t* placed = buffer.Place(smp, kSmpDataSize);
  switch (which) {
    case 0: SmInfoCase(placed); break;
    case 1: PortInfoCase(placed); break;
    case 2: NodeInfoCase(placed); break;
    case 3: PKeyBlockCase(placed); break;
  }
  NodeDescriptionCase(placed);
  if (which == 1) {  // last: a Place() ends the bytes placed before
    std::uint8_t perf[192] = {};
    std::memcpy(perf, smp, kSmpDataSize);
    PortCountersCase(buffer.Place(perf, sizeof perf));
  }
  return 0;
}
