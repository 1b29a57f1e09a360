// SHA-256 (FIPS 180-4) for the config hash. A small local implementation:
// the hash only needs to be stable and collision-resistant in practice, and
// no Debian library already linked offers it.
#pragma once

#include <string>
#include <string_view>

namespace smsupd::config {

// 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace smsupd::config
