#include "tests/daemon/failover/failover_soak.h"

#include <signal.h>

#include <random>
#include <thread>

#include "tests/daemon/failover/failover_bed.h"
#include "tests/testbed/simulated_fabric.h"
#include "tests/testbed/smsupd_config.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kMonitorInterval(10);  // the truth, read every 10 ms
constexpr int kSoakHoldTimeS = 2;

long Since(Clock::time_point from) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - from).count();
}

void TakeWindows(FailoverBed& bed, SoakCycle& cycle) {
  if (!bed.monitor()) return;
  MonitorReport report = bed.monitor()->Snapshot();
  cycle.longest_no_master_ms = report.longest_no_master.count();
  cycle.longest_dual_master_ms = report.longest_dual_master.count();
}

// Which of the two nodes the fabric has as sole MASTER ("" if neither).
std::string SoleMaster(FailoverBed& bed) {
  for (const std::string& name : {bed.master_name(), bed.standby_name()})
    if (bed.DescribeSoleMaster(name).empty()) return name;
  return "";
}

std::string Other(FailoverBed& bed, const std::string& name) {
  return name == bed.master_name() ? bed.standby_name() : bed.master_name();
}

// A steady pair again: one sole MASTER (either node) that lists the other as
// STANDBY. Returns the master's name.
Result<std::string> WaitForAnySteadyState(FailoverBed& bed, milliseconds deadline) {
  std::string master;
  Status found = WaitFor(
      "a sole MASTER on either node",
      [&](std::string& why) {
        master = SoleMaster(bed);
        why = "neither node is sole MASTER";
        return !master.empty();
      },
      deadline, milliseconds(20));
  if (!found) return Error{found.message()};
  if (Status s = bed.WaitForSteadyState(master, Other(bed, master), deadline); !s)
    return Error{s.message()};
  return master;
}

// Two OpenSMs, two smsupds and the monitor's probe hold 5 of ibsim's 10
// client slots; the far HCA's probe and a restarted smsupd need 2 more.
constexpr int kLeakedClientsPerFabric = 3;

class Soak {
 public:
  Soak(const Topology& topology, const SoakOptions& options)
      : topology_(topology), options_(options), random_(options.seed) {}

  SoakCycle Cycle(SoakScenario scenario, int index) {
    SoakCycle cycle;
    Status done = Status::Ok();
    switch (scenario) {
      case SoakScenario::kRestartCycles: done = Restart(index, cycle); break;
      case SoakScenario::kColdStarts: done = ColdStart(cycle); break;
      case SoakScenario::kSmsupdKillInApply: done = KillDuringApply(index, cycle); break;
      case SoakScenario::kNodeLoss: done = NodeLoss(cycle); break;
    }
    cycle.ok = done.ok();
    if (!done) cycle.error = done.message();
    if (bed_) TakeWindows(*bed_, cycle);
    // ibsim keeps a client slot for every killed smsupd (kill -9 sends no
    // disconnect) and has 10 (docs/opensm-behaviour.md): a fresh fabric
    // before the slots run out.
    if (scenario == SoakScenario::kColdStarts || !cycle.ok || leaked_clients_ >= kLeakedClientsPerFabric)
      TearDown();
    return cycle;
  }

  void TearDown() {
    bed_.reset();
    fabric_.reset();
    leaked_clients_ = 0;
  }

 private:
  Status SetUp(bool start_pair) {
    if (bed_) return Status::Ok();
    FabricOptions fabric_options;
    fabric_options.name = "soak";
    fabric_options.keep_dir = options_.keep_dir;
    Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(topology_, fabric_options);
    if (!fabric) return fabric.error();
    fabric_ = std::move(*fabric);
    FailoverBedOptions bed_options;
    bed_options.preempt = options_.preempt;
    bed_options.hold_time_s = kSoakHoldTimeS;
    bed_options.monitor_interval = kMonitorInterval;
    bed_options.setup_deadline = options_.deadline;
    bed_ = std::make_unique<FailoverBed>(*fabric_, bed_options);
    return start_pair ? bed_->Start() : Status::Ok();
  }

  // smctl restart-opensm --wait, alternating between the nodes.
  Status Restart(int index, SoakCycle& cycle) {
    if (Status s = SetUp(true); !s) return s;
    Result<std::string> master = WaitForAnySteadyState(*bed_, options_.deadline);
    if (!master) return master.error();
    const std::string& node = index % 2 == 0 ? bed_->master_name() : bed_->standby_name();
    cycle.note = node + (node == *master ? " (MASTER)" : " (STANDBY)");
    bed_->monitor()->Reset();
    const Clock::time_point start = Clock::now();
    SmctlResult r = bed_->Node(node).Smctl({"restart-opensm", "--wait", "--timeout", "60"},
                                           options_.deadline);
    cycle.action_ms = Since(start);
    if (r.exit_code != 0) return Error{"restart-opensm on " + node + ": " + r.Describe()};
    Result<std::string> after = WaitForAnySteadyState(*bed_, options_.deadline);
    return after ? Status::Ok() : after.error();
  }

