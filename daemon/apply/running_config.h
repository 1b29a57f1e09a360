// The config in force: the validated YAML, the local port OpenSM is bound
// to, and its generation. One instance per daemon; the apply pipeline
// (ConfigApplier) is the only writer, the other subsystems read it.
//
//   <state_dir>/generation   "generation=N\nhash=H\n": the config in force
//
// The pointer file survives restarts: the same YAML at the next start keeps
// its number, another one gets the next free one (NextGenerationAtStart).
#pragma once

#include <cstdint>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "daemon/opensm/rendered_files.h"

namespace smsupd {

struct ConfigGeneration {
  std::uint64_t number = 0;
  std::string hash;  // sha256 of the YAML text
};

struct RunningConfig {
  config::Config config;
  Guid port_guid = 0;  // the port OpenSM binds (sm.port_guid, or the only one)
  ConfigGeneration generation;
};

// The last generation recorded in state_dir ({0, ""} if none).
ConfigGeneration ReadGeneration(const StatePaths& paths);
Status WriteGeneration(const StatePaths& paths, const ConfigGeneration& generation);

// At start: the same YAML as last time keeps its generation, a different one
// gets `next_free` (GenerationStore::NextNumber(): never the number of a
// generation stored already, which holds another config).
ConfigGeneration NextGenerationAtStart(const ConfigGeneration& recorded, const std::string& hash,
                                       std::uint64_t next_free);

}  // namespace smsupd
