#include "tests/daemon/failover/failover_bed.h"

#include <optional>
#include <thread>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;

constexpr int kPortActive = 4;
constexpr milliseconds kProbeInterval(20);

}  // namespace

FailoverBed::FailoverBed(SimulatedFabric& fabric, FailoverBedOptions options)
    : fabric_(fabric), options_(std::move(options)) {
  const auto& management = fabric_.topology().management_nodes();
  names_ = {management[0], management[1]};
}

FailoverBed::~FailoverBed() { StopAll(); }

void FailoverBed::StopAll() {
  if (monitor_) monitor_->Stop();
  for (auto& node : nodes_) node->Kill();
}

Status FailoverBed::CreateNode(int index) {
  SmsupdConfig config = SmNodesConfig(fabric_.topology(), names_[index], index == 0 ? "master" : "standby", names_);
  config.preempt = options_.preempt;
  config.hold_time_s = options_.hold_time_s;
  if (options_.configure) options_.configure(index, config);
  Result<std::unique_ptr<ManagementNode>> node = ManagementNode::Create(fabric_, std::move(config));
  if (!node) return Error{node.error().message};
  nodes_.push_back(std::move(*node));
  return Status::Ok();
}

// The master's own sweep gives both SM nodes their LIDs.
Status FailoverBed::ResolveLids() {
  if (!lids_.empty()) return Status::Ok();
  for (const std::string& name : names_) {
    Result<uint16_t> lid = WaitForCaLid(probe(), fabric_.topology(), name, options_.setup_deadline);
    if (!lid) return Error{lid.error().message + "\n" + Diagnostics()};
    lids_.push_back(*lid);
  }
  return Status::Ok();
}

void FailoverBed::StartMonitor() {
  if (!options_.monitor || monitor_) return;
  monitor_ = std::make_unique<MasterMonitor>(
      fabric_, std::vector<WatchedSm>{{names_[0], lids_[0]}, {names_[1], lids_[1]}},
      options_.monitor_interval);
  monitor_->Start();
}

Status FailoverBed::StartTogether(std::chrono::milliseconds gap) {
  for (int index : {0, 1})
    if (Status s = CreateNode(index); !s) return s;
  if (Status s = nodes_[0]->Start(); !s) return s;
  std::this_thread::sleep_for(gap);  // the start spread under test, not a synchronisation
  if (Status s = nodes_[1]->Start(); !s) return s;
  if (Status s = ResolveLids(); !s) return s;
  StartMonitor();
  return Status::Ok();
}

Status FailoverBed::StartNode(int index, SmStateValue expected) {
  if (Status s = CreateNode(index); !s) return s;
  if (Status s = nodes_.back()->Start(); !s) return s;
  if (Status s = ResolveLids(); !s) return s;
  if (Status s = WaitForProbeState(names_[index], expected, options_.setup_deadline); !s) return s;
  return WaitForSmsupdState(names_[index], SmStateText(static_cast<int>(expected)), options_.setup_deadline);
}

Status FailoverBed::Start() {
  if (Status s = StartNode(0, SmStateValue::kMaster); !s) return s;
  if (Status s = WaitForSoleMaster(names_[0], options_.setup_deadline); !s) return s;
  StartMonitor();
  if (!options_.start_standby) return Status::Ok();
  // Only now: two OpenSMs started together can both become master
  // (docs/opensm-behaviour.md "Start-up races: dual master and no master").
  if (Status s = StartNode(1, SmStateValue::kStandby); !s) return s;
  if (Status s = WaitForSoleMaster(names_[0], options_.setup_deadline); !s) return s;
  return WaitForSteadyState(names_[0], names_[1], options_.setup_deadline);
}

Status FailoverBed::WaitForSteadyState(const std::string& master, const std::string& standby,
                                       std::chrono::milliseconds deadline) {
  if (Status s = WaitForSmsupdState(master, "MASTER", deadline); !s) return s;
  return WaitForListedSm(master, standby, "STANDBY", deadline);
}

ManagementNode& FailoverBed::Node(const std::string& name) { return name == names_[0] ? master() : standby(); }

uint16_t FailoverBed::LidOf(const std::string& node) const {
  for (size_t i = 0; i < names_.size() && i < lids_.size(); ++i)
    if (names_[i] == node) return lids_[i];
  return 0;
}

std::string FailoverBed::DescribeSoleMaster(const std::string& node, bool* silent_only) {
  if (silent_only != nullptr) *silent_only = false;
  std::string seen;
  int masters = 0;
  bool expected_is_master = false;
  bool expected_silent = false;
  for (const std::string& name : names_) {
    Result<SmInfoView> sm = probe().SmInfo(LidOf(name));
    std::string state = sm ? SmStateText(sm->state) : "silent";
    seen += name + " " + state + "; ";
    expected_silent = expected_silent || (!sm && name == node);
    if (sm && sm->is_master()) {
      ++masters;
      expected_is_master = expected_is_master || name == node;
    }
  }
  Result<PortInfoView> far = probe().LocalPortInfo();
  if (!far) return seen + "far HCA: " + far.error().message;
  seen += "far HCA port state " + std::to_string(far->state) + ", SM LID " + std::to_string(far->sm_lid) +
          " (" + node + " is LID " + std::to_string(LidOf(node)) + ")";
  const bool far_follows = far->state == kPortActive && far->sm_lid == LidOf(node);
  if (silent_only != nullptr) *silent_only = expected_silent && masters == 0 && far_follows;
  bool ok = masters == 1 && expected_is_master && far_follows;
  return ok ? "" : seen;
}

