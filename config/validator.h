// The one validator: `smsupd --check`, `smctl validate`,
// `smctl render` and the daemon's start and reload all come through here.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

  bool ok() const { return config.has_value(); }
  int ErrorCount() const;
  int WarningCount() const;
};

// Reads `path` and validates it. The sm_key_file it names is read and checked
// too (existence, permissions, content).
ValidationOutcome LoadAndValidate(const std::string& path);

// Validates YAML text; `file_name` is used in diagnostics and as
// Config::source_path. Relative sm_key_file paths are used as given.
ValidationOutcome ValidateText(std::string_view yaml, const std::string& file_name);

}  // namespace smsupd::config
