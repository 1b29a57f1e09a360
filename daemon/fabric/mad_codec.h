// Decoding and encoding of the SMP/SA attribute payloads smsupd uses, kept
// apart from the I/O so it is testable without a fabric. Offsets and field
// widths are libibmad's field table (IBA 14.2.5 and 15.2.5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/result.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

// SMP attribute data is 64 bytes (IB_SMP_DATA_SIZE).
inline constexpr size_t kSmpDataSize = 64;

SmInfo DecodeSmInfo(const uint8_t* data);
// Fills `data` (kSmpDataSize bytes, zeroed first) with `info`.
void EncodeSmInfo(const SmInfo& info, uint8_t* data);
PortInfo DecodePortInfo(const uint8_t* data);
NodeInfo DecodeNodeInfo(const uint8_t* data);
// PortCounters from the PerfMgt attribute data (IB_PC_DATA_SZ bytes).
PortCounters DecodePortCounters(const uint8_t* data);
// A P_Key table block: 32 big-endian 16-bit entries.
std::vector<uint16_t> DecodePKeyBlock(const uint8_t* data);

// The records of an SA GetTable response for SMInfoRecord. `records` points
// at the first record (after the SA header), `length` is the number of
// record bytes received and `attr_offset` the SA AttributeOffset (record
// size in 8-byte words). A partial trailing record is ignored.
Result<std::vector<SmRecord>> DecodeSmInfoRecords(const uint8_t* records, size_t length,
                                                  unsigned attr_offset);

}  // namespace smsupd
