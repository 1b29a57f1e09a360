// `smctl import` (docs/import.md, docs/smctl.md). Its own exit codes, as
// `smsupd --check` has its own: 0 imported with no finding, 1 imported with
// warnings or errors (or --check found a difference, or --out could not be
// written), 2 a file cannot be read (missing, unreadable, larger than
// kMaxImportFileBytes). Findings go to `err` as `FILE:LINE: warning|error:`
// lines, the YAML to `out` unless `out_file` is given.
#pragma once

#include <ostream>
#include <string>

namespace smsupd::config {

inline constexpr int kImportClean = 0;
inline constexpr int kImportFindings = 1;
inline constexpr int kImportUnreadable = 2;

struct ImportOptions {
  std::string opensm_conf;    // empty: not given
  std::string partitions;
  std::string node_name_map;
  std::string out_file;       // empty: the YAML on `out`
  bool check = false;
};

int RunImportCommand(const ImportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace smsupd::config
