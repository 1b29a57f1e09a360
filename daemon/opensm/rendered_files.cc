#include "daemon/opensm/rendered_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

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

}  // namespace smsupd
