// A real OpenSM on a simulated node, configured the way smsupd will run it:
// `guid` set explicitly to the node's port GUID, its own opensm.conf, log
// file, OSM_TMP_DIR and OSM_CACHE_DIR.
#pragma once

#include <map>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {

struct OpenSmSpec {
  std::string node;                              // an HCA of the topology
  int priority = 0;                              // sm_priority 0..15
  std::map<std::string, std::string> options;    // extra opensm.conf lines, written last (they win)
  std::string label;                             // directory name; default "opensm-<node>"
  std::string binary = "opensm";
};

// The usual spec: OpenSM on `node` at `priority` with extra `options`.
OpenSmSpec OpenSmOn(const std::string& node, int priority, std::map<std::string, std::string> options = {});

// The opensm.conf the test bed writes: guid, sm_priority, log_file,
// partition_config_file and dump_files_dir inside `dir`, then `options`.
std::string RenderOpenSmConf(Guid port_guid, int priority, const std::string& dir,
                             const std::map<std::string, std::string>& options);

// Tuned polling for failover tests: a standby notices a dead master after
// (2 + 1) x 1 s instead of OpenSM's 50-60 s (docs/opensm-behaviour.md
// "OpenSM's own failover timing").
std::map<std::string, std::string> FastFailoverOptions();

// Renders <dir>/opensm.conf and starts `opensm -F <conf>` on spec.node. The
// log is <dir>/opensm.log; stdout/stderr go to <dir>/output.log.
Result<NodeProcess*> StartOpenSm(SimulatedFabric& fabric, const OpenSmSpec& spec);

}  // namespace smsupd::testbed
