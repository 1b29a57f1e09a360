#include "daemon/metrics/metrics_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "common/problems.h"
#include "config/listen_address.h"
#include "daemon/fabric/mad_counters.h"

namespace smsupd {

MetricsService::MetricsService(const std::string& version, const Clock& clock)
    : metrics_(version), event_metrics_(metrics_, clock) {}

MetricsService::~MetricsService() {
  if (events_ != nullptr) events_->Unsubscribe(subscription_);
}

void MetricsService::Follow(EventLog& events) {
  events_ = &events;
  subscription_ = events.Subscribe([this](const control::EventWire& event) { event_metrics_.OnEvent(event); });
}

void MetricsService::RegisterCommands(control::CommandRouter& router) {
  router.Register("metrics", [this](const control::Request&, const control::Caller&,
                                    control::CommandHandler::Reply reply) {
    Refresh();
    reply(control::MakeResponse(control::ResultCode::kSuccess, "Prometheus text format 0.0.4",
                                {{"exposition", Exposition()}}));
  });
}

Status MetricsService::StartListener(const config::MetricsSettings& settings) {
  if (settings.listen.empty()) return Status::Ok();
  // Said before the bind: the address is allowed (metrics.allow_remote),
  // but the packaged units drop its traffic unless a drop-in allows it.
  if (auto address = config::ParseListenAddress(settings.listen); address && !address->loopback)
    spdlog::warn("METRICS_LISTEN_REMOTE {} is not a loopback address: the systemd unit answers other hosts "
                 "only with IPAddressAllow= in {} (or smsupd@NAME.service.d/ for an instance)",
                 settings.listen, config::kMetricsDropInPath);
  if (Status started = listener_.Start(settings.listen, metrics_.collectables()); !started) return started;
  spdlog::info("METRICS_LISTENING Prometheus metrics at http://{}/metrics", settings.listen);
  return Status::Ok();
}

void MetricsService::Observed(const SubnetObservation& seen) {
  for (auto took : seen.sminfo_poll_times) metrics_.ObserveSmInfoPoll(took);
  Refresh();
}

void MetricsService::Refresh() {
  const MadCounters& mad = ProcessMadCounters();
  metrics_.SetMadTotals(mad.requests.load(), mad.retries.load(), mad.timeouts.load(), mad.sent.load());
  if (sources_.control_connections) metrics_.SetControlConnections(sources_.control_connections());
  if (sources_.status) RefreshStatus(sources_.status());
}

void MetricsService::RefreshStatus(const control::StatusWire& status) {
  metrics_.SetLocalSm(status.local_sm.state, status.local_sm.priority);
  if (status.master)
    metrics_.SetMaster(FormatGuid(status.master->guid), status.master->lid, status.master->host);
  else
    metrics_.SetMaster("", 0, "");
  for (std::string_view state : control::kSmStateNames)
    metrics_.SetSmCount(state, static_cast<int>(std::count_if(
                                   status.sms.begin(), status.sms.end(),
                                   [&](const control::SmWire& sm) { return sm.state == state; })));
  metrics_.SetOpenSm(status.opensm.pid != 0, std::chrono::seconds(status.opensm.uptime_s),
                     status.opensm.restarts);
  RefreshOpenSmStart(status.opensm);
  if (sources_.subnet) {
    const SubnetIdentity subnet = sources_.subnet();
    metrics_.SetSubnet(subnet.subnet, subnet.subnet_prefix, FormatGuid(status.opensm.port_guid), status.node);
  }
  metrics_.SetConfig(status.config.generation, status.config.hash);
  for (const auto& problem : kProblems) {
    const bool raised = std::any_of(status.problems.begin(), status.problems.end(),
                                    [&](const control::ProblemWire& p) { return p.id == problem.id; });
    metrics_.SetProblem(std::string(problem.id), raised);
    if (problem.id == kProblemPKeyDrift) metrics_.SetPKeyDrift(raised);
    if (problem.id == kProblemTakeoverWouldChange) metrics_.SetTakeoverWouldChange(raised);
  }
  if (status.failover)
    for (const auto& [race, count] : status.failover->counters) metrics_.SetRaceCount(race, count);
}

// Taken once per OpenSM process, so the gauge holds still between scrapes:
// now minus the whole seconds of uptime the status reports, at most a
// second after the real start.
void MetricsService::RefreshOpenSmStart(const control::OpenSmWire& opensm) {
  if (opensm.pid == opensm_pid_) return;
  opensm_pid_ = opensm.pid;
  if (opensm.pid == 0) return metrics_.SetOpenSmStartTime(0);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  metrics_.SetOpenSmStartTime(now - static_cast<double>(opensm.uptime_s));
}

}  // namespace smsupd
