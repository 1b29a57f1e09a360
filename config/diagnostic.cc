#include "config/diagnostic.h"

namespace smsupd::config {

const char* SeverityName(Severity severity) {
  return severity == Severity::kError ? "error" : "warning";
}

std::string Diagnostic::Format() const {
  std::string text = file;
  if (line > 0) text += ":" + std::to_string(line) + ":" + std::to_string(column);
  text += ": ";
  text += SeverityName(severity);
  text += ": ";
  if (!yaml_path.empty()) text += yaml_path + ": ";
  text += what;
  if (!valid.empty()) text += "; " + valid;
  return text;
}

}  // namespace smsupd::config
