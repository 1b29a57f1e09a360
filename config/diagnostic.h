// One finding of the validator, in the form every front end prints
//: file, line, column, the YAML path, what is wrong and what
// would be valid.
#pragma once

#include <string>

namespace smsupd::config {

enum class Severity { kError, kWarning };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;
  int line = 0;    // 1-based; 0 when the finding has no position
  int column = 0;  // 1-based
  std::string yaml_path;  // e.g. "partitions[1].members[0].host"
  std::string what;       // what is wrong
  std::string valid;      // what would be valid; may be empty

  // "FILE:LINE:COL: error: <yaml path>: <what>; <valid>". The "; <valid>"
  // part is left out when `valid` is empty, "<yaml path>: " when the path is.
  std::string Format() const;
};

const char* SeverityName(Severity severity);  // "error" / "warning"

}  // namespace smsupd::config
