#include "tests/testbed/management_node.h"

#include <cctype>
#include <deque>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "daemon/opensm/opensm_pid_file.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;

// OpenSM exits within a second of SIGKILL even with a MAD in flight.
constexpr milliseconds kKillDeadline(5000);
// A MASTER's smsupd hands over first (sm.failover.handover_timeout_ms, 5 s
// by default), then stops OpenSM.
constexpr milliseconds kStopGrace(10000);
// smctl status and events answer at once; the margin is for a loaded machine.
constexpr milliseconds kQueryDeadline(10000);
constexpr milliseconds kStatusInterval(100);

std::string Tail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string text;
  for (const std::string& line : last) text += "  " + line + "\n";
  return text;
}

}  // namespace

char ProcessStateOf(pid_t pid) {
  // Gone meanwhile (ESRCH) reads as an error, not an exception.
  Result<std::string> read = ReadWholeFile("/proc/" + std::to_string(pid) + "/stat");
  const std::string text = read.ok() ? *read : "";
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return 0;
  return text[paren + 2];
}

bool ProcessAlive(pid_t pid) {
  const char state = ProcessStateOf(pid);
  return state != 0 && state != 'Z' && state != 'X';
}

bool SameEventKind(const std::string& a, const std::string& b) {
  auto norm = [](std::string s) {
    for (char& c : s) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return norm(a) == norm(b);
}

Result<std::unique_ptr<ManagementNode>> ManagementNode::Create(SimulatedFabric& fabric, SmsupdConfig config) {
  const TopoNode* node = fabric.topology().Find(config.node);
  if (node == nullptr || node->kind != NodeKind::kCa) return Error{"smsupd needs an HCA, not " + config.node};
  Result<std::string> dir = fabric.NewProcessDir("smsupd-" + config.node);
  if (!dir) return dir.error();
  config.home = *dir;
  return std::unique_ptr<ManagementNode>(new ManagementNode(fabric, std::move(config)));
}

Status ManagementNode::WriteConfig() { return WriteConfigText(config_.Yaml()); }

Status ManagementNode::WriteConfigText(const std::string& text) { return WriteFileAtomically(config_path(), text); }

Status ManagementNode::Start(const std::map<std::string, std::string>& environment) {
  if (Running()) return Error{"smsupd on " + node() + " already runs"};
  if (Status written = WriteConfig(); !written) return written;
  Result<NodeProcess*> process = fabric_.RunOnNodeIn(node(), {SMSUPD_DAEMON_PATH, "--config", config_path()}, dir(),
                                                     "smsupd-" + node(), false, environment);
  if (!process) return Error{process.error().message};
  process_ = *process;
  return Status::Ok();
}

Status ManagementNode::Signal(int signal) {
  if (process_ == nullptr) return Error{"smsupd on " + node() + " was never started"};
  // Its process group holds nothing else, but a signal to the group would
  // not be what an operator sends.
  if (!process_->process->Running() || ::kill(process_->process->pid(), signal) != 0)
    return Error{"smsupd on " + node() + " is not running"};
  return Status::Ok();
}

Result<ExitStatus> ManagementNode::Wait(milliseconds deadline) {
  if (process_ == nullptr) return Error{"smsupd on " + node() + " was never started"};
  return process_->process->Wait(deadline);
}

pid_t ManagementNode::pid() const { return process_ != nullptr ? process_->process->pid() : 0; }

bool ManagementNode::Running() { return process_ != nullptr && process_->process->Running(); }

void ManagementNode::Stop() {
  if (process_ != nullptr) process_->process->Stop(kStopGrace);
  KillOpenSms();
}

void ManagementNode::Kill() {
  if (process_ != nullptr) process_->process->Kill();
  KillOpenSms();
}

void ManagementNode::KillOpenSms() {
  // Every OpenSM smsupd starts for this node runs with -F <state_dir>/opensm.conf:
  // the pid file's, and any it no longer names (a restart in flight, a pid
  // file removed with the directory).
  std::vector<pid_t> pids = FindProcessesMentioning(StatePath("opensm.conf"));
  for (pid_t pid : pids) {
    if (ProcessAlive(pid)) ::kill(pid, SIGKILL);
  }
  for (pid_t pid : pids) {
    (void)WaitFor("OpenSM " + std::to_string(pid) + " to exit", [pid] { return !ProcessAlive(pid); },
                  kKillDeadline);
  }
}

std::optional<pid_t> ManagementNode::OpenSmPid() const {
  Result<OpenSmPidRecord> record = ReadPidFile(StatePath("opensm.pid"));
  if (!record || record->pid <= 0 || !ProcessAlive(record->pid)) return std::nullopt;
  return record->pid;
}

Result<pid_t> ManagementNode::KillOpenSm() {
  std::optional<pid_t> pid = OpenSmPid();
  if (!pid) return Error{"no OpenSM runs for smsupd on " + node()};
  if (::kill(*pid, SIGKILL) != 0) return Error{"kill -9 " + std::to_string(*pid) + " failed"};
  return *pid;
}

std::string ManagementNode::PartitionsConf() const {
  Result<std::string> text = ReadWholeFile(StatePath("partitions.conf"));
  return text ? *text : "";
}

long ManagementNode::ControlRequests(const std::string& command, const std::string& result) const {
  SmctlResult metrics = Smctl({"metrics"});
  std::istringstream lines(metrics.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("smsupd_control_requests_total{", 0) == 0 &&
        line.find("command=\"" + command + "\"") != std::string::npos &&
        line.find("result=\"" + result + "\"") != std::string::npos)
      return std::atol(line.substr(line.rfind(' ') + 1).c_str());
  return 0;
}

SmctlResult ManagementNode::Smctl(const std::vector<std::string>& args, milliseconds deadline,
                                  const std::vector<std::string>& run_as) const {
  std::vector<std::string> argv = {"--socket", socket_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunSmctl(argv, deadline, dir(), run_as);
}

Result<json> ManagementNode::StatusJson() const {
  SmctlResult r = Smctl({"--json", "status"}, kQueryDeadline);
  if (r.exit_code != 0) return Error{"smctl status on " + node() + ": " + r.Describe()};
  json status = r.Json();
  if (status.is_discarded()) return Error{"smctl status on " + node() + " printed no JSON: " + r.out};
  return status;
}

Result<std::vector<json>> ManagementNode::Events() const {
  SmctlResult r = Smctl({"--json", "events"}, kQueryDeadline);
  if (r.exit_code != 0) return Error{"smctl events on " + node() + ": " + r.Describe()};
  std::vector<json> events;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    json event = json::parse(line, nullptr, false);
    if (event.is_array()) {
      for (const json& e : event) events.push_back(e);
    } else if (event.is_object()) {
      events.push_back(event);
    }
  }
  return events;
}

Result<json> ManagementNode::WaitForStatus(const std::function<bool(const json&)>& ready, const std::string& what,
                                           milliseconds deadline) const {
  json status;
  Status waited = WaitFor(
      what,
      [&](std::string& why) {
        Result<json> answer = StatusJson();
        if (!answer) {
          why = answer.error().message;
          return false;
        }
        status = *answer;
        why = "last status: " + status.dump();
        return ready(status);
      },
      deadline, kStatusInterval);
  if (!waited) return Error{waited.message()};
  return status;
}

Status ManagementNode::WaitForSmState(const std::string& state, milliseconds deadline) const {
  Result<json> status = WaitForStatus(
      [&](const json& s) {
        auto local = s.find("local_sm");
        return local != s.end() && local->is_object() && local->value("state", std::string()) == state;
      },
      "smsupd on " + node() + " to report its OpenSM " + state, deadline);
  return status ? Status::Ok() : Status(Error{status.error().message});
}

std::string ManagementNode::LogTail(int lines) const {
  return "--- smsupd on " + node() + " (" + smsupd_log() + "):\n" + Tail(smsupd_log(), lines) +
         "--- OpenSM on " + node() + " (" + opensm_log() + "):\n" + Tail(opensm_log(), lines / 2);
}

}  // namespace smsupd::testbed