  // Both nodes started within 50 ms on a fresh fabric, as after a power cut.
  Status ColdStart(SoakCycle& cycle) {
    if (Status s = SetUp(false); !s) return s;
    const milliseconds gap(std::uniform_int_distribution<int>(0, 50)(random_));
    cycle.note = "started " + std::to_string(gap.count()) + " ms apart";
    const Clock::time_point start = Clock::now();
    if (Status s = bed_->StartTogether(gap); !s) return s;
    Status first = WaitFor(
        "a MASTER on the fabric",
        [&](std::string& why) {
          why = "no sole MASTER yet";
          return !SoleMaster(*bed_).empty();
        },
        options_.deadline, milliseconds(10));
    if (!first) return first;
    cycle.action_ms = Since(start);
    Result<std::string> master = WaitForAnySteadyState(*bed_, options_.deadline);
    if (!master) return master.error();
    if (*master != bed_->master_name()) cycle.note += "; the role standby became MASTER";
    return Status::Ok();
  }

  // kill -9 of the master's smsupd while `reload --wait` applies a P_Key
  // change; smsupd started again adopts OpenSM, which never stopped.
  Status KillDuringApply(int index, SoakCycle& cycle) {
    if (Status s = SetUp(true); !s) return s;
    Result<std::string> master = WaitForAnySteadyState(*bed_, options_.deadline);
    if (!master) return master.error();
    ManagementNode& node = bed_->Node(*master);
    // A partition more each cycle: the apply always has something to do.
    node.config().partitions.push_back(PartitionSpec{
        "soak" + std::to_string(index), static_cast<std::uint16_t>(0x100 + index % 0x6000), false,
        std::nullopt, {HostMember(node.node(), "full")}});
    if (Status s = node.WriteConfig(); !s) return s;
    const milliseconds delay(std::uniform_int_distribution<int>(20, 400)(random_));
    cycle.note = *master + " killed " + std::to_string(delay.count()) + " ms into the apply";
    bed_->monitor()->Reset();
    std::thread reload([&node] { node.Smctl({"reload", "--wait", "--timeout", "30"}); });
    std::this_thread::sleep_for(delay);  // the moment of the kill is the variable under test
    const Clock::time_point start = Clock::now();
    Status killed = node.Signal(SIGKILL);
    reload.join();
    if (!killed) return killed;
    ++leaked_clients_;
    if (Result<ExitStatus> gone = node.Wait(options_.deadline); !gone) return gone.error();
    if (Status s = node.Start(); !s) return s;
    if (Status s = node.WaitForSmState("MASTER", options_.deadline); !s) return s;
    cycle.action_ms = Since(start);
    Result<std::string> after = WaitForAnySteadyState(*bed_, options_.deadline);
    return after ? Status::Ok() : after.error();
  }

  // The master node's link goes down and comes back 2-10 s later.
  Status NodeLoss(SoakCycle& cycle) {
    if (Status s = SetUp(true); !s) return s;
    Result<std::string> master = WaitForAnySteadyState(*bed_, options_.deadline);
    if (!master) return master.error();
    const std::string standby = Other(*bed_, *master);
    const milliseconds away(std::uniform_int_distribution<int>(2000, 10000)(random_));
    cycle.note = *master + " away " + std::to_string(away.count()) + " ms";
    bed_->monitor()->Reset();
    const Clock::time_point start = Clock::now();
    if (Status s = bed_->UnlinkNode(*master); !s) return s;
    if (Status s = bed_->WaitForSoleMaster(standby, options_.deadline); !s) return s;
    cycle.action_ms = Since(start);
    std::this_thread::sleep_for(away - milliseconds(std::min<long>(cycle.action_ms, away.count())));
    if (Status s = bed_->RelinkNode(*master); !s) return s;
    Result<std::string> after = WaitForAnySteadyState(*bed_, options_.deadline);
    if (!after) return after.error();
    // With preempt the returning role master takes mastership back after
    // its hold time: wait for that too, so the window covers it.
    if (options_.preempt && *after != bed_->master_name()) {
      if (Status s =
              bed_->WaitForSteadyState(bed_->master_name(), bed_->standby_name(),
                                       options_.deadline + milliseconds(kSoakHoldTimeS * 1000));
          !s)
        return s;
    }
    return Status::Ok();
  }

  const Topology& topology_;
  SoakOptions options_;
  std::mt19937 random_;
  std::unique_ptr<SimulatedFabric> fabric_;
  std::unique_ptr<FailoverBed> bed_;
  int leaked_clients_ = 0;  // ibsim slots held by killed smsupds on this fabric
};

}  // namespace

const char* SoakScenarioName(SoakScenario scenario) {
  switch (scenario) {
    case SoakScenario::kRestartCycles: return "smctl restart-opensm, alternating nodes";
    case SoakScenario::kColdStarts: return "cold start of both nodes within 50 ms";
    case SoakScenario::kSmsupdKillInApply: return "kill -9 of the master's smsupd during an apply";
    case SoakScenario::kNodeLoss: return "master node lost, back after 2-10 s";
  }
  return "?";
}

std::vector<SoakCycle> RunSoak(const Topology& topology, SoakScenario scenario,
                               const SoakOptions& options,
                               const std::function<void(int, const SoakCycle&)>& on_cycle) {
  Soak soak(topology, options);
  std::vector<SoakCycle> cycles;
  for (int i = 0; i < options.cycles; ++i) {
    cycles.push_back(soak.Cycle(scenario, i));
    if (on_cycle) on_cycle(i, cycles.back());
  }
  soak.TearDown();
  return cycles;
}

}  // namespace smsupd::testbed
