#include "tests/daemon/failover/smsupd_node.h"

#include <signal.h>

#include <algorithm>
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

bool ProcessAlive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  if (paren == std::string::npos || paren + 2 >= text.size()) return false;
  return text[paren + 2] != 'Z' && text[paren + 2] != 'X';
}

bool SameEventKind(const std::string& a, const std::string& b) {
  auto norm = [](std::string s) {
    for (char& c : s) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return norm(a) == norm(b);
}

std::string SmsupdYaml(const SimulatedFabric& fabric, const SmsupdNodeSpec& spec, const std::string& dir) {
  const Topology& topo = fabric.topology();
  std::ostringstream y;
  y << "version: 1\nnode: " << spec.node << "\n"
    << "sm:\n  port_guid: " << FormatGuid(topo.Find(spec.node)->PortGuid(1)) << "\n"
    << "  role: " << spec.role << "\n"
    << "  preempt: " << (spec.preempt ? "true" : "false") << "\n"
    << "  failover:\n    hold_time_s: " << spec.hold_time_s << "\n"
    << "  opensm:\n    log_file: " << dir << "/opensm.log\n";
  if (TestBedDebug()) y << "    options:\n      log_flags: 0xff\n      force_log_flush: true\n";
  y << spec.extra_sm_yaml
    << "state_dir: " << dir << "/state\n"
    << "control:\n  socket: " << dir << "/run/smsupd.sock\n"
    << "hosts:\n";
  for (const std::string& host : spec.hosts) y << "  " << host << ": " << FormatGuid(topo.Find(host)->PortGuid(1)) << "\n";
  y << "partitions:\n  - name: Default\n    pkey: 0x7fff\n    ipoib: true\n"
    << "    members:\n      - { ports: ALL, membership: full }\n";
  return y.str();
}

Result<std::unique_ptr<SmsupdNode>> SmsupdNode::Create(SimulatedFabric& fabric, SmsupdNodeSpec spec) {
  const TopoNode* node = fabric.topology().Find(spec.node);
  if (node == nullptr || node->kind != NodeKind::kCa) return Error{"smsupd needs an HCA, not " + spec.node};
  if (spec.hosts.empty()) spec.hosts = {spec.node};
  Result<std::string> dir = fabric.NewProcessDir("smsupd-" + spec.node);
  if (!dir) return dir.error();
  if (Status s = WriteFileAtomically(*dir + "/smsupd.yaml", SmsupdYaml(fabric, spec, *dir)); !s)
    return Error{s.message()};
  Guid guid = node->PortGuid(1);
  return std::unique_ptr<SmsupdNode>(new SmsupdNode(fabric, std::move(spec), *dir, guid));
}

SmsupdNode::~SmsupdNode() { Kill(); }

Status SmsupdNode::Start() {
  if (process_ != nullptr && process_->process->Running()) return Error{"smsupd on " + node() + " already runs"};
  Result<NodeProcess*> process =
      fabric_.RunOnNodeIn(node(), {SMSUPD_DAEMON_PATH, "--config", config_path()}, dir_, "smsupd-" + node());
  if (!process) return Error{process.error().message};
  process_ = *process;
  return Status::Ok();
}

Status SmsupdNode::Terminate() {
  if (process_ == nullptr) return Error{"smsupd on " + node() + " was never started"};
  if (auto pid = OpenSmPid()) opensm_pids_.push_back(*pid);
  // Only the smsupd process: its process group holds nothing else, and a
  // signal to the group would look unlike `systemctl stop` (KillMode=process).
  if (::kill(process_->process->pid(), SIGTERM) != 0) return Error{"smsupd on " + node() + " is not running"};
  return Status::Ok();
}

Result<ExitStatus> SmsupdNode::Wait(milliseconds deadline) {
  if (process_ == nullptr) return Error{"smsupd on " + node() + " was never started"};
  return process_->process->Wait(deadline);
}

bool SmsupdNode::Running() { return process_ != nullptr && process_->process->Running(); }

void SmsupdNode::Kill() {
  if (process_ != nullptr) process_->process->Kill();
  if (auto pid = OpenSmPid()) opensm_pids_.push_back(*pid);
  // Also any OpenSM of this node the pid file no longer names (a restart
  // in flight, or a pid file removed with the directory).
  for (pid_t pid : FindProcessesMentioning(state_dir() + "/opensm.conf")) opensm_pids_.push_back(pid);
  for (pid_t pid : opensm_pids_) {
    if (ProcessAlive(pid)) ::kill(pid, SIGKILL);
  }
  for (pid_t pid : opensm_pids_) {
    (void)WaitFor("OpenSM " + std::to_string(pid) + " to exit", [pid] { return !ProcessAlive(pid); },
                  kKillDeadline);
  }
  opensm_pids_.clear();
}

std::optional<pid_t> SmsupdNode::OpenSmPid() const {
  Result<OpenSmPidRecord> record = ReadPidFile(state_dir() + "/opensm.pid");
  if (!record || record->pid <= 0 || !ProcessAlive(record->pid)) return std::nullopt;
  return record->pid;
}

Result<pid_t> SmsupdNode::KillOpenSm() {
  std::optional<pid_t> pid = OpenSmPid();
  if (!pid) return Error{"no OpenSM runs for smsupd on " + node()};
  if (::kill(*pid, SIGKILL) != 0) return Error{"kill -9 " + std::to_string(*pid) + " failed"};
  return *pid;
}

CommandResult SmsupdNode::Smctl(const std::vector<std::string>& args, milliseconds deadline) const {
  std::vector<std::string> argv = {SMSUPD_SMCTL_PATH, "--socket", socket_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, deadline, dir_);
}

Result<json> SmsupdNode::StatusJson() const {
  CommandResult r = Smctl({"--json", "status"}, milliseconds(10000));
  if (r.exit_code != 0) return Error{"smctl status on " + node() + ": " + r.Describe()};
  json status = json::parse(r.out, nullptr, false);
  if (status.is_discarded()) return Error{"smctl status on " + node() + " printed no JSON: " + r.out};
  return status;
}

Result<std::vector<json>> SmsupdNode::Events() const {
  CommandResult r = Smctl({"--json", "events"}, milliseconds(10000));
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

std::string SmsupdNode::LogTail(int lines) const {
  return "--- smsupd on " + node() + " (" + smsupd_log() + "):\n" + Tail(smsupd_log(), lines) +
         "--- OpenSM on " + node() + " (" + opensm_log() + "):\n" + Tail(opensm_log(), lines / 2);
}

}  // namespace smsupd::testbed
