// Config -> the three files OpenSM reads. Pure: no I/O, byte-for-byte
// deterministic for the same Config and RenderInputs.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/guid.h"
#include "common/result.h"
#include "config/config.h"

namespace smsupd::config {

// Values the daemon has resolved at run time. Empty ones fall back to the
// config (sm.port_guid, sm.opensm.log_file) or to built-in defaults.
struct RenderInputs {
  std::optional<Guid> port_guid;
  std::string partitions_path;   // default: <state_dir>/partitions.conf
  std::string opensm_log_file;   // default: sm.opensm.log_file, else <state_dir>/opensm.log
  // The failover policy's current sm_priority (docs/failover.md: the acting
  // master holds 15, a yielding master 0, ...). Default: sm.priority.
  std::optional<int> sm_priority;
  // Port GUID -> node GUID as the subnet walk read them: the node-name map
  // then names the nodes of the inventory's hosts too (NodeNamesWithInventory).
  std::map<std::uint64_t, std::uint64_t> node_of_port;
};

struct RenderedFiles {
  std::string opensm_conf;
  std::string partitions_conf;
  std::string node_name_map;  // config/node_name_map.h; named by node_name_map_name
  std::string config_hash;  // hex SHA-256 of Config::source_text
};

RenderedFiles Render(const Config& config, const RenderInputs& inputs);

// Installs the rendered files atomically: partitions.conf first, then the
// node-name map beside it (NodeNameMapPath), so the opensm.conf that names
// them never points at a file that is not there yet (a missing
// partitions.conf means "every port full in 0x7fff"); the two with mode
// 0644, opensm.conf always with mode 0600 (the SM_Key, m_key and sa_key).
// The error names the file that failed.
Status WriteRenderedFiles(const RenderedFiles& files, const std::string& partitions_path,
                          const std::string& opensm_conf_path);

// Where the node-name map goes: `node-name-map` in the directory of
// partitions.conf (RenderInputs::partitions_path, or its default).
std::string NodeNameMapPath(const std::string& partitions_path);

// Hex SHA-256 of `text` (64 lower-case hex digits).
std::string ConfigHash(const std::string& text);

}  // namespace smsupd::config

namespace smsupd::config {

// Every opensm.conf option the renderer sets explicitly, by OpenSM name, with
// the value OpenSM will read: smsupd's own options, then sm.opensm.options.
// Options absent from the map keep OpenSM's defaults.
std::map<std::string, std::string> OpenSmOptionValues(const Config& config,
                                                      const RenderInputs& inputs);

}  // namespace smsupd::config
