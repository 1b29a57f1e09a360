#include "daemon/status/status_board.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "common/problems.h"
#include "daemon/status/event_kinds.h"
#include "common/control_wire.h"

namespace smsupd {
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

StatusBoard::StatusBoard(const RunningConfig& running, Notifier& notifier)
    : running_(running), notifier_(notifier),
      health_([this](const control::ProblemWire& problem, bool raised) {
        spdlog::log(raised ? spdlog::level::warn : spdlog::level::info, "{} {} {}",
                    raised ? "PROBLEM_RAISED" : "PROBLEM_CLEARED", problem.id, problem.text);
        AddEvent(raised ? control::kEventProblemRaised : control::kEventProblemCleared,
                 {{"id", problem.id}, {"text", problem.text}});
      }) {}

void StatusBoard::Attach(Sources sources) { sources_ = std::move(sources); }

void StatusBoard::RegisterCommands(control::CommandRouter& router) {
  router.Register("status", [this](const control::Request&, const control::Caller&,
                                   control::CommandHandler::Reply reply) {
    reply(control::MakeResponse(control::ResultCode::kSuccess, Line(), control::ToJson(Build())));
  });
}

void StatusBoard::AddEvent(std::string_view kind, nlohmann::json details) {
  events_.Append(kind, std::move(details));
}

void StatusBoard::Announce(const std::string& log_id, const std::string& text) {
  spdlog::log(LogLevelOf(log_id), "{} {}", log_id, text);
  AddEvent(EventKindOf(log_id), {{"text", text}});
}

void StatusBoard::RaiseProblem(const std::string& id, const std::string& text) {
  if (!FindProblem(id)) spdlog::error("PROBLEM_UNLISTED {} is not in the problem catalogue", id);
  health_.Raise(id, text);
}

void StatusBoard::ClearProblem(const std::string& id) { health_.Clear(id); }

bool StatusBoard::HasProblem(const std::string& id) const { return health_.Has(id); }

void StatusBoard::OpenSmChanged(const OpenSmEvent& event) {
  if (event.kind == "OPENSM_CRASH_LOOP") {
    RaiseProblem(kProblemOpenSmCrashLoop, event.details);
    return;
  }
  // A restart that cannot even spawn OpenSM (binary gone) is no exit: only
  // this problem tells the operator why no OpenSM runs.
  if (event.kind == "OPENSM_START_FAILED")
    RaiseProblem(kProblemOpenSmStartFailed, "OpenSM cannot be started: " + event.details);
  else if ((event.kind == "OPENSM_STARTED" || event.kind == "OPENSM_ADOPTED") &&
           health_.Has(kProblemOpenSmStartFailed))
    ClearProblem(kProblemOpenSmStartFailed);
  nlohmann::json details = {{"text", event.details}};
  if (event.pid) details["pid"] = event.pid;
  std::string kind = EventKindOf(event.kind);
  if (event.kind == "OPENSM_STARTED" && opensm_has_exited_) kind = control::kEventOpenSmRestarted;
  if (event.kind == "OPENSM_EXITED" || event.kind == "OPENSM_KILLED_AFTER_HANDOVER")
    opensm_has_exited_ = true;
  AddEvent(kind, details);
}

void StatusBoard::Observed(const SubnetObservation& seen) {
  auto changes = CompareObservations(seen_, seen);
  seen_ = seen;
  // After adopting a running OpenSM the first round is only a baseline:
  // nothing changed on the fabric.
  const OpenSmSnapshot opensm = sources_.opensm ? sources_.opensm() : OpenSmSnapshot{};
  bool baseline = !first_round_done_ && opensm.adopted;
  first_round_done_ = true;
  for (const auto& change : changes) {
    spdlog::info("{} {}{}", change.log_id, change.text, baseline ? " (first look after adoption)" : "");
    if (!baseline) AddEvent(change.kind, change.details);
  }
  if (health_.Has(kProblemOpenSmCrashLoop) && !opensm.crash_loop) ClearProblem(kProblemOpenSmCrashLoop);
  health_.Set(kProblemLocalPortUnreadable, !seen.port_error.empty(),
              "the local port cannot be read: " + seen.port_error);
  Publish();
}

control::StatusWire StatusBoard::Build() const {
  const config::Config& config = running_.config;
  const Guid port = running_.port_guid;
  control::StatusWire status;
  status.node = config.node.empty() ? HostName() : config.node;
  OpenSmSnapshot opensm = sources_.opensm ? sources_.opensm() : OpenSmSnapshot{};
  status.opensm = {static_cast<int>(opensm.pid),
                   std::chrono::duration_cast<std::chrono::seconds>(opensm.uptime).count(),
                   opensm.restarts, port};
  status.local_sm.guid = port;
  status.local_sm.lid = seen_.local_port.lid;
  status.local_sm.pid = opensm.pid;
  if (seen_.local_sm) {
    status.local_sm.state = SmStateName(seen_.local_sm->state);
    status.local_sm.priority = seen_.local_sm->priority;
  }
  if (seen_.master) {
    const SmInfo& m = seen_.master->info;
    status.master = control::MasterWire{m.guid, seen_.master->lid, m.priority, HostOf(config, m.guid)};
  }
  for (const auto& record : seen_.sms) {
    status.sms.push_back({record.info.guid, record.lid, SmStateName(record.info.state),
                          record.info.priority, HostOf(config, record.info.guid)});
  }
  status.config = {running_.generation.number, running_.generation.hash};
  if (sources_.failover) {
    status.failover = sources_.failover();
    status.failover->role = config::RoleName(config.sm.role);
    status.failover->preempt = config.sm.preempt;
  }
  status.problems = health_.List();
  return status;
}

std::string StatusBoard::Line() const {
  std::string generation = "config gen " + std::to_string(running_.generation.number);
  if (!sources_.opensm || !sources_.failover) return "starting, " + generation;
  OpenSmSnapshot opensm = sources_.opensm();
  if (opensm.state != OpenSmSnapshot::State::kRunning)
    return std::string("OpenSM ") + SupervisorStateName(opensm.state) + ", " + generation;
  if (!seen_.local_sm) return "OpenSM running (pid " + std::to_string(opensm.pid) + "), " + generation;
  const Guid port = running_.port_guid;
  int standbys = static_cast<int>(std::count_if(seen_.sms.begin(), seen_.sms.end(), [&](const SmRecord& r) {
    return r.info.state == SmState::kStandby && r.info.guid != port;
  }));
  std::string line = std::string(SmStateName(seen_.local_sm->state)) + ", priority " +
                     std::to_string(seen_.local_sm->priority) + ", " + std::to_string(standbys) +
                     (standbys == 1 ? " standby, " : " standbys, ") + generation;
  auto problems = health_.List();
  if (!problems.empty()) line += ", " + std::to_string(problems.size()) + " problem(s)";
  return line;
}

void StatusBoard::Publish() {
  std::string line = Line();
  if (line == published_) return;
  published_ = line;
  notifier_.Notify("STATUS=" + line);
}

}  // namespace smsupd
