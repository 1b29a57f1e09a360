// The counters and durations that follow from events (`smctl events`): the
// event log hands every event to OnEvent, in order, on the event loop.
//
//   failover      detection (master-lost, no-master, dual-master,
//                 handover-sent, failover-requested, preempt,
//                 opensm-restart-requested) -> new master confirmed
//                 (master-changed to an SM, or handover-done): counted by
//                 cause, and its duration; a failure event or a minute
//                 without a new master drops it uncounted
//   master        master-changed to an SM
//   apply         config-applied -> pkey-verified / pkey-not-verified /
//                 pkey-drift / pkey-verify-failed: counted by result, and
//                 its duration and port counts; config-rejected and
//                 config-rolled-back are results of their own
#pragma once

#include <optional>
#include <string>

#include "common/control_wire.h"
#include "daemon/clock.h"
#include "daemon/metrics/daemon_metrics.h"

namespace smsupd {

class EventMetrics {
 public:
  // `metrics` and `clock` must outlive this.
  EventMetrics(DaemonMetrics& metrics, const Clock& clock) : metrics_(metrics), clock_(clock) {}

  void OnEvent(const control::EventWire& event);

 private:
  struct Pending {
    std::string cause;
    Clock::TimePoint since;
  };

  void FailoverEvent(const control::EventWire& event);
  void ApplyEvent(const control::EventWire& event);
  void ApplyVerified(std::string_view result, const nlohmann::json& details);

  DaemonMetrics& metrics_;
  const Clock& clock_;
  std::optional<Pending> failover_;
  std::optional<Clock::TimePoint> apply_started_;
};

}  // namespace smsupd
