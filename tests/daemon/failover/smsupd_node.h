// One real smsupd (and the OpenSM it runs) on a node of a simulated fabric,
// configured the way an operator would: its own YAML (port_guid, role,
// preempt, sm.failover timing, state_dir, control socket, hosts, a Default
// partition), driven with the real smctl. OpenSM runs in its own session
// (it must outlive smsupd), so Kill() ends it through its pid file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"
#include "tests/daemon/failover/command_runner.h"
#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {

struct SmsupdNodeSpec {
  std::string node;                  // an HCA of the topology
  std::string role = "master";       // sm.role
  bool preempt = true;               // sm.preempt
  int hold_time_s = 2;               // sm.failover.hold_time_s (small: tests stay short)
  std::vector<std::string> hosts;    // HCAs listed under hosts: (the SM nodes)
  std::string extra_sm_yaml;         // more lines under sm: (indented by two spaces)
};

// The YAML SmsupdNode writes (exposed for the tests' own variations).
std::string SmsupdYaml(const SimulatedFabric& fabric, const SmsupdNodeSpec& spec, const std::string& dir);

class SmsupdNode {
 public:
  // Creates the node's directory and writes its YAML; does not start it.
  static Result<std::unique_ptr<SmsupdNode>> Create(SimulatedFabric& fabric, SmsupdNodeSpec spec);
  ~SmsupdNode();  // Kill()
  SmsupdNode(const SmsupdNode&) = delete;
  SmsupdNode& operator=(const SmsupdNode&) = delete;

  Status Start();
  // SIGTERM to smsupd (systemctl stop); Wait() for its exit.
  Status Terminate();
  Result<ExitStatus> Wait(std::chrono::milliseconds deadline);
  bool Running();
  // SIGKILL to smsupd, then to its OpenSM (pid file), waiting until gone.
  void Kill();

  // The running OpenSM's pid from <state_dir>/opensm.pid (nullopt: none alive).
  std::optional<pid_t> OpenSmPid() const;
  // kill -9 of the OpenSM; returns its pid.
  Result<pid_t> KillOpenSm();

  // smctl --socket <ours> <args...>.
  CommandResult Smctl(const std::vector<std::string>& args,
                      std::chrono::milliseconds deadline = std::chrono::milliseconds(30000)) const;
  // smctl --json status, parsed.
  Result<nlohmann::json> StatusJson() const;
  // smctl --json events, one object per event.
  Result<std::vector<nlohmann::json>> Events() const;

  const std::string& node() const { return spec_.node; }
  Guid port_guid() const { return port_guid_; }
  const std::string& dir() const { return dir_; }
  std::string config_path() const { return dir_ + "/smsupd.yaml"; }
  std::string socket_path() const { return dir_ + "/run/smsupd.sock"; }
  std::string state_dir() const { return dir_ + "/state"; }
  std::string opensm_log() const { return dir_ + "/opensm.log"; }
  std::string smsupd_log() const { return dir_ + "/output.log"; }
  // The last lines of smsupd's output and OpenSM's log, for failure messages.
  std::string LogTail(int lines = 40) const;

 private:
  SmsupdNode(SimulatedFabric& fabric, SmsupdNodeSpec spec, std::string dir, Guid port_guid)
      : fabric_(fabric), spec_(std::move(spec)), dir_(std::move(dir)), port_guid_(port_guid) {}

  SimulatedFabric& fabric_;
  SmsupdNodeSpec spec_;
  std::string dir_;
  Guid port_guid_;
  NodeProcess* process_ = nullptr;  // owned by the fabric
  std::vector<pid_t> opensm_pids_;   // every OpenSM seen, for Kill()
};

// True while `pid` exists and is not a zombie.
bool ProcessAlive(pid_t pid);

// Event kind comparison that ignores case and '-' vs '_' ("MASTER_LOST" ==
// "master-lost").
bool SameEventKind(const std::string& a, const std::string& b);

}  // namespace smsupd::testbed
