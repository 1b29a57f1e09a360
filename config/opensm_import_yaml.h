// The YAML text of an import (internal to opensm_import.cc): every entry with
// a comment naming the FILE:LINE it comes from.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/opensm_conf_import.h"
#include "config/opensm_import.h"
#include "config/opensm_import_partitions.h"

namespace smsupd::config {

struct NamedPorts {  // one node-name-map name and the GUIDs it gives that partitions.conf names
  std::string name;  // as the map has it
  std::vector<Guid> guids;
  std::vector<int> lines;
  bool port_set = false;  // not from the map: ports in the same partitions with the same memberships
};

struct ImportSources {
  std::string opensm_conf;    // file names, empty when not given
  std::string partitions;
  std::string node_name_map;
  std::size_t map_guids = 0;         // GUID lines of the map
  std::size_t map_guids_unused = 0;  // of them, GUIDs partitions.conf does not name
};

std::string WriteImportYaml(const ImportSources& sources, const OpenSmConfImport& conf,
                            const ImportedPartitions& partitions, const std::vector<NamedPorts>& hosts,
                            const std::optional<int>& fallback_line, ImportFindings& findings);

}  // namespace smsupd::config
