// A small model of a subnet for scenario tests: N management nodes, each with
// an OpenSM that follows OpenSM's election rules (and the races measured in
// docs/opensm-behaviour.md "Start-up races: dual master and no master"), and each with a FailoverPolicy fed
// observations built from the model. One Step() is one master-poll interval. The model is
// idealised: every OpenSM reaction happens within the step that caused it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policies/failover_policy.h"

namespace smsupd::policy::testing {

struct SimNode {
  std::string name;
  Guid guid = 0;
  std::uint16_t lid = 0;
  PolicyConfig config;
  std::unique_ptr<FailoverPolicy> policy;
  bool smsupd_up = true;      // the node's smsupd runs (steps its policy)
  bool node_up = true;        // the node answers anything at all
  bool running = false;       // its OpenSM process
  bool hung = false;          // OpenSM alive but answers no SMInfo
  bool port_down = false;     // the node's own port is Down: it sees nothing
  bool act_frozen = false;    // ActCount never moves (answers anyway)
  bool sm_key_mismatch = false;  // its OpenSM logs ERR 2F18
  bool never_master = false;  // never completes becoming MASTER (bad sweep)
  int sweep_in = -1;          // steps until a SIGHUP-forced heavy sweep ends
  bool handover_failed = false;  // its HandOverThenKill went unanswered
  SmState state = SmState::kNotActive;
  int priority = 0;
  std::uint32_t act_count = 0;
  std::string exit_info;
  int restart_in = -1;        // steps until a requested restart happens
  int restart_priority = 0;
  std::optional<Guid> watched;  // remote master this node's daemon polls
  int misses = 0;
  std::vector<Action> last_actions;
  std::vector<Action> history;  // every action since the node's policy began
  std::vector<OperatorCommand> pending_commands;
  std::vector<std::string> replies;  // "ok: ..." / "refused: ..."
};

class FabricWorld {
 public:
  static constexpr Duration kStep{150};  // master poll interval

  // sweep_steps: how many steps a heavy sweep forced by SIGHUP takes before a
  // MASTER hands over (0: within the step; 7: ~1 s, as measured).
  // sa_every: the SA list reaches each daemon only every that many steps.
  explicit FabricWorld(int sweep_steps = 0, int sa_every = 1)
      : sweep_steps_(sweep_steps), sa_every_(sa_every) {}

  // Adds a node; its smsupd starts (policy created) at once.
  SimNode& AddNode(std::string name, Guid guid, Role role, bool preempt);
  SimNode& node(const std::string& name);
  std::vector<SimNode*> nodes();

  void Step(int count = 1);
  // Steps until pred() holds, at most max_steps; returns whether it held.
  template <typename Pred>
  bool StepUntil(Pred pred, int max_steps) {
    for (int i = 0; i < max_steps; ++i) {
      if (pred()) return true;
      Step();
    }
    return pred();
  }

  // Fabric events.
  void KillOpenSm(const std::string& name);  // kill -9 of the OpenSM
  void NodeDown(const std::string& name);    // node or port gone
  void NodeUp(const std::string& name);      // node back, smsupd restarts
  void RestartSmsupd(const std::string& name);  // new policy, OpenSM kept
  void Command(const std::string& name, OperatorCommand command);
  // Starts OpenSM on two nodes in the same step at their role priority,
  // without smsupd: the "both entered MASTER" race (docs/opensm-behaviour.md "Start-up races: dual
  // master and no master").
  void StartRacing(const std::string& a, const std::string& b);
  // Starts OpenSM on `name` by hand (no smsupd involved) at `priority`.
  void StartRaw(const std::string& name, int priority);

  std::vector<const SimNode*> Masters() const;
  std::string MasterName() const;  // "" none, "a+b" several
  // OpenSM's own election over the running SMs: who it would keep as master.
  std::string ElectionWinnerName() const;
  bool bad_path_used() const { return bad_path_used_; }
  int master_changes() const { return master_changes_; }
  TimePoint now() const { return now_; }
  // Misses injected into the next polls of `name`'s OpenSM (MAD loss).
  void DropNextPolls(const std::string& name, int count) { drop_[name] = count; }

 private:
  Observation Observe(SimNode& n);
  std::optional<MasterWatch> WatchMaster(SimNode& n);
  void Execute(SimNode& n, const std::vector<Action>& actions);
  void SetPriority(SimNode& n, int priority);
  void HeavySweep(SimNode& n);
  void StartHeavySweep(SimNode& n);
  void SweepOnTrap144(const SimNode& from);
  void Handover(SimNode& target);
  void StartOpenSm(SimNode& n, int priority);
  void Settle();
  SimNode* ByGuid(Guid guid);
  bool Answers(const SimNode& n) const { return n.node_up && n.running && !n.hung; }

  TimePoint now_{};
  std::vector<std::unique_ptr<SimNode>> nodes_;
  std::vector<SimNode*> starting_;  // OpenSMs started this step (race model)
  std::map<std::string, int> drop_;
  int sweep_steps_ = 0;
  int sa_every_ = 1;
  int step_count_ = 0;
  bool bad_path_used_ = false;
  bool configured_ = false;  // some master has configured the ports
  int master_changes_ = 0;
  std::string last_master_;
};

// Whether node `n` has the problem `id` raised now.
inline bool Raised(const SimNode& n, const std::string& id) {
  return n.policy->problems().count(id) != 0;
}

}  // namespace smsupd::policy::testing
