#include "daemon/stop_post.h"

#include <signal.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "daemon/notifier.h"

namespace smsupd {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The unit this process runs in, when it is one of smsupd's; "" otherwise.
std::string SmsupdUnit() {
  char* unit = nullptr;
  if (sd_pid_get_unit(::getpid(), &unit) < 0 || unit == nullptr) return "";
  std::string name = unit;
  std::free(unit);
  const bool ours = (name == "smsupd.service" || name.rfind("smsupd@", 0) == 0) &&
                    name.size() > 8 && name.compare(name.size() - 8, 8, ".service") == 0;
  return ours ? name : "";
}

// The other processes of this process's cgroup (cgroup v2: the unit's own;
// ExecStopPost= runs in it beside what smsupd left).
std::vector<pid_t> OthersInMyCgroup(const std::string& unit, std::string& error) {
  std::ifstream self("/proc/self/cgroup");
  std::string line;
  std::string path;
  while (std::getline(self, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty() || path.size() < unit.size() + 1 ||
      path.compare(path.size() - unit.size() - 1, std::string::npos, "/" + unit) != 0) {
    error = "not in the cgroup of " + unit + " (cgroup v2 path '" + path + "')";
    return {};
  }
  std::ifstream procs("/sys/fs/cgroup" + path + "/cgroup.procs");
  if (!procs) {
    error = "cannot read /sys/fs/cgroup" + path + "/cgroup.procs";
    return {};
  }
  std::vector<pid_t> pids;
  for (long pid = 0; procs >> pid;)
    if (pid > 0 && pid != ::getpid()) pids.push_back(static_cast<pid_t>(pid));
  return pids;
}

std::string Command(pid_t pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name.empty() ? "?" : name;
}

bool Gone(pid_t pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

}  // namespace

bool RestartComing(const StopPostFacts& facts) {
  if (facts.job == "stop") return false;
  // `systemctl restart`: smsupd left OpenSM running on purpose.
  if (facts.job == "restart" || facts.job == "try-restart" || facts.job == "reload-or-restart")
    return true;
  // No job, or the start job of a start that is failing now (an automatic
  // restart is such a start job too): the result decides.
  if (facts.service_result.empty() || facts.service_result == "success") return false;
  // Restart=on-failure, but RestartPreventExitStatus=78.
  return !(facts.exit_code == "exited" && facts.exit_status == std::to_string(kExitConfigInvalid));
}

int RunStopPost(std::ostream& log, int grace_seconds) {
  // Only as smsupd's own ExecStopPost=: anywhere else the cgroup is someone
  // else's (a login session, a shell's service), never to be emptied.
  const std::string unit = SmsupdUnit();
  if (unit.empty() || std::getenv("SERVICE_RESULT") == nullptr) {
    log << "smsupd --stop-post: only the ExecStopPost= of smsupd.service or smsupd@NAME.service "
           "runs this; nothing done\n";
    return 0;
  }
  StopPostFacts facts{SystemdJobType(), Env("SERVICE_RESULT"), Env("EXIT_CODE"),
                      Env("EXIT_STATUS")};
  std::string error;
  std::vector<pid_t> left = OthersInMyCgroup(unit, error);
  if (!error.empty()) {
    log << "SMSUPD_STOP_POST " << error << ": nothing stopped\n";
    return 0;
  }
  if (left.empty()) return 0;
  // A stop asked for while systemd handled smsupd's end (`kill -9` and
  // `systemctl stop` together) forbids the restart: watch the job for a
  // second before leaving OpenSM to a next smsupd that would never come.
  // The restart waits that long; OpenSM runs on meanwhile.
  // (A restart job is the operator's `systemctl restart`: nothing to watch.)
  const bool automatic = facts.job.empty() || facts.job == "start";
  for (int look = 0; automatic && look < 10 && RestartComing(facts); ++look) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polling systemd's job
    facts.job = SystemdJobType();
  }
  const std::string why = "result " + (facts.service_result.empty() ? "?" : facts.service_result) +
                          (facts.exit_status.empty() ? "" : " (" + facts.exit_status + ")") +
                          (facts.job.empty() ? "" : ", job " + facts.job);
  if (RestartComing(facts)) {
    for (pid_t pid : left)
      log << "SMSUPD_STOP_POST " << why << ": smsupd is started again; pid " << pid << " ("
          << Command(pid) << ") kept for it to adopt\n";
    return 0;
  }
  for (pid_t pid : left) {
    log << "SMSUPD_STOP_POST " << why << ": no smsupd follows; stopping pid " << pid << " ("
        << Command(pid) << ") that smsupd left\n";
    ::kill(pid, SIGTERM);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_seconds);
  for (bool all_gone = false; !all_gone;) {
    all_gone = true;
    for (pid_t pid : left) all_gone = all_gone && Gone(pid);
    if (all_gone || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // polling the processes' end
  }
  for (pid_t pid : left) {
    if (Gone(pid)) continue;
    log << "SMSUPD_STOP_POST pid " << pid << " ignored SIGTERM for " << grace_seconds
        << " s: SIGKILL\n";
    ::kill(pid, SIGKILL);
  }
  return 0;
}

}  // namespace smsupd
