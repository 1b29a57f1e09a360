// Fuzz target: names of any bytes in OpenSM's node-name map.
//
// The input is records of one length byte and that many bytes of a name;
// record i names node GUID i + 1 (the first byte of the input also sets the
// GUID's high bits, so lines of every GUID width occur).
//
// Properties, for any bytes:
// - every line of RenderNodeNameMap fits the 255 bytes infiniband-diags
//   read at once, holds no control character, and a line that is not a
//   comment has exactly two '"' and no '#';
// - OpenSM's reader and infiniband-diags' reader (tests/config models) both
//   read back exactly the GUIDs whose name is not blank, each with
//   NodeNameMapName of its name, and diags never drop the map.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "config/node_name_map.h"
#include "tests/config/node_name_map_readers.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::config;
  std::map<std::uint64_t, std::string> names;
  const std::uint64_t high = size > 0 ? static_cast<std::uint64_t>(data[0]) << 56 : 0;
  for (std::size_t at = 0; at < size;) {
    const std::size_t length = std::min<std::size_t>(data[at], size - at - 1);
    names.emplace(high + names.size() + 1,
                  std::string(reinterpret_cast<const char*>(data) + at + 1, length));
    at += 1 + length;
  }
  const std::string map = RenderNodeNameMap(names);
  std::istringstream lines(map);
  for (std::string line; std::getline(lines, line);) {
    FUZZ_CHECK(line.size() + 1 <= kMaxNodeNameMapLineBytes, line);
    for (unsigned char c : line) FUZZ_CHECK(c >= 0x20 && c != 0x7f, line);
    if (line[0] == '#') continue;
    FUZZ_CHECK(std::count(line.begin(), line.end(), '"') == 2, line);
    FUZZ_CHECK(line.find('#') == std::string::npos, line);
  }
  smsupd::config::testing::NodeNames expected;
  for (const auto& [guid, name] : names)
    if (std::string safe = NodeNameMapName(name); !safe.empty()) expected.emplace(guid, safe);
  FUZZ_CHECK(smsupd::config::testing::ReadNodeNameMapLikeOpenSm(map) == expected, map);
  auto diags = smsupd::config::testing::ReadNodeNameMapLikeDiags(map);
  FUZZ_CHECK(diags.has_value(), "infiniband-diags would drop the map:\n" + map);
  FUZZ_CHECK(*diags == expected, map);
  return 0;
}
