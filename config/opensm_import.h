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
#include "config/config.h"
#include "config/yaml_bounds.h"

namespace smsupd::config {

// The largest input file read, each: the config validator's own bound on a
// config text.
inline constexpr std::size_t kMaxImportFileBytes = kMaxConfigBytes;
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

// The findings of one import: every error and the first kMaxKeptFindings
// warnings are kept, the rest only counted (an input of 16 MiB can hold
// millions of odd lines; an import has at most a few errors).
inline constexpr std::size_t kMaxKeptFindings = 10000;

class ImportFindings {
 public:
  void push_back(ImportFinding finding) {
    if (items_.size() < kMaxKeptFindings || finding.severity == ImportFinding::Severity::kError)
      items_.push_back(std::move(finding));
    else ++dropped_;
  }
  void Append(const ImportFindings& other) {
    for (const ImportFinding& finding : other.items_) push_back(finding);
    dropped_ += other.dropped_;
  }
  std::vector<ImportFinding>& items() { return items_; }
  std::vector<ImportFinding>::const_iterator begin() const { return items_.begin(); }
  std::vector<ImportFinding>::const_iterator end() const { return items_.end(); }
  const ImportFinding& back() const { return items_.back(); }
  bool empty() const { return items_.empty() && dropped_ == 0; }
  std::size_t size() const { return items_.size() + dropped_; }  // kept and dropped
  std::size_t dropped() const { return dropped_; }

 private:
  std::vector<ImportFinding> items_;
  std::size_t dropped_ = 0;
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

// Keyword lines x GUIDs a partition names, summed over partitions: the
// work of replaying OpenSM's file order (each step a few nanoseconds).
// Past it the import (and --check, over its ports) refuses rather than run
// for minutes.
inline constexpr std::size_t kMaxImportSteps = 20'000'000;

struct ImportResult {
  std::string yaml;  // empty when refused
  bool refused = false;  // past a bound: no YAML, an error finding says which
  // The YAML as the one validator read it (key files named, not read);
  // empty when it does not validate (an error finding says why).
  std::optional<Config> config;
  ImportFindings findings;
  bool HasFindings() const { return !findings.empty(); }
};

// The YAML and every finding. Never fails: an input OpenSM would reject is
// imported as what OpenSM does with it (for partitions.conf: the default
// partition alone), with an error finding saying so. Only input past a
// bound (kMaxImport*) is refused: no YAML, an error finding.
ImportResult ImportOpenSm(const ImportInputs& inputs);

}  // namespace smsupd::config
