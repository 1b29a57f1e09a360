#include "daemon/status/health_problems.h"
#include "common/control_wire.h"

namespace smsupd {

void HealthProblems::Raise(const std::string& id, const std::string& text) {
  auto found = problems_.find(id);
  if (found != problems_.end()) {
    found->second.text = text;
    return;
  }
  control::ProblemWire problem{id, text,
                               control::FormatRfc3339Millis(std::chrono::system_clock::now())};
  problems_.emplace(id, problem);
  if (on_change_) on_change_(problem, true);
}

void HealthProblems::Clear(const std::string& id) {
  auto found = problems_.find(id);
  if (found == problems_.end()) return;
  control::ProblemWire problem = found->second;
  problems_.erase(found);
  if (on_change_) on_change_(problem, false);
}

void HealthProblems::Set(const std::string& id, bool present, const std::string& text) {
  if (present) Raise(id, text);
  else Clear(id);
}

std::vector<control::ProblemWire> HealthProblems::List() const {
  std::vector<control::ProblemWire> list;
  for (const auto& [id, problem] : problems_) list.push_back(problem);
  return list;
}

}  // namespace smsupd
