// How OpenSM is started for one port: its command line, its environment and
// the directories it writes to. Pure functions, so tests see exactly what
// OpenSM gets.
#pragma once

#include <string>
#include <vector>

#include "common/guid.h"
#include "common/result.h"
#include "daemon/process/process.h"

namespace smsupd {

struct OpenSmLaunchSpec {
  std::string binary;     // sm.opensm.binary
  std::string conf_path;  // <state_dir>/opensm.conf, rendered by smsupd
  std::string state_dir;
  Guid port_guid = 0;

  // OpenSM keeps guid2lid and friends in $OSM_CACHE_DIR and temporary files in
  // $OSM_TMP_DIR; two OpenSMs on one machine must not share them (docs/opensm-behaviour.md
  // "OSM_TMP_DIR and OSM_CACHE_DIR").
  std::string CacheDir() const { return state_dir + "/opensm-cache"; }
  std::string TmpDir() const { return state_dir + "/opensm-tmp"; }
  std::string PidFilePath() const { return state_dir + "/opensm.pid"; }
};

// `parent_env` is smsupd's own environment ("NAME=value"). Everything passes
// through unchanged (LD_PRELOAD, SIM_HOST and IBSIM_SOCKNAME put OpenSM on the
// same simulated node as smsupd) except the service manager's variables,
// which belong to smsupd alone: with NOTIFY_SOCKET OpenSM could report
// READY=1 for us.
std::vector<std::string> OpenSmEnvironment(const std::vector<std::string>& parent_env,
                                           const OpenSmLaunchSpec& spec);

// `opensm -F <conf>` with the environment above, run in the state directory
// (the simulator shim writes ./sys-<pid> into the working directory).
SpawnRequest OpenSmSpawnRequest(const OpenSmLaunchSpec& spec,
                                const std::vector<std::string>& parent_env);

// Creates the state, cache and tmp directories (mode 0700) if missing.
Status PrepareOpenSmDirectories(const OpenSmLaunchSpec& spec);

// The process's own environment as a vector.
std::vector<std::string> CurrentEnvironment();

}  // namespace smsupd
