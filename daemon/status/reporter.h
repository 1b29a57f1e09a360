// What the subsystems tell the operator besides their own journal lines:
// events (`smctl events`, streamed to followers) and health problems
// (`smctl status` health.problems). StatusBoard implements it; unit tests of
// the other subsystems record through it.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace smsupd {

class Reporter {
 public:
  virtual ~Reporter() = default;

  // Appends an event of `kind` (an event kind of control_protocol.h, e.g.
  // "config-applied"); the caller has logged its own journal line.
  virtual void AddEvent(std::string_view kind, nlohmann::json details) = 0;
  // A stable log ID with one line of text (a failover event such as
  // MASTER_LOST): logged at the level event_kinds.h gives the ID and
  // appended as the event EventKindOf(log_id) with {"text": text}.
  virtual void Announce(const std::string& log_id, const std::string& text) = 0;

  // Health problems, by the IDs of common/problems.h. Raising a raised
  // problem only updates its text; clearing an absent one does nothing.
  virtual void RaiseProblem(const std::string& id, const std::string& text) = 0;
  virtual void ClearProblem(const std::string& id) = 0;
  virtual bool HasProblem(const std::string& id) const = 0;
};

}  // namespace smsupd
