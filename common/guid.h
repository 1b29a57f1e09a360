// Port and node GUIDs: one textual form everywhere ("0x" + 16 lower-case hex
// digits), as partitions.conf, smctl output and the JSON wire form use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace smsupd {

using Guid = std::uint64_t;

// "0x0002c90300a1b2c3".
std::string FormatGuid(Guid guid);

// Accepts "0x" followed by 1..16 hex digits (either case). A bare number is
// refused on purpose: OpenSM reads a leading 0 as octal (docs/opensm-behaviour.md "partitions.conf
// grammar").
std::optional<Guid> ParseGuid(std::string_view text);

// "0x8001": a P_Key (or a 16-bit MAD status) as partitions.conf and smctl write it.
std::string FormatPKey(std::uint16_t pkey);

// "0x" + `value` in at least `digits` lower-case hex digits.
std::string FormatHex(std::uint32_t value, int digits);

}  // namespace smsupd
