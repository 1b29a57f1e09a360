#include "daemon/metrics/event_metrics.h"

#include <map>

namespace smsupd {
namespace {

// A failover not confirmed by then is not one (the policy's own deadlines,
// handover_timeout_ms at most 60 s, have ended it).
constexpr std::chrono::seconds kFailoverGiveUp(60);

// The events that start a failover, and its cause.
const std::map<std::string, std::string, std::less<>>& Detections() {
  static const std::map<std::string, std::string, std::less<>> detections = {
      {"master-lost", "master_lost"},  {"no-master", "no_master"},
      {"dual-master", "dual_master"},  {"handover-sent", "opensm_exit"},
      {"failover-requested", "operator"}, {"preempt", "preempt"},
      {"opensm-restart-requested", "restart"}};
  return detections;
}

bool EndsFailoverUnconfirmed(std::string_view kind) {
  return kind == "takeover-failed" || kind == "handover-failed" || kind == "failover-failed" ||
         kind == "failover-refused" || kind == "opensm-restart-refused";
}

std::string Text(const nlohmann::json& details, const char* key) {
  auto found = details.find(key);
  return found != details.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

void EventMetrics::OnEvent(const control::EventWire& event) {
  FailoverEvent(event);
  ApplyEvent(event);
}

void EventMetrics::FailoverEvent(const control::EventWire& event) {
  const Clock::TimePoint now = clock_.Now();
  if (failover_ && now - failover_->since > kFailoverGiveUp) failover_.reset();
  if (auto detection = Detections().find(event.kind); detection != Detections().end()) {
    std::string cause = detection->second;
    // The local MASTER's OpenSM exited: announced as master-lost too.
    if (cause == "master_lost" && Text(event.details, "text").rfind("local MASTER OpenSM exited", 0) == 0)
      cause = "opensm_exit";
    if (!failover_) failover_ = Pending{cause, now};
    return;
  }
  if (EndsFailoverUnconfirmed(event.kind)) {
    failover_.reset();
    return;
  }
  const bool new_master = event.kind == control::kEventMasterChanged && !Text(event.details, "to").empty();
  if (new_master) metrics_.MasterChanged();
  if ((new_master || event.kind == "handover-done") && failover_) {
    metrics_.FailoverDone(failover_->cause, now - failover_->since);
    failover_.reset();
  }
}

void EventMetrics::ApplyEvent(const control::EventWire& event) {
  const std::string_view kind = event.kind;
  if (kind == control::kEventConfigApplied) {
    if (Text(event.details, "at") != "start") apply_started_ = clock_.Now();
  } else if (kind == control::kEventPKeyVerified) {
    ApplyVerified("verified", event.details);
  } else if (kind == control::kEventPKeyNotVerified) {
    ApplyVerified("unverified", event.details);
  } else if (kind == control::kEventPKeyDrift) {
    ApplyVerified("drift", event.details);
  } else if (kind == control::kEventPKeyVerifyFailed) {
    ApplyVerified("failed", event.details);
  } else if (kind == control::kEventConfigRejected) {
    metrics_.ApplyEnded("rejected");
  } else if (kind == control::kEventConfigRolledBack) {
    metrics_.ApplyEnded("rolled_back");
  }
}

void EventMetrics::ApplyVerified(std::string_view result, const nlohmann::json& details) {
  metrics_.ApplyEnded(result);
  std::uint64_t checked = details.value("checked", std::uint64_t{0});
  std::uint64_t mismatched = 0;
  if (auto found = details.find("mismatches"); found != details.end() && found->is_array())
    mismatched = found->size();
  // An event lists the first mismatches and counts them all (BoundEventDetails).
  if (auto total = details.find("mismatches_total"); total != details.end() && total->is_number_unsigned())
    mismatched = total->get<std::uint64_t>();
  std::chrono::duration<double> took{0};
  if (apply_started_) took = clock_.Now() - *apply_started_;
  apply_started_.reset();
  metrics_.SetLastApply(took, checked >= mismatched ? checked - mismatched : 0, mismatched);
}

}  // namespace smsupd
