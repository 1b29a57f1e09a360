// One real smsupd (and the OpenSM it runs) on a node of a simulated fabric,
// driven through the real smctl. Used by the P_Key apply tests and by the
// P_Key bench; no GoogleTest in here.
//
// Contract: the fabric owns smsupd's process; OpenSM runs in its own session
// (it must outlive smsupd), so Stop() -- also run by the destructor -- ends
// smsupd first (it may restart a dead OpenSM) and then that OpenSM.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "tests/daemon/pkey_apply/pkey_config.h"
#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed::pkey {

struct SmctlResult {
  int exit_code = -1;  // -1: did not run or was killed
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};

  // stdout as JSON (discarded value when it is not JSON).
  nlohmann::json Json() const;
  // A response's "arguments" when stdout is a whole response, else stdout.
  nlohmann::json Arguments() const;
  // The reply's verification.state ("" when there is none).
  std::string VerificationState() const;
  std::string Describe() const;  // for failure messages
};

class SmsupdNode {
 public:
  // Creates the node's directory; the config starts as BaseConfig().
  static Result<std::unique_ptr<SmsupdNode>> Create(SimulatedFabric& fabric, const std::string& node,
                                                    const std::string& role);
  ~SmsupdNode() { Stop(); }
  SmsupdNode(const SmsupdNode&) = delete;
  SmsupdNode& operator=(const SmsupdNode&) = delete;

  ConfigSpec& config() { return config_; }
  const std::string& node() const { return node_; }
  Guid port_guid() const { return config_.port_guid; }
  std::string config_path() const { return config_.home + "/smsupd.yaml"; }

  // Writes config().Yaml() (or `text`) to config_path(), atomically.
  Status WriteConfig();
  Status WriteConfigText(const std::string& text);

  Status Start();
  void Stop();

  // Runs `smctl --socket <socket> <args>`; killed after `deadline`.
  SmctlResult Smctl(const std::string& args,
                    std::chrono::seconds deadline = std::chrono::seconds(120)) const;
  // `smctl --json status` once it answers and `ready` holds.
  Result<nlohmann::json> WaitForStatus(const std::function<bool(const nlohmann::json&)>& ready,
                                       const std::string& what, std::chrono::milliseconds deadline);
  Status WaitForSmState(const std::string& state, std::chrono::milliseconds deadline);

  // OpenSM's pid from <state_dir>/opensm.pid (0 when there is none).
  pid_t OpenSmPid() const;
  // The installed files, byte for byte ("" when missing).
  std::string PartitionsConf() const;
  std::string StatePath(const std::string& name) const { return config_.StateDir() + "/" + name; }

 private:
  SmsupdNode(SimulatedFabric& fabric, std::string node) : fabric_(fabric), node_(std::move(node)) {}

  SimulatedFabric& fabric_;
  std::string node_;
  ConfigSpec config_;
  NodeProcess* process_ = nullptr;
};

// `json[key]` as text: "" when missing or null, strings as they are, other
// values dumped. Never throws.
std::string Text(const nlohmann::json& json, const std::string& key);

// Looks for a key (in any object, at any depth) whose name contains `part`
// and whose value is a number: for timings the daemon may report.
void CollectNumbers(const nlohmann::json& json, const std::string& part, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out);

}  // namespace smsupd::testbed::pkey
