#include "daemon/metrics/daemon_metrics.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <utility>

#include "common/control_wire.h"
#include "common/problems.h"

namespace smsupd {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

// SMInfo polls answer in well under a millisecond on an idle fabric; the
// poll's own timeout is 50 ms per attempt, three attempts.
const prometheus::Histogram::BucketBoundaries kPollBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1};
// Failovers: a HANDOVER completes in under a second on the test bed
// (docs/failover.md), a lost master is noticed after poll_interval_ms x
// miss_threshold (0.45 s by default, up to 20 s), OpenSM's own polling
// takes 50-60 s, and an unconfirmed failover is dropped after 60 s.
const prometheus::Histogram::BucketBoundaries kFailoverBuckets = {0.25, 0.5, 0.75, 1,  1.5, 2,  3,
                                                                  5,    10,  20,   30, 45,  60};

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

DaemonMetrics::DaemonMetrics(const std::string& version, ProcessPaths process)
    : registry_(std::make_shared<prometheus::Registry>()),
      process_(std::make_shared<ProcessCollector>(std::move(process))) {
  auto& r = *registry_;
  BuildGauge().Name("smsupd_build_info").Help("smsupd's version (value 1)").Register(r).Add(
      {{"version", version}}).Set(1);
  BuildGauge()
      .Name("smsupd_start_time_seconds")
      .Help("when this smsupd started, unix time")
      .Register(r)
      .Add({})
      .Set(UnixNow());
  subnet_info_ = &BuildGauge()
                      .Name("smsupd_subnet_info")
                      .Help("the subnet this smsupd supervises (value 1): subnet names it for alert rules")
                      .Register(r);
  local_sm_state_ = &BuildGauge()
                         .Name("smsupd_local_sm_state")
                         .Help("1 for the local SM's SMInfo state, 0 for the others")
                         .Register(r);
  for (std::string_view state : control::kSmStateNames) local_sm_state_->Add({{"state", std::string(state)}});
  local_sm_priority_ =
      &BuildGauge().Name("smsupd_local_sm_priority").Help("the local SM's SMInfo priority (0-15)").Register(r).Add({});
  master_info_ = &BuildGauge()
                      .Name("smsupd_master_info")
                      .Help("the master SM this node sees (value 1; absent without a master)")
                      .Register(r);
  master_present_ = &BuildGauge()
                         .Name("smsupd_master_present")
                         .Help("1 when this node sees a master SM, else 0")
                         .Register(r)
                         .Add({});
  sms_ = &BuildGauge().Name("smsupd_sms").Help("SMs of the subnet by SMInfo state").Register(r);
  for (std::string_view state : control::kSmStateNames) sms_->Add({{"state", std::string(state)}});
  master_changes_ = &BuildCounter()
                         .Name("smsupd_master_changes_total")
                         .Help("changes of the master this node sees")
                         .Register(r)
                         .Add({});
  failovers_ = &BuildCounter()
                    .Name("smsupd_failovers_total")
                    .Help("failovers this node's smsupd started, by cause, once the new master was seen")
                    .Register(r);
  for (std::string_view cause : kFailoverCauses) failovers_->Add({{"cause", std::string(cause)}});
  failover_seconds_ = &BuildHistogram()
                           .Name("smsupd_failover_duration_seconds")
                           .Help("counted failovers by cause: detection to the new master confirmed")
                           .Register(r);
  for (std::string_view cause : kFailoverCauses)
    failover_seconds_->Add({{"cause", std::string(cause)}}, kFailoverBuckets);
  last_failover_seconds_ = &BuildGauge()
                                .Name("smsupd_last_failover_duration_seconds")
                                .Help("the last failover: its detection to the new master confirmed")
                                .Register(r)
                                .Add({});
  races_ = &BuildCounter()
                .Name("smsupd_failover_races_total")
                .Help("fabric races the failover policy ended, by race")
                .Register(r);
  opensm_up_ = &BuildGauge().Name("smsupd_opensm_up").Help("1 while the local OpenSM runs").Register(r).Add({});
  opensm_uptime_ = &BuildGauge()
                        .Name("smsupd_opensm_uptime_seconds")
                        .Help("how long the local OpenSM has been running")
                        .Register(r)
                        .Add({});
  opensm_start_time_ = &BuildGauge()
                           .Name("smsupd_opensm_start_time_seconds")
                           .Help("when the running local OpenSM started, unix time; 0 while none runs")
                           .Register(r)
                           .Add({});
  opensm_restarts_ = &BuildCounter()
                          .Name("smsupd_opensm_restarts_total")
                          .Help("starts of the local OpenSM after an exit")
                          .Register(r)
                          .Add({});
  config_generation_ = &BuildGauge()
                            .Name("smsupd_config_generation")
                            .Help("the config generation in force")
                            .Register(r)
                            .Add({});
  config_info_ = &BuildGauge()
                      .Name("smsupd_config_info")
                      .Help("the config in force (value 1): its hash")
                      .Register(r);
  applies_ = &BuildCounter().Name("smsupd_applies_total").Help("config applies by result").Register(r);
  for (std::string_view result : kApplyResults) applies_->Add({{"result", std::string(result)}});
  last_apply_seconds_ = &BuildGauge()
                             .Name("smsupd_last_apply_duration_seconds")
                             .Help("the last apply: install to the end of its verification")
                             .Register(r)
                             .Add({});
  last_apply_verified_ = &BuildGauge()
                              .Name("smsupd_last_apply_verified_ports")
                              .Help("ports whose P_Key table the last apply's verification read")
                              .Register(r)
                              .Add({});
  last_apply_mismatched_ = &BuildGauge()
                                .Name("smsupd_last_apply_mismatched_ports")
                                .Help("ports whose P_Key table differed from the config at the last verification")
                                .Register(r)
                                .Add({});
  pkey_drift_ = &BuildGauge()
                     .Name("smsupd_pkey_drift")
                     .Help("1 while the fabric's P_Key tables differ from this (non-master) node's config")
                     .Register(r)
                     .Add({});
  takeover_would_change_ = &BuildGauge()
                               .Name("smsupd_takeover_would_change")
                               .Help("1 while the twin readiness check finds that a takeover by this standby "
                                     "would change the fabric")
                               .Register(r)
                               .Add({});
  port_problems_ = &BuildGauge()
                       .Name("smsupd_port_problems")
                       .Help("ports with a problem of each kind at the last ports read-out (port-down, wrong-sm, "
                             "not-active, errors, below-rate)")
                       .Register(r);
  for (const char* kind : {"port-down", "wrong-sm", "not-active", "errors", "below-rate"})
    port_problems_->Add({{"kind", kind}});
  ports_read_ = &BuildGauge().Name("smsupd_ports_read").Help("ports the last ports read-out read").Register(r).Add({});
  ports_unread_ = &BuildGauge()
                       .Name("smsupd_ports_unread")
                       .Help("ports (or their counters) the last ports read-out could not read")
                       .Register(r)
                       .Add({});
  ports_readout_seconds_ = &BuildGauge()
                                .Name("smsupd_ports_readout_seconds")
                                .Help("how long the last ports read-out took (walk and paced PortCounters)")
                                .Register(r)
                                .Add({});
  ports_readout_mads_ = &BuildGauge()
                             .Name("smsupd_ports_readout_mads")
                             .Help("MADs the last ports read-out sent (SMPs of the walk and PerfMgt Gets)")
                             .Register(r)
                             .Add({});
  poll_seconds_ = &BuildHistogram()
                       .Name("smsupd_mad_poll_duration_seconds")
                       .Help("answered SMInfo polls of the failover watch (local SM and master)")
                       .Register(r)
                       .Add({}, kPollBuckets);
  auto& mad = BuildCounter().Name("smsupd_mad_requests_total").Help("single MAD requests sent").Register(r);
  mad_requests_ = &mad.Add({});
  mad_sent_ = &BuildCounter()
                   .Name("smsupd_mad_sent_total")
                   .Help("every MAD sent to the fabric: polls, SA queries, P_Key reads, the subnet walk, retries")
                   .Register(r)
                   .Add({});
  mad_retries_ = &BuildCounter()
                      .Name("smsupd_mad_retries_total")
                      .Help("MAD attempts after one that got no answer")
                      .Register(r)
                      .Add({});
  mad_timeouts_ = &BuildCounter()
                       .Name("smsupd_mad_timeouts_total")
                       .Help("MAD requests that got no answer in any attempt")
                       .Register(r)
                       .Add({});
  problems_ = &BuildGauge()
                   .Name("smsupd_health_problem")
                   .Help("1 while the health problem is raised, by its ID and the catalogue's severity")
                   .Register(r);
  for (const auto& problem : kProblems)
    problems_->Add({{"id", std::string(problem.id)}, {"severity", SeverityName(problem.severity)}});
  control_connections_ = &BuildGauge()
                              .Name("smsupd_control_connections")
                              .Help("open connections to the control socket")
                              .Register(r)
                              .Add({});
  control_requests_ = &BuildCounter()
                           .Name("smsupd_control_requests_total")
                           .Help("control socket requests by command and result")
                           .Register(r);
  hook_runs_ = &BuildCounter().Name("smsupd_hook_runs_total").Help("hook runs by result").Register(r);
  for (std::string_view result : kHookResults) hook_runs_->Add({{"result", std::string(result)}});
  hook_events_dropped_ = &BuildCounter()
                              .Name("smsupd_hook_events_dropped_total")
                              .Help("events no hook ran for: the hook queue was full")
                              .Register(r)
                              .Add({});
}

