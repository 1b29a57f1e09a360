// `smctl import`: an existing OpenSM setup (opensm.conf, partitions.conf,
// node-name map) -> smsupd.yaml, read with OpenSM 3.3.23's own reading
// rules (docs/import.md). The YAML reproduces what OpenSM does with the
// files today; every line OpenSM would misread, drop or resolve differently
// from what it seems to say is a finding `FILE:LINE: warning|error: ...`.
// Pure: texts in, text out; the command (import_command.cc) reads the files.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"

namespace smsupd::config {

// The largest input file read, each: the config validator's own bound on a
// config text (yaml_bounds.h kMaxConfigBytes).
inline constexpr std::size_t kMaxImportFileBytes = 16 * 1024 * 1024;
// Partition definitions (the P_Key space) and member entries (the
// validator's kMaxPortMemberships) read from partitions.conf; past them the
// import stops with an error. The YAML written is then held to the
// validator's own bounds (yaml_bounds.h): one it refuses is an error finding.
inline constexpr std::size_t kMaxImportDefinitions = 32768;
inline constexpr std::size_t kMaxImportMembers = 2000000;
// A finding's message as printed, at most (it may quote an input line).
inline constexpr std::size_t kMaxFindingBytes = 400;
// Findings printed; the rest are counted in one last line.
inline constexpr std::size_t kMaxImportFindings = 1000;

struct ImportFinding {
  enum class Severity { kWarning, kError };
  std::string file;
  int line = 0;  // 0: the file as a whole
  Severity severity = Severity::kWarning;
  std::string message;

  // "FILE:LINE: warning: MESSAGE" (no ":LINE" when line is 0).
  std::string Format() const;
};

// One input file as read: its name for diagnostics and its text.
struct ImportFile {
  std::string name;
  std::string text;
};

struct ImportInputs {
  std::optional<ImportFile> opensm_conf;
  std::optional<ImportFile> partitions;
  std::optional<ImportFile> node_name_map;
};

struct ImportResult {
  std::string yaml;
  std::vector<ImportFinding> findings;
  bool HasFindings() const { return !findings.empty(); }
};

// The YAML and every finding. Never fails: an input OpenSM would reject is
// imported as what OpenSM does with it (for partitions.conf: the default
// partition alone), with an error finding saying so.
ImportResult ImportOpenSm(const ImportInputs& inputs);

}  // namespace smsupd::config
