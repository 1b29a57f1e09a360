// The daemon's metrics as one part (docs/metrics.md): the registry
// (DaemonMetrics), the counters events drive (EventMetrics), the gauges
// refreshed from the status picture after every watch round, the `metrics`
// command (`smctl metrics`) and the optional HTTP listener (metrics.listen).
// `smctl metrics` and /metrics serialize the same registry.
//
// Runs on the event loop; the listener's threads only read the registry.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/control_wire.h"
#include "common/result.h"
#include "config/config.h"
#include "daemon/clock.h"
#include "daemon/control/command_router.h"
#include "daemon/metrics/daemon_metrics.h"
#include "daemon/metrics/event_metrics.h"
#include "daemon/metrics/metrics_listener.h"
#include "daemon/metrics/subnet_identity.h"
#include "daemon/status/event_log.h"
#include "daemon/status/subnet_observation.h"

namespace smsupd {

class MetricsService {
 public:
  // What the gauges are read from at each refresh.
  struct Sources {
    std::function<control::StatusWire()> status;
    std::function<std::size_t()> control_connections;
    std::function<SubnetIdentity()> subnet;  // from the config in force
  };

  MetricsService(const std::string& version, const Clock& clock);
  ~MetricsService();

  // Every event appended to `events` from now on drives EventMetrics.
  void Follow(EventLog& events);
  void Attach(Sources sources) { sources_ = std::move(sources); }
  // metrics (smctl metrics): refreshes, then answers the exposition.
  void RegisterCommands(control::CommandRouter& router);
  // metrics.listen: nothing when empty.
  Status StartListener(const config::MetricsSettings& settings);

  // A watch round: its SMInfo poll times, then a refresh of every gauge.
  void Observed(const SubnetObservation& seen);
  void Refresh();
  // The control server answered `command` with `result`.
  void RequestAnswered(const std::string& command, const std::string& result) {
    metrics_.ControlRequest(command, result);
  }

  DaemonMetrics& metrics() { return metrics_; }
  std::string Exposition() { return metrics_.Exposition(); }

 private:
  void RefreshStatus(const control::StatusWire& status);
  void RefreshOpenSmStart(const control::OpenSmWire& opensm);

  DaemonMetrics metrics_;
  EventMetrics event_metrics_;
  Sources sources_;
  MetricsListener listener_;
  EventLog* events_ = nullptr;
  EventLog::SubscriptionId subscription_ = 0;
  int opensm_pid_ = 0;  // whose start time smsupd_opensm_start_time_seconds holds
};

}  // namespace smsupd
