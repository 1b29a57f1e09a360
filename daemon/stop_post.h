// `smsupd --stop-post`: the units' ExecStopPost=. KillMode=process lets
// OpenSM outlive a crashed smsupd so that the next smsupd adopts it; when no
// next smsupd is coming, whatever smsupd left in the unit's cgroup (OpenSM,
// a hook) is stopped here, so that no OpenSM runs on unsupervised
// (docs/systemd.md "When smsupd is gone").
#pragma once

#include <ostream>
#include <string>

namespace smsupd {

// What systemd tells an ExecStopPost= command about the stop.
struct StopPostFacts {
  std::string job;             // the unit's pending job: "stop", "restart", ... or ""
  std::string service_result;  // $SERVICE_RESULT: "success", "signal", "exit-code", ...
  std::string exit_code;       // $EXIT_CODE: "exited", "killed", "dumped"
  std::string exit_status;     // $EXIT_STATUS: the number, or the signal's name
};

// Whether systemd starts smsupd again after this stop (Restart=on-failure,
// RestartPreventExitStatus=78, or a restart / start job), so that what runs
// in the cgroup is kept for it to adopt.
bool RestartComing(const StopPostFacts& facts);

// Reads the facts (environment, D-Bus), and stops the unit's leftover
// processes unless a restart is coming: SIGTERM, SIGKILL after `grace`.
// One line per decision and process on `log`. Always returns 0: systemd
// has nothing more to do about a failure here.
int RunStopPost(std::ostream& log, int grace_seconds = 10);

}  // namespace smsupd
