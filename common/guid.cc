#include "common/guid.h"

#include <cstdio>

namespace smsupd {

std::string FormatGuid(Guid guid) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(guid));
  return text;
}

std::string FormatPKey(std::uint16_t pkey) { return FormatHex(pkey, 4); }

std::string FormatHex(std::uint32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*x", digits, static_cast<unsigned>(value));
  return text;
}

std::optional<Guid> ParseGuid(std::string_view text) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X'))
    return std::nullopt;
  Guid value = 0;
  for (char c : text.substr(2)) {
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return std::nullopt;
    value = value << 4 | static_cast<Guid>(digit);
  }
  return value;
}

}  // namespace smsupd
