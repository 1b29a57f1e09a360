// The daemon's picture of itself, in one place: the status `smctl status`
// answers (StatusWire), the STATUS= line systemd shows, the event log that
// `smctl events` reads, the health problems, and how supervisor events and
// failover watch rounds update all of them. It is the Reporter every other
// subsystem reports through, so that the journal line, the event and the
// problem of one happening always agree (severities: common/problems.h,
// event_kinds.h).
//
// Runs on the io_context thread. Reads the other parts only through
// Sources, attached once they exist; until then status says "starting".
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/apply/running_config.h"
#include "daemon/control/command_router.h"
#include "daemon/notifier.h"
#include "daemon/opensm/opensm_supervisor.h"
#include "daemon/status/event_log.h"
#include "daemon/status/health_problems.h"
#include "daemon/status/reporter.h"
#include "daemon/status/subnet_observation.h"

namespace smsupd {

class StatusBoard : public Reporter {
 public:
  // What the picture is built from, read at each request.
  struct Sources {
    std::function<OpenSmSnapshot()> opensm;
    std::function<control::FailoverWire()> failover;
  };

  // `running` and `notifier` must outlive the board.
  StatusBoard(const RunningConfig& running, Notifier& notifier);

  void Attach(Sources sources);
  // status (smctl status).
  void RegisterCommands(control::CommandRouter& router);

  EventLog& events() { return events_; }
  const SubnetObservation& seen() const { return seen_; }

  // Reporter.
  void AddEvent(std::string_view kind, nlohmann::json details) override;
  void Announce(const std::string& log_id, const std::string& text) override;
  void RaiseProblem(const std::string& id, const std::string& text) override;
  void ClearProblem(const std::string& id) override;
  bool HasProblem(const std::string& id) const override;

  // A supervisor event: its event (opensm-started, -exited, -restarted) or
  // the OPENSM_CRASH_LOOP problem.
  void OpenSmChanged(const OpenSmEvent& event);
  // A watch round's picture: master / SM state change events (not on the
  // baseline round after an adoption), LOCAL_PORT_UNREADABLE, STATUS=.
  void Observed(const SubnetObservation& seen);

  control::StatusWire Build() const;
  // "MASTER, priority 15, 1 standby, config gen 3".
  std::string Line() const;
  // STATUS=<Line()> to the service manager when the line changed.
  void Publish();

 private:
  const RunningConfig& running_;
  Notifier& notifier_;
  Sources sources_;
  EventLog events_;
  HealthProblems health_;
  SubnetObservation seen_;
  std::string published_;
  bool opensm_has_exited_ = false;
  bool first_round_done_ = false;
};

}  // namespace smsupd
