#include "common/printable_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace smsupd {
namespace {

// The length of the valid UTF-8 sequence starting at `at` (its code point in
// `code`), or 0 when the bytes there are not one (RFC 3629: no overlong
// forms, no surrogates, nothing past U+10FFFF).
std::size_t Utf8Sequence(std::string_view text, std::size_t at, std::uint32_t& code) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xe  ? 3
                       : (lead >> 3) == 0x1e ? 4
                                             : 0;
  if (length == 0 || at + length > text.size()) return 0;
  code = length == 1 ? lead : lead & (0xff >> (length + 1));
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80) return 0;
    code = (code << 6) | (byte(i) & 0x3f);
  }
  static constexpr std::uint32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kSmallest[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
  return length;
}

// `\xHH`: a C0 control, DEL, or a byte that is no part of valid UTF-8.
std::string HexByte(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02x", byte);
  return text;
}

std::string Escaped(std::uint32_t code, std::size_t length, std::string_view raw) {
  if (code == '\\') return "\\\\";
  if (code == '\t') return "\\t";
  if (code == '\n') return "\\n";
  if (code == '\r') return "\\r";
  const bool c0_or_del = length == 1 && (code < 0x20 || code == 0x7f);
  const bool c1 = code >= 0x80 && code <= 0x9f;
  const bool bidi = (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
  if (c0_or_del) return HexByte(static_cast<unsigned char>(code));
  if (c1 || bidi) {
    char text[16];
    std::snprintf(text, sizeof text, "\\u{%04x}", static_cast<unsigned>(code));
    return text;
  }
  return std::string(raw);
}

}  // namespace

std::string PrintableText(std::string_view bytes, std::size_t max_bytes) {
  std::string out;
  std::vector<std::size_t> starts;  // where each piece (a character or an escape) begins
  for (std::size_t at = 0; at < bytes.size();) {
    std::uint32_t code = 0;
    std::size_t length = Utf8Sequence(bytes, at, code);
    std::string piece;
    if (length == 0) {
      piece = HexByte(static_cast<unsigned char>(bytes[at]));
      length = 1;
    } else {
      piece = Escaped(code, length, bytes.substr(at, length));
    }
    if (out.size() + piece.size() > max_bytes) {
      // Whole pieces only, and room for "...".
      while (!starts.empty() && out.size() + 3 > max_bytes) {
        out.resize(starts.back());
        starts.pop_back();
      }
      return max_bytes >= 3 ? out + "..." : out;
    }
    starts.push_back(out.size());
    out += piece;
    at += length;
  }
  return out;
}

std::string CutText(std::string text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit < 3 ? 0 : limit - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  text.resize(cut);
  return text + "...";
}

std::string PrintableNodeDescription(std::string_view bytes) {
  bytes = bytes.substr(0, std::min(bytes.size(), kNodeDescriptionBytes));
  const std::size_t nul = bytes.find('\0');
  return PrintableText(bytes.substr(0, nul), kMaxNodeDescriptionText);
}

}  // namespace smsupd