Status FailoverBed::WaitForSoleMaster(const std::string& node, milliseconds deadline) {
  Status s = WaitFor(
      "exactly one MASTER, " + node + ", and the far HCA pointing at it",
      [&](std::string& why) { return (why = DescribeSoleMaster(node)).empty(); }, deadline, kProbeInterval);
  if (!s) return Error{s.message() + "\n" + Diagnostics()};
  return s;
}

Status FailoverBed::WaitForProbeState(const std::string& node, SmStateValue state, milliseconds deadline) {
  Result<SmInfoView> sm = WaitForSmState(probe(), LidOf(node), state, deadline);
  if (!sm) return Error{node + ": " + sm.error().message + "\n" + Diagnostics()};
  return Status::Ok();
}

Status FailoverBed::WaitForProbePriority(const std::string& node, int priority,
                                         milliseconds deadline) {
  Status s = WaitFor(
      node + "'s SM at priority " + std::to_string(priority),
      [&](std::string& why) {
        Result<SmInfoView> sm = probe().SmInfo(LidOf(node));
        if (!sm) {
          why = sm.error().message;
          return false;
        }
        why = "priority " + std::to_string(sm->priority);
        return sm->priority == priority;
      },
      deadline, milliseconds(100));
  if (!s) return Error{s.message() + "\n" + Diagnostics()};
  return s;
}

Status FailoverBed::WaitForSmsupdState(const std::string& node, const std::string& state, milliseconds deadline) {
  Status s = Node(node).WaitForSmState(state, deadline);
  if (!s) return Error{s.message() + "\n" + Diagnostics()};
  return s;
}

Status FailoverBed::WaitForListedSm(const std::string& node, const std::string& sm, const std::string& state,
                                    milliseconds deadline) {
  const std::string guid = FormatGuid(Node(sm).port_guid());
  Result<json> status = Node(node).WaitForStatus(
      [&](const json& s) {
        for (const json& listed : s.value("sms", json::array()))
          if (listed.value("guid", std::string()) == guid && listed.value("state", std::string()) == state) return true;
        return false;
      },
      "smsupd on " + node + " to list " + sm + " as " + state, deadline);
  if (!status) return Error{status.error().message + "\n" + Diagnostics()};
  return Status::Ok();
}

Status FailoverBed::Hold(const std::string& what, const std::function<bool(std::string& why)>& condition,
                         milliseconds duration, milliseconds interval) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + duration;
  for (;;) {
    std::string why;
    if (!condition(why)) {
      auto after = std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
      return Error{what + " stopped holding after " + std::to_string(after) + " ms: " + why};
    }
    if (Clock::now() >= end) return Status::Ok();
    std::this_thread::sleep_for(std::min<Clock::duration>(interval, end - Clock::now()));
  }
}

Status FailoverBed::HoldSoleMaster(const std::string& what, const std::string& node, milliseconds duration) {
  std::optional<Clock::time_point> silent_since;
  return Hold(
      what,
      [&](std::string& why) {
        bool silent_only = false;
        why = DescribeSoleMaster(node, &silent_only);
        if (why.empty()) {
          silent_since.reset();
          return true;
        }
        if (!silent_only) return false;
        const Clock::time_point now = Clock::now();
        if (!silent_since) silent_since = now;
        if (now - *silent_since <= kSilentMasterBound) return true;
        why = node + " unanswered for longer than " + std::to_string(kSilentMasterBound.count()) + " ms: " + why;
        return false;
      },
      duration);
}

Status FailoverBed::UnlinkNode(const std::string& node) { return fabric_.UnlinkPort(node, 1); }
Status FailoverBed::RelinkNode(const std::string& node) { return fabric_.RelinkPort(node, 1); }

std::vector<json> FailoverBed::EventsOfKind(const std::string& node, const std::string& kind) {
  std::vector<json> matching;
  Result<std::vector<json>> events = Node(node).Events();
  if (!events) return matching;
  for (const json& event : *events)
    if (SameEventKind(event.value("kind", std::string()), kind)) matching.push_back(event);
  return matching;
}

std::string FailoverBed::Diagnostics() {
  std::string text;
  for (auto& node : nodes_) text += node->LogTail();
  if (monitor_) text += "--- monitor: " + monitor_->Snapshot().Describe() + "\n";
  return text;
}

}  // namespace smsupd::testbed
