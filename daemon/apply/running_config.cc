#include "daemon/apply/running_config.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "common/atomic_file.h"

namespace smsupd {

ConfigGeneration ReadGeneration(const StatePaths& paths) {
  ConfigGeneration generation;
  auto text = ReadWholeFile(paths.Generation());
  if (!text) return generation;
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("generation=", 0) == 0) {
      std::string_view value = std::string_view(line).substr(11);
      std::from_chars(value.data(), value.data() + value.size(), generation.number);
    } else if (line.rfind("hash=", 0) == 0) {
      generation.hash = line.substr(5);
    }
  }
  return generation;
}

Status WriteGeneration(const StatePaths& paths, const ConfigGeneration& generation) {
  return WriteFileAtomically(paths.Generation(), "generation=" + std::to_string(generation.number) +
                                                     "\nhash=" + generation.hash + "\n");
}

ConfigGeneration NextGenerationAtStart(const ConfigGeneration& recorded, const std::string& hash,
                                       std::uint64_t next_free) {
  if (recorded.number > 0 && recorded.hash == hash) return recorded;
  return {std::max(next_free, recorded.number + 1), hash};
}

}  // namespace smsupd