std::string DaemonMetrics::Exposition() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  for (auto& family : process_->Collect()) families.push_back(std::move(family));
  return prometheus::TextSerializer().Serialize(families);
}

void DaemonMetrics::SetSubnet(const std::string& subnet, const std::string& subnet_prefix,
                              const std::string& port_guid, const std::string& node) {
  prometheus::Labels labels = {
      {"subnet", subnet}, {"subnet_prefix", subnet_prefix}, {"port_guid", port_guid}, {"node", node}};
  if (subnet_info_series_ != nullptr && subnet_info_->Has(labels)) return;
  if (subnet_info_series_ != nullptr) subnet_info_->Remove(subnet_info_series_);
  subnet_info_series_ = &subnet_info_->Add(labels);
  subnet_info_series_->Set(1);
}

prometheus::Gauge& DaemonMetrics::LabelledGauge(prometheus::Family<prometheus::Gauge>& family,
                                                const prometheus::Labels& labels) {
  return family.Add(labels);  // Add returns the existing series for known labels
}

prometheus::Counter& DaemonMetrics::LabelledCounter(prometheus::Family<prometheus::Counter>& family,
                                                    const prometheus::Labels& labels) {
  return family.Add(labels);
}

void DaemonMetrics::CountUpTo(prometheus::Counter& counter, std::uint64_t total) {
  const double now = counter.Value();
  if (static_cast<double>(total) > now) counter.Increment(static_cast<double>(total) - now);
}

