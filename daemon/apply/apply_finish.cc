// The end of an apply: the verification recorded (generation meta, event,
// journal line, PKEY_DRIFT problem), the reply, an automatic rollback.
#include <spdlog/spdlog.h>

#include "common/problems.h"
#include "daemon/apply/apply_run.h"
#include "common/control_wire.h"
#include "daemon/status/event_log.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

std::string Seconds(std::chrono::milliseconds duration) {
  return std::to_string(duration.count() / 1000.0).substr(0, std::to_string(duration.count() / 1000).size() + 2);
}

}  // namespace

std::string ConfigApplier::ApplyText(const ApplyRun& run) const {
  std::string text = run.unchanged ? "config unchanged (generation " + std::to_string(run.generation) + ")"
                                   : "generation " + std::to_string(run.generation) + " applied";
  std::string joined;
  for (const auto& option : run.restart_needed) joined += (joined.empty() ? "" : ", ") + option;
  if (run.restarting) text += "; OpenSM restarted for " + joined;
  else if (!run.restart_refusal.empty())
    text += "; OpenSM not restarted for " + joined + ": " + run.restart_refusal;
  else if (!joined.empty()) text += "; OpenSM restart needed for " + joined + " (smctl reload --restart)";
  if (!run.twin.is_null()) text += run.twin_warning.empty() ? "; the twin agrees" : "; " + run.twin_warning;
  return text;
}

// "verified 40/40 ports", "verification failed: 3 mismatches", ...
std::string ConfigApplier::VerificationText(const ApplyRun& run) const {
  const std::string& summary = run.verification.summary;
  switch (run.step) {
    case ApplyStep::kVerified:
    case ApplyStep::kSkipped: return summary.empty() ? "not verified" : summary;
    case ApplyStep::kDrift:
      return "drift: " + summary + " (this node's OpenSM is not MASTER: the master's config decides)";
    case ApplyStep::kResweep: return "verification pending";
    case ApplyStep::kRollBack:
    case ApplyStep::kFailed: break;
  }
  if (run.partition_error) return "verification failed: OpenSM refused partitions.conf (" +
                                  run.partition_error_line + ")";
  if (run.verification.default_fallback)
    return "verification failed: OpenSM fell back to the default partition (" + summary + ")";
  if (run.timed_out)
    return "verification failed: " + (summary.empty() ? "no answer from the fabric" : summary) +
           " within " + Seconds(run.timeout) + " s";
  std::string text = summary.rfind("verification failed", 0) == 0 ? summary
                                                                   : "verification failed: " + summary;
  const auto& mismatches = run.verification.mismatches;
  for (std::size_t i = 0; i < mismatches.size() && i < 3; ++i) text += (i ? "; " : " (") + mismatches[i];
  if (mismatches.size() > 3) text += "; ...";
  if (!mismatches.empty()) text += ")";
  return text;
}

namespace {

// One journal line per port for the first of them: a verification that
// fails on every port of a large fabric would flood the journal. The whole
// list is in the generation's meta.json.
void LogMismatches(std::uint64_t generation, const std::vector<std::string>& mismatches) {
  const std::size_t logged = std::min(mismatches.size(), kMaxEventListItems);
  for (std::size_t i = 0; i < logged; ++i)
    spdlog::error("PKEY_MISMATCH generation {}: {}", generation, mismatches[i]);
  if (mismatches.size() > logged)
    spdlog::error("PKEY_MISMATCH generation {}: and {} more ports (all in generations/{}/meta.json)",
                  generation, mismatches.size() - logged, generation);
}

}  // namespace

nlohmann::json ConfigApplier::VerificationJson(const ApplyRun& run, bool final) const {
  nlohmann::json json = run.verification.json.is_object() ? run.verification.json
                                                          : nlohmann::json::object();
  json["state"] = final ? VerificationStateOf(run.step) : "pending";
  json["text"] = final ? VerificationText(run) : "verification pending";
  json["attempts"] = run.attempt;
  json["sweep_seen"] = run.sweep_seen;
  if (run.partition_error) json["partition_error"] = run.partition_error_line;
  return json;
}

nlohmann::json ConfigApplier::ApplyArguments(const ApplyRun& run, bool final) const {
  nlohmann::json arguments = {{"generation", run.generation}, {"hash", run.hash}, {"plan", run.plan.json},
                              {"verification", VerificationJson(run, final)}, {"rolled_back", false},
                              {"restart_needed", run.restart_needed}};
  if (!run.twin.is_null()) arguments["twin"] = run.twin;
  return arguments;
}

