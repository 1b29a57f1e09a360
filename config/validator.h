// The one validator: `smsupd --check`, `smctl validate`,
// `smctl render` and the daemon's start and reload all come through here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/deadline.h"
#include "config/config.h"
#include "config/diagnostic.h"

namespace smsupd::config {

struct ValidationOutcome {
  // Set only when there is no error (warnings allowed).
  std::optional<Config> config;
  // Every error and warning found, in file order.
  std::vector<Diagnostic> diagnostics;
  // The file could not be read at all (exit code 2 of the commands).
  bool unreadable = false;
  // Past kMaxDiagnostics: not in `diagnostics` but for the last one, which
  // counts them (its severity is error when any error is hidden).
  int hidden_errors = 0;
  int hidden_warnings = 0;

  bool ok() const { return config.has_value(); }
  int ErrorCount() const;
  int WarningCount() const;
};

// Reads `path` (at most kMaxConfigBytes) and validates it. The sm_key_file
// it names is read and checked too (existence, permissions, content).
ValidationOutcome LoadAndValidate(const std::string& path,
                                  const Deadline& deadline = Deadline::Never());

// Whether validation opens the sm_key_file a text names.
enum class KeyFile {
  kRead,      // read and check it (existence, owner-only mode, content)
  kNameOnly,  // only check the path: for a text from someone the daemon must
              // not open files for (smctl plan); Config::sm.sm_key stays unset
};

// Validates YAML text; `file_name` is used in diagnostics and as
// Config::source_path. Relative sm_key_file paths are used as given.
// The text must keep the bounds of yaml_bounds.h (refused otherwise, before
// a tree is built); past `deadline` validation stops with an error.
ValidationOutcome ValidateText(std::string_view yaml, const std::string& file_name,
                               KeyFile key_file = KeyFile::kRead,
                               const Deadline& deadline = Deadline::Never());

}  // namespace smsupd::config