void DaemonMetrics::SetLocalSm(std::string_view state, int priority) {
  for (std::string_view name : control::kSmStateNames)
    LabelledGauge(*local_sm_state_, {{"state", std::string(name)}}).Set(state == name ? 1 : 0);
  local_sm_priority_->Set(priority);
}

void DaemonMetrics::SetMaster(const std::string& guid, std::uint16_t lid, const std::string& node) {
  master_present_->Set(guid.empty() ? 0 : 1);
  prometheus::Labels labels = {{"guid", guid}, {"lid", std::to_string(lid)}, {"node", node}};
  if (master_info_series_ != nullptr && !guid.empty() && master_info_->Has(labels)) return;
  if (master_info_series_ != nullptr) master_info_->Remove(master_info_series_);
  master_info_series_ = nullptr;
  if (!guid.empty()) {
    master_info_series_ = &master_info_->Add(labels);
    master_info_series_->Set(1);
  }
}

void DaemonMetrics::SetSmCount(std::string_view state, int count) {
  LabelledGauge(*sms_, {{"state", std::string(state)}}).Set(count);
}

void DaemonMetrics::FailoverDone(std::string_view cause, std::chrono::duration<double> took) {
  LabelledCounter(*failovers_, {{"cause", std::string(cause)}}).Increment();
  last_failover_seconds_->Set(took.count());
  failover_seconds_->Add({{"cause", std::string(cause)}}, kFailoverBuckets).Observe(took.count());
}

