// opensm.conf as OpenSM 3.3.23 reads it (opensm/osm_subnet.c
// osm_subn_parse_conf_file(), clean_val(), opts_parse_*(),
// osm_subn_verify_config()): pieces of at most 1022 bytes, `#` comments,
// the first blank-separated word the name, the rest (trimmed, one pair of
// quotes removed) the value; an unknown name is ignored; the last line of a
// name wins; a boolean is true only for TRUE; a number that does not parse
// keeps the default; sm_priority above 15 becomes 0. Internal to the import.
// The values of sm_key, m_key and sa_key are never kept or shown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/guid.h"
#include "config/opensm_import.h"

namespace smsupd::config {

struct ImportedOption {
  std::string name;
  std::string yaml_value;  // as smsupd.yaml writes it (true/false, a number, a quoted string)
  int line = 0;
};

struct SmsupdDefaultNote {
  std::string name;
  std::string opensm_value;  // OpenSM's default, as smsupd.yaml writes it
  std::string smsupd_value;  // what smsupd renders instead, likewise
  int line = 0;              // where the file sets OpenSM's default; 0: not set
};

struct ImportedKey {  // a key set to other than OpenSM's default: only where, never what
  std::string name;   // sm_key, m_key, sa_key
  int line = 0;
};

struct OpenSmConfImport {
  std::optional<Guid> port_guid;
  int port_guid_line = 0;
  int sm_priority = 0;  // as OpenSM ends up with it (0 when absent)
  int sm_priority_line = 0;
  bool allow_both_pkeys = false;
  int allow_both_line = 0;
  std::vector<ImportedOption> options;  // differing from OpenSM's defaults, file order
  std::vector<ImportedKey> keys;
  std::string partition_config_file = "/etc/opensm/partitions.conf";  // the file OpenSM reads
  // Options smsupd sets itself (partition_config_file, log_file, ...):
  // name, what sets it instead, line. Shown as YAML comments.
  std::vector<ImportedOption> not_imported;
  // Options smsupd renders at its own default (SmsupdDefaults) that the file
  // leaves at OpenSM's: the imported config changes them. Shown as YAML
  // comments.
  std::vector<SmsupdDefaultNote> smsupd_defaults;
};

OpenSmConfImport ReadOpenSmConf(std::string_view text, const std::string& file,
                                ImportFindings& findings);

}  // namespace smsupd::config
