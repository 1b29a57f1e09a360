#include "common/problems.h"

namespace smsupd {

const char* SeverityName(Severity severity) {
  return severity == Severity::kCritical ? "critical" : "warning";
}

const ProblemInfo* FindProblem(std::string_view id) {
  for (const ProblemInfo& info : kProblems)
    if (info.id == id) return &info;
  return nullptr;
}

}  // namespace smsupd
