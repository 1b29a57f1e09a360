#include "daemon/config_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>

#include "common/atomic_file.h"

namespace smsupd {

Result<std::string> WriteRenderedConfig(const config::Config& config, Guid port_guid,
                                        std::optional<int> sm_priority) {
  StatePaths paths{config.state_dir};
  if (::mkdir(paths.state_dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error{"cannot create " + paths.state_dir + ": " + std::strerror(errno)};
  config::RenderedFiles files = RenderConfig(config, port_guid, sm_priority);
  Status written = config::WriteRenderedFiles(files, paths.PartitionsConf(), paths.OpenSmConf());
  if (!written) return Error{written.message()};
  return files.config_hash;
}

config::RenderedFiles RenderConfig(const config::Config& config, Guid port_guid,
                                   std::optional<int> sm_priority) {
  config::RenderInputs inputs;
  inputs.port_guid = port_guid;
  inputs.partitions_path = StatePaths{config.state_dir}.PartitionsConf();
  inputs.sm_priority = sm_priority;
  return config::Render(config, inputs);
}

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

ConfigGeneration NextGenerationAtStart(const ConfigGeneration& recorded, const std::string& hash) {
  if (recorded.number > 0 && recorded.hash == hash) return recorded;
  return {recorded.number + 1, hash};
}

}  // namespace smsupd
