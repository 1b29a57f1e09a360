// The Daemon's picture of itself: the status wire form, the STATUS= line for
// systemd, and how supervisor events and subnet polls update them.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "daemon/daemon.h"

namespace smsupd {
// OPENSM_EXITED -> "opensm-exited": the event kinds of control_protocol.h.
std::string EventKindOf(std::string_view log_id) {
  std::string kind(log_id);
  for (char& c : kind) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
  return kind;
}

namespace {

std::string HostName() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

std::string HostOf(const config::Config& config, Guid guid) {
  for (const auto& [host, guids] : config.hosts)
    if (std::find(guids.begin(), guids.end(), guid) != guids.end()) return host;
  return "";
}

}  // namespace

control::StatusWire Daemon::BuildStatus() const {
  control::StatusWire status;
  status.node = config_.node.empty() ? HostName() : config_.node;
  OpenSmSnapshot opensm = supervisor_->Snapshot();
  status.opensm = {static_cast<int>(opensm.pid),
                   std::chrono::duration_cast<std::chrono::seconds>(opensm.uptime).count(),
                   opensm.restarts, port_guid_};
  const SubnetObservation& seen = seen_;
  status.local_sm.guid = port_guid_;
  status.local_sm.lid = seen.local_port.lid;
  status.local_sm.pid = opensm.pid;
  if (seen.local_sm) {
    status.local_sm.state = SmStateName(seen.local_sm->state);
    status.local_sm.priority = seen.local_sm->priority;
  }
  if (seen.master) {
    const SmInfo& m = seen.master->info;
    status.master = control::MasterWire{m.guid, seen.master->lid, m.priority, HostOf(config_, m.guid)};
  }
  for (const auto& record : seen.sms) {
    status.sms.push_back({record.info.guid, record.lid, SmStateName(record.info.state),
                          record.info.priority, HostOf(config_, record.info.guid)});
  }
  status.config = {generation_.number, generation_.hash};
  const policy::FailoverPolicy& policy = failover_->policy();
  status.failover = control::FailoverWire{policy::SupervisorStateName(policy.state()),
                                          config::RoleName(config_.sm.role), config_.sm.preempt,
                                          policy.commanded_priority().value_or(-1)};
  status.problems = health_.List();
  return status;
}

// "MASTER, priority 15, 1 standby, config gen 3".
std::string Daemon::StatusLine() const {
  std::string generation = "config gen " + std::to_string(generation_.number);
  if (!supervisor_ || !failover_) return "starting, " + generation;
  OpenSmSnapshot opensm = supervisor_->Snapshot();
  if (opensm.state != OpenSmSnapshot::State::kRunning)
    return std::string("OpenSM ") + SupervisorStateName(opensm.state) + ", " + generation;
  const SubnetObservation& seen = seen_;
  if (!seen.local_sm) return "OpenSM running (pid " + std::to_string(opensm.pid) + "), " + generation;
  int standbys = static_cast<int>(std::count_if(seen.sms.begin(), seen.sms.end(), [&](const SmRecord& r) {
    return r.info.state == SmState::kStandby && r.info.guid != port_guid_;
  }));
  std::string line = std::string(SmStateName(seen.local_sm->state)) + ", priority " +
                     std::to_string(seen.local_sm->priority) + ", " + std::to_string(standbys) +
                     (standbys == 1 ? " standby, " : " standbys, ") + generation;
  auto problems = health_.List();
  if (!problems.empty()) line += ", " + std::to_string(problems.size()) + " problem(s)";
  return line;
}

void Daemon::PublishStatus() {
  std::string line = StatusLine();
  if (line == published_status_) return;
  published_status_ = line;
  notifier_.Notify("STATUS=" + line);
}

void Daemon::OnSupervisorEvent(const OpenSmEvent& event) {
  nlohmann::json details = {{"text", event.details}};
  if (event.pid) details["pid"] = event.pid;
  if (event.kind == "OPENSM_CRASH_LOOP") {
    health_.Raise("OPENSM_CRASH_LOOP", event.details);
    return;
  }
  std::string kind = EventKindOf(event.kind);
  if (event.kind == "OPENSM_STARTED") {
    pending_restart_.clear();  // the new OpenSM reads the current files
    health_.Clear("RESTART_NEEDED");
    if (opensm_has_exited_) kind = control::kEventOpenSmRestarted;
  }
  if (event.kind == "OPENSM_EXITED") opensm_has_exited_ = true;
  AddEvent(kind, details);
  // The failover policy hears of every start and exit at once (a MASTER's
  // exit hands over to the best standby in the same step).
  if (failover_) {
    if (event.kind == "OPENSM_STARTED" || event.kind == "OPENSM_ADOPTED")
      failover_->OpenSmChanged(true, "");
    else if (event.kind == "OPENSM_EXITED" || event.kind == "OPENSM_STOPPED")
      failover_->OpenSmChanged(false, supervisor_->Snapshot().last_exit);
  }
  if (server_) PublishStatus();
}

void Daemon::OnSubnetPoll(const SubnetObservation& seen, const std::vector<ObservedChange>& changes) {
  // After adopting a running OpenSM the first poll is only a baseline:
  // nothing changed on the fabric.
  bool baseline = !first_poll_done_ && supervisor_->Snapshot().adopted;
  first_poll_done_ = true;
  for (const auto& change : changes) {
    spdlog::info("{} {}{}", change.log_id, change.text, baseline ? " (first look after adoption)" : "");
    if (!baseline) AddEvent(change.kind, change.details);
  }
  if (health_.Has("OPENSM_CRASH_LOOP") && !supervisor_->Snapshot().crash_loop)
    health_.Clear("OPENSM_CRASH_LOOP");
  health_.Set("LOCAL_PORT_UNREADABLE", !seen.port_error.empty(),
              "the local port cannot be read: " + seen.port_error);
  PublishStatus();
}

}  // namespace smsupd