void ConfigApplier::RecordVerification(const RunPtr& run) {
  nlohmann::json verification = VerificationJson(*run, true);
  if (Status saved = generations_.SetVerification(run->generation, verification); !saved)
    spdlog::warn("GENERATION_NOT_SAVED {}", saved.message());
  std::string text = VerificationText(*run);
  nlohmann::json details = {{"generation", run->generation}, {"by", run->request.applied_by},
                            {"summary", run->plan.summary}, {"text", text},
                            {"checked", run->verification.checked},
                            {"mismatches", run->verification.mismatches}};
  switch (run->step) {
    case ApplyStep::kVerified:
      spdlog::info("PKEY_VERIFIED generation {}: {}", run->generation, text);
      reporter_.AddEvent(control::kEventPKeyVerified, details);
      reporter_.ClearProblem(kProblemPKeyDrift);
      break;
    case ApplyStep::kDrift:
      spdlog::warn("PKEY_DRIFT generation {}: {}", run->generation, text);
      reporter_.AddEvent(control::kEventPKeyDrift, details);
      reporter_.RaiseProblem(kProblemPKeyDrift, "the fabric's P_Key tables differ from this node's config "
                                  "(generation " + std::to_string(run->generation) + "): " +
                                  run->verification.summary);
      break;
    case ApplyStep::kSkipped:
      spdlog::info("PKEY_NOT_VERIFIED generation {}: {}", run->generation, text);
      reporter_.AddEvent(control::kEventPKeyNotVerified, details);
      break;
    default:
      spdlog::error("PKEY_VERIFY_FAILED generation {}: {}", run->generation, text);
      LogMismatches(run->generation, run->verification.mismatches);
      reporter_.AddEvent(control::kEventPKeyVerifyFailed, details);
  }
}

void ConfigApplier::FinishApply(const RunPtr& run) {
  // A restart that was asked for and refused (no standby) is a failure the
  // caller must see, though nothing is rolled back.
  bool good = (run->step == ApplyStep::kVerified || run->step == ApplyStep::kSkipped ||
               run->step == ApplyStep::kDrift) &&
              run->restart_refusal.empty();
  if (run->reply) {
    run->reply(MakeResponse(good ? ResultCode::kSuccess : ResultCode::kError,
                            ApplyText(*run) + "; " + VerificationText(*run), ApplyArguments(*run, true)));
    run->reply = nullptr;
  }
  EndApply();
}

void ConfigApplier::EndApply() {
  run_.reset();
  if (reload_queued_ && !stopping_) {
    reload_queued_ = false;
    boost::asio::post(io_, [this] {
      if (!stopping_) StartApply(MakeApplyRequest("signal", "signal"), [](control::Response) {});
    });
  }
}

// Applies the generation that was current before `failed`, through the same
// path (a new generation, reason "auto-rollback"), and then answers the
// caller of `failed` with both results.
void ConfigApplier::RollBackAfter(const RunPtr& failed) {
  run_.reset();
  ApplyRequest request;
  request.reason = "auto-rollback";
  request.applied_by = "auto-rollback";
  request.restart = failed->request.restart;
  request.wait = true;
  request.timeout = failed->request.timeout;
  request.from_generation = failed->previous;
  std::string failure = ApplyText(*failed) + "; " + VerificationText(*failed);
  StartApply(std::move(request), [this, failed, failure](control::Response rollback) {
    std::uint64_t to = failed->previous;
    bool restored = rollback.result == ResultCode::kSuccess;
    std::string text = failure + "; rolled back to generation " + std::to_string(to) +
                       (restored ? "" : " (rollback " + rollback.text + ")");
    if (restored) text += " (now generation " + rollback.arguments.value("generation", nlohmann::json(0)).dump() +
                          ": " + rollback.arguments["verification"].value("text", std::string()) + ")";
    spdlog::warn("CONFIG_ROLLED_BACK generation {} -> {}: {}", failed->generation, to, text);
    reporter_.AddEvent(control::kEventConfigRolledBack,
             {{"from", failed->generation}, {"to", to}, {"by", failed->request.applied_by},
              {"generation", rollback.arguments.value("generation", nlohmann::json(nullptr))},
              {"verified", restored}, {"text", text}});
    if (!failed->reply) return;
    nlohmann::json arguments = ApplyArguments(*failed, true);
    arguments["rolled_back"] = true;
    arguments["rolled_back_to"] = to;
    arguments["rollback"] = rollback.arguments;
    failed->reply(MakeResponse(ResultCode::kError, text, arguments));
    failed->reply = nullptr;
  });
}

}  // namespace smsupd
