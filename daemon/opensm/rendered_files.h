// The files smsupd writes into state_dir from a validated Config, and the
// config generation counter.
//
//   <state_dir>/opensm.conf       rendered; mode 0600 when it holds the SM_Key
//   <state_dir>/partitions.conf   rendered
//   <state_dir>/generation        "generation=N\nhash=H\n": the last applied config
//
// Every file is replaced atomically (common/atomic_file.h): OpenSM re-reads
// partitions.conf on each heavy sweep and must never see half a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "config/renderer.h"

namespace smsupd {

struct ConfigGeneration {
  std::uint64_t number = 0;
  std::string hash;
};

struct StatePaths {
  std::string state_dir;
  std::string OpenSmConf() const { return state_dir + "/opensm.conf"; }
  std::string PartitionsConf() const { return state_dir + "/partitions.conf"; }
  std::string Generation() const { return state_dir + "/generation"; }
};

// Renders `config` for `port_guid` and writes both files. Returns the hash
// of the YAML that was rendered. `sm_priority` is the failover policy's
// current priority (Daemon::CommandedPriority()); nullopt: sm.priority.
Result<std::string> WriteRenderedConfig(const config::Config& config, Guid port_guid,
                                        std::optional<int> sm_priority = std::nullopt);
// The files WriteRenderedConfig writes, without writing them (a stored
// generation keeps them).
config::RenderedFiles RenderConfig(const config::Config& config, Guid port_guid,
                                   std::optional<int> sm_priority = std::nullopt);

// The last generation recorded in state_dir ({0, ""} if none).
ConfigGeneration ReadGeneration(const StatePaths& paths);
Status WriteGeneration(const StatePaths& paths, const ConfigGeneration& generation);

// At start: the same YAML as last time keeps its generation, a different one
// gets the next number.
ConfigGeneration NextGenerationAtStart(const ConfigGeneration& recorded, const std::string& hash);

}  // namespace smsupd
