// Two smsupd + OpenSM pairs on a simulated fabric: the role master on the
// first management node (H1_1), the role standby on the second (H1_2), and
// the checks failover tests and the benchmark make through the test bed's
// own MAD queries (never through smsupd's or OpenSM's word):
//   - "exactly one MASTER and it is X": SMInfo of both SMs, plus the far
//     HCA's PortInfo (Active, SM LID = X's LID);
//   - a background MasterMonitor (no two MASTERs, no moment without one);
//   - faults: kill -9 of an OpenSM, SIGTERM of an smsupd, a node's port
//     unlinked / relinked in ibsim, MAD drops on a node's link.
// Usable without GoogleTest (the benchmark links it too).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "tests/daemon/failover/master_monitor.h"
#include "tests/testbed/fabric_probe.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {

struct FailoverBedOptions {
  bool preempt = true;
  int hold_time_s = 2;
  bool monitor = true;        // run a MasterMonitor from the first election on
  bool start_standby = true;  // false: only the role master runs (no redundancy)
  // The monitor's sampling interval (the soak reads every 10 ms).
  std::chrono::milliseconds monitor_interval{100};
  std::chrono::milliseconds setup_deadline{60000};
  // Edits each node's config before the node is created (index 0: the
  // role master): another OpenSM binary, a key file, metrics.listen, hooks.
  std::function<void(int index, SmsupdConfig& config)> configure;
};

class FailoverBed {
 public:
  FailoverBed(SimulatedFabric& fabric, FailoverBedOptions options);
  ~FailoverBed();  // StopAll()

  // Starts the role master, waits until the fabric shows it sole MASTER,
  // starts the monitor, then the standby, and waits until the fabric and
  // both smsupds show MASTER + STANDBY.
  Status Start();
  // A cold start: both smsupds started `gap` apart without waiting for
  // anything in between (a power cut ends). Returns once the first sweep has
  // given both SM nodes a LID and the monitor (if any) runs; the election
  // may still be going on.
  Status StartTogether(std::chrono::milliseconds gap);
  // Stops the monitor, then kills both smsupds and their OpenSMs.
  void StopAll();

  ManagementNode& master() { return *nodes_[0]; }    // role master (H1_1)
  ManagementNode& standby() { return *nodes_[1]; }   // role standby (H1_2)
  ManagementNode& Node(const std::string& name);
  const std::string& master_name() const { return names_[0]; }
  const std::string& standby_name() const { return names_[1]; }
  uint16_t LidOf(const std::string& node) const;
  MasterMonitor* monitor() { return monitor_.get(); }
  FabricProbe& probe() { return fabric_.probe(); }

  // "" when the SMs' SMInfo shows exactly one MASTER, it is `node`, and the
  // far HCA's port is Active pointing at it; otherwise what the fabric shows.
  // `silent_only` (if given): true when the one thing amiss is that `node`'s
  // SM did not answer (no other MASTER, the far HCA Active and pointing at it).
  std::string DescribeSoleMaster(const std::string& node, bool* silent_only = nullptr);
  Status WaitForSoleMaster(const std::string& node, std::chrono::milliseconds deadline);
  // SMInfo of `node`'s SM in `state`, as the probe reads it.
  Status WaitForProbeState(const std::string& node, SmStateValue state, std::chrono::milliseconds deadline);
  // SMInfo of `node`'s SM at `priority`, as the probe reads it (what its
  // OpenSM runs at, not what smsupd wrote to opensm.conf).
  Status WaitForProbePriority(const std::string& node, int priority,
                              std::chrono::milliseconds deadline);
  // smctl --json status of `node`: local_sm.state == `state`.
  Status WaitForSmsupdState(const std::string& node, const std::string& state,
                            std::chrono::milliseconds deadline);
  // The state every failure is injected from: `master`'s smsupd reports
  // MASTER and lists `standby` as STANDBY (until its next inventory after a
  // change it has no one to hand over to).
  Status WaitForSteadyState(const std::string& master, const std::string& standby,
                            std::chrono::milliseconds deadline);
  // smctl --json status of `node` lists `sm`'s SM in `state` (sms[]).
  Status WaitForListedSm(const std::string& node, const std::string& sm, const std::string& state,
                         std::chrono::milliseconds deadline);
  // Checks `condition` every `interval` for all of `duration`; the first
  // violation fails with its `why`.
  static Status Hold(const std::string& what, const std::function<bool(std::string& why)>& condition,
                     std::chrono::milliseconds duration,
                     std::chrono::milliseconds interval = std::chrono::milliseconds(100));

  // "No flip back": DescribeSoleMaster(node) holds for all of `duration`,
  // except that `node`'s SM may go unanswered for up to kSilentMasterBound
  // at a time while no other SM answers MASTER and the far HCA still points
  // at it. OpenSM answers SMInfo from the dispatcher threads that also
  // process a heavy sweep's replies; on a loaded machine a sweep (the new
  // master's raise to 15 starts one) can keep it from answering the probe's
  // three 200 ms tries. A flip back, a second MASTER or a far HCA following
  // another SM still fails at once.
  static constexpr std::chrono::milliseconds kSilentMasterBound{3000};
  Status HoldSoleMaster(const std::string& what, const std::string& node, std::chrono::milliseconds duration);

  // The node's HCA port down / up in ibsim (the node is gone / back).
  Status UnlinkNode(const std::string& node);
  Status RelinkNode(const std::string& node);

  // Every event of `node`'s smsupd whose kind matches (MASTER_LOST ==
  // master-lost); empty on error.
  std::vector<nlohmann::json> EventsOfKind(const std::string& node, const std::string& kind);
  // Both nodes' recent logs and the monitor's report, for failure messages.
  std::string Diagnostics();

 private:
  Status StartNode(int index, SmStateValue expected);
  Status CreateNode(int index);
  Status ResolveLids();
  void StartMonitor();

  SimulatedFabric& fabric_;
  FailoverBedOptions options_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<ManagementNode>> nodes_;
  std::vector<uint16_t> lids_;
  std::unique_ptr<MasterMonitor> monitor_;
};

}  // namespace smsupd::testbed
