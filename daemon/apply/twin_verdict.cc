#include "daemon/apply/twin_verdict.h"

namespace smsupd {

const char* TwinVerdictName(TwinVerdict::Kind kind) {
  switch (kind) {
    case TwinVerdict::Kind::kAgrees: return "agrees";
    case TwinVerdict::Kind::kDisagrees: return "disagrees";
    case TwinVerdict::Kind::kFailed: return "failed";
  }
  return "failed";
}

nlohmann::json VerdictJson(const TwinVerdict& verdict, config::TwinGate mode) {
  nlohmann::json json = {{"mode", config::TwinGateName(mode)},
                         {"verdict", TwinVerdictName(verdict.kind)},
                         {"reasons", verdict.reasons},
                         {"summary", verdict.summary}};
  if (verdict.kind == TwinVerdict::Kind::kFailed) json["kind"] = verdict.failure_kind;
  return json;
}

}  // namespace smsupd
