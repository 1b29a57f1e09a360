// The daemon's Prometheus metrics (docs/metrics.md lists every one): the
// families in one registry, and setters named after what happened. The
// registry is read by `smctl metrics` (Exposition) and by the HTTP listener
// (metrics_listener.h) from its own threads: prometheus-cpp metrics are
// thread-safe; every setter here runs on the event loop.
//
// Naming (Prometheus conventions): the prefix smsupd_, base units
// (seconds), counters end in _total, facts with text values are _info
// gauges of value 1 with labels. No label takes an unbounded set of values:
// states, causes, results and problem IDs are fixed lists, a command name is
// one of the protocol's, and the master's GUID/LID/node are one series at a
// time. No secret (sm_key, m_key, sa_key) is ever a label or a value.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <vector>

#include "daemon/metrics/process_collector.h"

namespace smsupd {

// Why a failover started (smsupd_failovers_total{cause}).
inline constexpr std::string_view kFailoverCauses[] = {
    "master_lost", "no_master", "dual_master", "opensm_exit", "operator", "preempt", "restart"};
// How an apply ended (smsupd_applies_total{result}).
inline constexpr std::string_view kApplyResults[] = {"verified",    "unverified", "drift",
                                                     "failed",      "rolled_back", "rejected"};
// Hook runs (smsupd_hook_runs_total{result}).
inline constexpr std::string_view kHookResults[] = {"ok", "failed", "timeout", "refused"};

class DaemonMetrics {
 public:
  // smsupd_start_time_seconds is the time of this construction (the
  // daemon builds its metrics as it starts). `process` reads /proc.
  explicit DaemonMetrics(const std::string& version, ProcessPaths process = {});

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }
  // What /metrics serves: the registry and the process collector.
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables() const { return {registry_, process_}; }
  // The Prometheus text format (version 0.0.4) of every family.
  std::string Exposition() const;

  // The subnet this daemon supervises: one smsupd_subnet_info series.
  // `subnet` is what rules aggregate by (the same on both daemons of a pair).
  void SetSubnet(const std::string& subnet, const std::string& subnet_prefix, const std::string& port_guid,
                 const std::string& node);

  // Local SM, as the last watch round saw it (state NOTACTIVE when absent).
  void SetLocalSm(std::string_view state, int priority);
  // The master: one smsupd_master_info series (guid "" = none seen).
  void SetMaster(const std::string& guid, std::uint16_t lid, const std::string& node);
  void SetSmCount(std::string_view state, int count);
  void MasterChanged() { master_changes_->Increment(); }
  void FailoverDone(std::string_view cause, std::chrono::duration<double> took);
  // A race the failover policy ended (dual_master, no_master, ...), counted up to `total`.
  void SetRaceCount(const std::string& race, std::uint64_t total);
  void SetOpenSm(bool running, std::chrono::duration<double> uptime, int restarts);
  // When the running OpenSM started, unix time; 0 while none runs.
  void SetOpenSmStartTime(double unix_seconds) { opensm_start_time_->Set(unix_seconds); }
  void SetConfig(std::uint64_t generation, const std::string& hash);
  void ApplyEnded(std::string_view result);
  void SetLastApply(std::chrono::duration<double> took, std::uint64_t verified, std::uint64_t mismatched);
  // A problem of the catalogue (common/problems.h), labelled with its ID
  // and severity; an ID outside it is no series.
  void SetProblem(const std::string& id, bool present);
  void SetPKeyDrift(bool drift) { pkey_drift_->Set(drift ? 1 : 0); }
  void SetTakeoverWouldChange(bool would) { takeover_would_change_->Set(would ? 1 : 0); }
  // The last ports read-out: ports with a problem of each kind ("port-down",
  // "below-rate", ...), ports read and not read, its duration and MADs.
  void SetPortsReadout(const std::map<std::string, int>& problems, int ports, int unread, double seconds, int mads);
  void ObserveSmInfoPoll(std::chrono::duration<double> took) { poll_seconds_->Observe(took.count()); }
  // The process's MAD counters (daemon/fabric/mad_counters.h), counted up to these totals.
  void SetMadTotals(std::uint64_t requests, std::uint64_t retries, std::uint64_t timeouts, std::uint64_t sent);
  void SetControlConnections(std::size_t count) { control_connections_->Set(static_cast<double>(count)); }
  void ControlRequest(const std::string& command, const std::string& result);
  void HookRun(std::string_view result);
  void HookEventDropped() { hook_events_dropped_->Increment(); }

 private:
  prometheus::Gauge& LabelledGauge(prometheus::Family<prometheus::Gauge>& family,
                                   const prometheus::Labels& labels);
  prometheus::Counter& LabelledCounter(prometheus::Family<prometheus::Counter>& family,
                                       const prometheus::Labels& labels);
  static void CountUpTo(prometheus::Counter& counter, std::uint64_t total);

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<ProcessCollector> process_;
  prometheus::Family<prometheus::Gauge>* subnet_info_;
  prometheus::Gauge* subnet_info_series_ = nullptr;
  prometheus::Family<prometheus::Histogram>* failover_seconds_;
  prometheus::Gauge* opensm_start_time_;
  prometheus::Family<prometheus::Gauge>* local_sm_state_;
  prometheus::Gauge* local_sm_priority_;
  prometheus::Family<prometheus::Gauge>* master_info_;
  prometheus::Gauge* master_info_series_ = nullptr;
  prometheus::Gauge* master_present_;
  prometheus::Family<prometheus::Gauge>* sms_;
  prometheus::Counter* master_changes_;
  prometheus::Family<prometheus::Counter>* failovers_;
  prometheus::Gauge* last_failover_seconds_;
  prometheus::Family<prometheus::Counter>* races_;
  prometheus::Gauge* opensm_up_;
  prometheus::Gauge* opensm_uptime_;
  prometheus::Counter* opensm_restarts_;
  prometheus::Gauge* config_generation_;
  prometheus::Family<prometheus::Gauge>* config_info_;
  prometheus::Gauge* config_info_series_ = nullptr;
  prometheus::Family<prometheus::Counter>* applies_;
  prometheus::Gauge* last_apply_seconds_;
  prometheus::Gauge* last_apply_verified_;
  prometheus::Gauge* last_apply_mismatched_;
  prometheus::Gauge* pkey_drift_;
  prometheus::Gauge* takeover_would_change_;
  prometheus::Family<prometheus::Gauge>* port_problems_;
  prometheus::Gauge* ports_read_;
  prometheus::Gauge* ports_unread_;
  prometheus::Gauge* ports_readout_seconds_;
  prometheus::Gauge* ports_readout_mads_;
  prometheus::Histogram* poll_seconds_;
  prometheus::Counter* mad_requests_;
  prometheus::Counter* mad_sent_;
  prometheus::Counter* mad_retries_;
  prometheus::Counter* mad_timeouts_;
  prometheus::Family<prometheus::Gauge>* problems_;
  prometheus::Gauge* control_connections_;
  prometheus::Family<prometheus::Counter>* control_requests_;
  prometheus::Family<prometheus::Counter>* hook_runs_;
  prometheus::Counter* hook_events_dropped_;
};

}  // namespace smsupd