void DaemonMetrics::SetRaceCount(const std::string& race, std::uint64_t total) {
  CountUpTo(LabelledCounter(*races_, {{"race", race}}), total);
}

void DaemonMetrics::SetOpenSm(bool running, std::chrono::duration<double> uptime, int restarts) {
  opensm_up_->Set(running ? 1 : 0);
  opensm_uptime_->Set(running ? uptime.count() : 0);
  CountUpTo(*opensm_restarts_, static_cast<std::uint64_t>(std::max(restarts, 0)));
}

void DaemonMetrics::SetConfig(std::uint64_t generation, const std::string& hash) {
  config_generation_->Set(static_cast<double>(generation));
  prometheus::Labels labels = {{"hash", hash}};
  if (config_info_series_ != nullptr && config_info_->Has(labels)) return;
  if (config_info_series_ != nullptr) config_info_->Remove(config_info_series_);
  config_info_series_ = &config_info_->Add(labels);
  config_info_series_->Set(1);
}

void DaemonMetrics::ApplyEnded(std::string_view result) {
  LabelledCounter(*applies_, {{"result", std::string(result)}}).Increment();
}

void DaemonMetrics::SetLastApply(std::chrono::duration<double> took, std::uint64_t verified,
                                 std::uint64_t mismatched) {
  last_apply_seconds_->Set(took.count());
  last_apply_verified_->Set(static_cast<double>(verified));
  last_apply_mismatched_->Set(static_cast<double>(mismatched));
}

void DaemonMetrics::SetProblem(const std::string& id, bool present) {
  const ProblemInfo* problem = FindProblem(id);
  if (problem == nullptr) return;
  LabelledGauge(*problems_, {{"id", id}, {"severity", SeverityName(problem->severity)}}).Set(present ? 1 : 0);
}

void DaemonMetrics::SetPortsReadout(const std::map<std::string, int>& problems, int ports, int unread,
                                    double seconds, int mads) {
  for (const auto& [kind, count] : problems) LabelledGauge(*port_problems_, {{"kind", kind}}).Set(count);
  ports_read_->Set(ports);
  ports_unread_->Set(unread);
  ports_readout_seconds_->Set(seconds);
  ports_readout_mads_->Set(mads);
}

void DaemonMetrics::SetMadTotals(std::uint64_t requests, std::uint64_t retries, std::uint64_t timeouts,
                                 std::uint64_t sent) {
  CountUpTo(*mad_requests_, requests);
  CountUpTo(*mad_sent_, sent);
  CountUpTo(*mad_retries_, retries);
  CountUpTo(*mad_timeouts_, timeouts);
}

void DaemonMetrics::ControlRequest(const std::string& command, const std::string& result) {
  LabelledCounter(*control_requests_, {{"command", command}, {"result", result}}).Increment();
}

void DaemonMetrics::HookRun(std::string_view result) {
  LabelledCounter(*hook_runs_, {{"result", std::string(result)}}).Increment();
}

}  // namespace smsupd
