// Helpers shared by the config unit tests.
#pragma once

#include <string>
#include <string_view>

#include "config/validator.h"

namespace smsupd::config::testing {

// A valid config with three hosts (h1: one port, h2: two ports, sw: none
// listed), group g = [h1], and a Default partition; `sm_extra` is appended
// inside sm:, `partitions` replaces the partition list when not empty.
std::string BaseYaml(std::string_view sm_extra = "", std::string_view partitions = "");

// ValidateText with the file name "test.yaml".
ValidationOutcome Validate(std::string_view yaml);

// The first diagnostic whose yaml_path equals `path`, or nullptr.
const Diagnostic* FindDiagnostic(const ValidationOutcome& outcome, std::string_view path);

// All diagnostics formatted, one per line (for failure messages).
std::string AllDiagnostics(const ValidationOutcome& outcome);

// A fresh directory under $TMPDIR, removed by the caller's TempDir.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& content, int mode = 0644) const;

 private:
  std::string path_;
};

}  // namespace smsupd::config::testing
