#include "tests/daemon/pkey_apply/smsupd_node.h"

#include <signal.h>
#include <sys/wait.h>

#include <cstdio>

#include "common/atomic_file.h"
#include "daemon/opensm/opensm_pid_file.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

std::string ReadOrEmpty(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  return text ? *text : "";
}

}  // namespace

json SmctlResult::Json() const { return json::parse(out, nullptr, false); }

json SmctlResult::Arguments() const {
  json whole = Json();
  if (whole.is_object() && whole.contains("result") && whole.contains("arguments")) return whole["arguments"];
  return whole;
}

std::string SmctlResult::VerificationState() const {
  json args = Arguments();
  if (!args.is_object() || !args.contains("verification") || !args["verification"].is_object()) return "";
  return args["verification"].value("state", "");
}

std::string SmctlResult::Describe() const {
  return "exit " + std::to_string(exit_code) + " after " + std::to_string(elapsed.count()) +
         " ms\nstdout: " + out + "\nstderr: " + err;
}

Result<std::unique_ptr<SmsupdNode>> SmsupdNode::Create(SimulatedFabric& fabric, const std::string& node,
                                                       const std::string& role) {
  Result<std::string> dir = fabric.NewProcessDir("smsupd-" + node);
  if (!dir) return dir.error();
  std::unique_ptr<SmsupdNode> created(new SmsupdNode(fabric, node));
  created->config_ = BaseConfig(fabric.topology(), node, role, *dir);
  return created;
}

Status SmsupdNode::WriteConfig() { return WriteConfigText(config_.Yaml()); }

Status SmsupdNode::WriteConfigText(const std::string& text) {
  return WriteFileAtomically(config_path(), text);
}

Status SmsupdNode::Start() {
  if (Status written = WriteConfig(); !written) return written;
  Result<NodeProcess*> started = fabric_.RunOnNodeIn(
      node_, {SMSUPD_DAEMON_PATH, "--config", config_path()}, config_.home, "smsupd-" + node_);
  if (!started) return Error{started.error().message};
  process_ = *started;
  return Status::Ok();
}

void SmsupdNode::Stop() {
  if (process_ != nullptr) process_->process->Stop(milliseconds(3000));  // SIGTERM stops its OpenSM
  process_ = nullptr;
  // Only the OpenSM of this node: the pid file may be stale.
  pid_t opensm = OpenSmPid();
  if (opensm > 0 && ReadOrEmpty("/proc/" + std::to_string(opensm) + "/cmdline").find(config_.StateDir()) !=
                        std::string::npos)
    ::kill(opensm, SIGKILL);
}

SmctlResult SmsupdNode::Smctl(const std::string& args, std::chrono::seconds deadline) const {
  SmctlResult result;
  std::string err_path = config_.home + "/smctl.err";
  std::string command = "timeout -s KILL " + std::to_string(deadline.count()) + " " + SMSUPD_SMCTL_PATH +
                        " --socket " + config_.Socket() + " " + args + " 2>" + err_path;
  auto start = std::chrono::steady_clock::now();
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  int status = ::pclose(pipe);
  result.elapsed = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = ReadOrEmpty(err_path);
  return result;
}

Result<json> SmsupdNode::WaitForStatus(const std::function<bool(const json&)>& ready, const std::string& what,
                                       milliseconds deadline) {
  json status;
  Status waited = WaitFor(
      what,
      [&](std::string& why) {
        SmctlResult result = Smctl("--json status", std::chrono::seconds(20));
        if (result.exit_code != 0) {
          why = "smctl status: " + result.Describe();
          return false;
        }
        status = result.Json();
        why = "last status: " + status.dump();
        return !status.is_discarded() && ready(status);
      },
      deadline, milliseconds(200));
  if (!waited) return Error{waited.message()};
  return status;
}

Status SmsupdNode::WaitForSmState(const std::string& state, milliseconds deadline) {
  Result<json> status = WaitForStatus(
      [&](const json& s) { return s.contains("local_sm") && s["local_sm"].value("state", "") == state; },
      "smsupd on " + node_ + " reports its OpenSM " + state, deadline);
  return status ? Status::Ok() : Status(Error{status.error().message});
}

pid_t SmsupdNode::OpenSmPid() const {
  Result<OpenSmPidRecord> record = ReadPidFile(StatePath("opensm.pid"));
  return record ? record->pid : 0;
}

std::string SmsupdNode::PartitionsConf() const { return ReadOrEmpty(StatePath("partitions.conf")); }

std::string Text(const json& value, const std::string& key) {
  if (!value.is_object() || !value.contains(key) || value[key].is_null()) return "";
  return value[key].is_string() ? value[key].get<std::string>() : value[key].dump();
}

void CollectNumbers(const json& value, const std::string& part, const std::string& prefix,
                    std::vector<std::pair<std::string, double>>& out) {
  if (!value.is_object()) return;
  for (const auto& [key, item] : value.items()) {
    std::string path = prefix.empty() ? key : prefix + "." + key;
    if (item.is_number() && key.find(part) != std::string::npos) out.emplace_back(path, item.get<double>());
    CollectNumbers(item, part, path, out);
  }
}

}  // namespace smsupd::testbed::pkey
