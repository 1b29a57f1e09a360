// The twin gate's verdict on a reload (docs/twin.md "The twin as a gate"):
// what the applier needs to let a config through or refuse it. The twin
// part (daemon/twin/twin_gate.h) reaches it; the applier acts on it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace smsupd {

struct TwinVerdict {
  enum class Kind {
    kAgrees,     // OpenSM in the twin did what smsupd's plan says
    kDisagrees,  // it did not: `reasons` says where
    kFailed,     // the twin could not run (`failure_kind`): no verdict
  };
  Kind kind = Kind::kFailed;
  // What disagreed ("P_Key tables differ from the plan on 2 ports: ..."),
  // or why the twin could not run. At most kMaxVerdictReasons lines.
  std::vector<std::string> reasons;
  // kFailed: "busy", "missing-simulator", "not-up", "no-space", ... (docs/twin.md).
  std::string failure_kind;
  std::string summary;  // the twin report's first line; "" when it did not run
  nlohmann::json report;  // the twin report (the arguments of twin-plan); null when it did not run
};

inline constexpr std::size_t kMaxVerdictReasons = 20;

// "agrees", "disagrees", "failed".
const char* TwinVerdictName(TwinVerdict::Kind kind);

// {"mode", "verdict", "reasons", "kind" (failed only), "summary"}: the
// reload reply's and the twin-gate event's form (no report: events stay small).
nlohmann::json VerdictJson(const TwinVerdict& verdict, config::TwinGate mode);

}  // namespace smsupd
