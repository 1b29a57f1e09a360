// The files smsupd renders into state_dir for OpenSM from a validated
// Config, and where they are.
//
//   <state_dir>/opensm.conf       rendered; mode 0600 (SM_Key, m_key, sa_key)
//   <state_dir>/partitions.conf   rendered
//   <state_dir>/node-name-map     rendered (config/node_name_map.h); mode 0644
//   <state_dir>/generation        the config in force (apply/running_config.h)
//
// Every file is replaced atomically (common/atomic_file.h): OpenSM re-reads
// partitions.conf on each heavy sweep and must never see half a file.
// OpenSmController is the one writer of the three OpenSM files.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"
#include "config/renderer.h"

namespace smsupd {

struct StatePaths {
  std::string state_dir;
  std::string OpenSmConf() const { return state_dir + "/opensm.conf"; }
  std::string PartitionsConf() const { return state_dir + "/partitions.conf"; }
  std::string NodeNameMap() const { return config::NodeNameMapPath(PartitionsConf()); }
  std::string Generation() const { return state_dir + "/generation"; }
};

// Creates state_dir (mode 0700) if it is missing; an existing one must be a
// directory owned by smsupd's user that no one else can write to (refused
// otherwise, with the reason), and is made 0700 if others could read it: it
// holds the SM_Key and every generation. Called once at start, before
// anything is written there.
Status PrepareStateDirectory(const std::string& state_dir);

// Renders `config` for `port_guid` and writes the three files. Returns the hash
// of the YAML that was rendered. `sm_priority` is the failover policy's
// commanded priority (OpenSmController); nullopt: sm.priority.
Result<std::string> WriteRenderedConfig(const config::Config& config, Guid port_guid,
                                        std::optional<int> sm_priority = std::nullopt,
                                        const std::map<Guid, Guid>& node_of_port = {});
// The files WriteRenderedConfig writes, without writing them (a stored
// generation keeps them).
config::RenderedFiles RenderConfig(const config::Config& config, Guid port_guid,
                                   std::optional<int> sm_priority = std::nullopt,
                                   const std::map<Guid, Guid>& node_of_port = {});

}  // namespace smsupd
