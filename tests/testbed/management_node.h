// A management node of the test bed: the real smsupd, and the OpenSM it
// runs, on an HCA of a simulated fabric, configured through its own
// smsupd.yaml (smsupd_config.h) and driven with the real smctl. Used by the
// failover and P_Key apply tests, the smsupd integration tests and the
// benchmarks; no GoogleTest in here.
//
// Contract: the fabric owns smsupd's process, so a node must go before its
// fabric. OpenSM runs in its own session (it must outlive smsupd), so Stop()
// and Kill() end it themselves: every OpenSM run with this node's
// <state_dir>/opensm.conf, whether or not the pid file still names it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"
#include "tests/testbed/simulated_fabric.h"
#include "tests/testbed/smctl_runner.h"
#include "tests/testbed/smsupd_config.h"

namespace smsupd::testbed {

class ManagementNode {
 public:
  // Creates the node's directory and makes it config.home; does not write
  // the config or start smsupd. config.node must be an HCA.
  static Result<std::unique_ptr<ManagementNode>> Create(SimulatedFabric& fabric, SmsupdConfig config);
  ~ManagementNode() { Stop(); }
  ManagementNode(const ManagementNode&) = delete;
  ManagementNode& operator=(const ManagementNode&) = delete;

  SmsupdConfig& config() { return config_; }
  const std::string& node() const { return config_.node; }
  Guid port_guid() const { return config_.port_guid; }
  const std::string& dir() const { return config_.home; }
  std::string config_path() const { return dir() + "/smsupd.yaml"; }
  std::string socket_path() const { return config_.Socket(); }
  std::string state_dir() const { return config_.StateDir(); }
  std::string StatePath(const std::string& name) const { return state_dir() + "/" + name; }
  std::string opensm_log() const { return config_.OpenSmLog(); }
  std::string smsupd_log() const { return dir() + "/output.log"; }

  // Writes config().Yaml() (or `text`) to config_path(), atomically.
  Status WriteConfig();
  Status WriteConfigText(const std::string& text);

  // Writes config() and starts smsupd, with `environment` added to the
  // node's (e.g. a fault-injection variable); refused while it runs.
  Status Start(const std::map<std::string, std::string>& environment = {});
  // `signal` to smsupd alone, as `systemctl stop` (KillMode=process) or
  // `kill` would send it: its OpenSM is not touched.
  Status Signal(int signal);
  Status Terminate() { return Signal(SIGTERM); }
  Result<ExitStatus> Wait(std::chrono::milliseconds deadline);
  bool Running();
  // smsupd's pid (0 before the first start).
  pid_t pid() const;
  // SIGTERM to smsupd (it hands over when MASTER, then stops its OpenSM),
  // SIGKILL if it has not exited after a grace; then ends any OpenSM of the
  // node still running. Also run by the destructor.
  void Stop();
  // SIGKILL to smsupd, then to every OpenSM of the node, waiting until gone.
  void Kill();

  // The running OpenSM's pid from <state_dir>/opensm.pid (nullopt: none alive).
  std::optional<pid_t> OpenSmPid() const;
  // kill -9 of that OpenSM; returns its pid.
  Result<pid_t> KillOpenSm();
  // The installed partitions.conf, byte for byte ("" when missing).
  std::string PartitionsConf() const;

  // `smctl --socket <ours> <args...>` (through `run_as`, see RunSmctl).
  SmctlResult Smctl(const std::vector<std::string>& args,
                    std::chrono::milliseconds deadline = std::chrono::milliseconds(30000),
                    const std::vector<std::string>& run_as = {}) const;
  // `smctl --json status`, parsed.
  Result<nlohmann::json> StatusJson() const;
  // smsupd_control_requests_total{command,result} from `smctl metrics`: the
  // requests of that command answered with that result (0 when none).
  long ControlRequests(const std::string& command, const std::string& result) const;
  // `smctl --json events`, one object per event.
  Result<std::vector<nlohmann::json>> Events() const;
  // `smctl --json status` once smsupd answers and `ready` holds.
  Result<nlohmann::json> WaitForStatus(const std::function<bool(const nlohmann::json&)>& ready,
                                       const std::string& what, std::chrono::milliseconds deadline) const;
  // status local_sm.state == `state` ("MASTER", "STANDBY", ...).
  Status WaitForSmState(const std::string& state, std::chrono::milliseconds deadline) const;

  // The last lines of smsupd's output and OpenSM's log, for failure messages.
  std::string LogTail(int lines = 40) const;

 private:
  ManagementNode(SimulatedFabric& fabric, SmsupdConfig config) : fabric_(fabric), config_(std::move(config)) {}
  // SIGKILL to every OpenSM of this node; waits until each is gone.
  void KillOpenSms();

  SimulatedFabric& fabric_;
  SmsupdConfig config_;
  NodeProcess* process_ = nullptr;  // owned by the fabric
};

// The state letter of /proc/<pid>/stat ('R', 'S', 'T' stopped, ...; 0: gone).
char ProcessStateOf(pid_t pid);
// True while `pid` exists and is not a zombie.
bool ProcessAlive(pid_t pid);

// Event kind comparison that ignores case and '-' vs '_' ("MASTER_LOST" ==
// "master-lost").
bool SameEventKind(const std::string& a, const std::string& b);

}  // namespace smsupd::testbed
