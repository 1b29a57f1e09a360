// The daemon's current health problems (status: health.problems). Raising a
// problem that is not yet present, or clearing one that is, is an event
// (problem-raised / problem-cleared) and a log line with the problem's ID.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/control_protocol.h"
#include "common/control_wire.h"

namespace smsupd {

class HealthProblems {
 public:
  // Called once per actual change: raised = true/false.
  using ChangeSink = std::function<void(const control::ProblemWire& problem, bool raised)>;

  explicit HealthProblems(ChangeSink on_change) : on_change_(std::move(on_change)) {}

  // Raises `id`, or updates its text if already raised (no new event).
  void Raise(const std::string& id, const std::string& text);
  void Clear(const std::string& id);
  // Raise when `present`, else clear.
  void Set(const std::string& id, bool present, const std::string& text);

  bool Has(const std::string& id) const { return problems_.count(id) > 0; }
  std::vector<control::ProblemWire> List() const;

 private:
  ChangeSink on_change_;
  std::map<std::string, control::ProblemWire> problems_;
};

}  // namespace smsupd
