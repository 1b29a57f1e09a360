// Steps for scenario tests: one step of the modelled subnet plus the
// invariants every step must keep, and the usual boot of a supervised pair.
#pragma once

#include <gtest/gtest.h>

#include "tests/policies/fabric_world.h"

namespace smsupd::policy::testing {

// "s" has the lower GUID: on equal priorities OpenSM would prefer it, so
// every clamp below the master is exercised.
inline constexpr Guid kM = 0x0002c9030000000a;
inline constexpr Guid kS = 0x0002c90300000005;
inline constexpr int kHoldSteps = 3000 / 150;
// A dead master's OpenSM restarts only after the new master's first sweep:
// 2 s without its ActCount rising at a sweep's rate (here it never sweeps).
inline constexpr int kRestartQuietSteps = 2000 / 150 + 1;

inline bool AnyInTransition(FabricWorld& w) {
  for (const SimNode* n : w.nodes()) {
    const auto s = n->policy->state();
    if (s == SupervisorState::kHandingOver || s == SupervisorState::kTakingOver) return true;
  }
  return false;
}

// One step plus the invariants; false (with a failure) when one broke.
inline bool CheckedStep(FabricWorld& w) {
  w.Step();
  EXPECT_FALSE(w.bad_path_used()) << "a STANDBY was raised above the MASTER";
  for (const SimNode* n : w.nodes())
    for (const Action& a : n->last_actions)
      EXPECT_NE(a.id, "FAILOVER_ILLEGAL_EVENT") << n->name << ": " << a.Describe();
  const auto masters = w.Masters();
  if (masters.size() != 1) return !w.bad_path_used();
  if (!AnyInTransition(w) && w.MasterName() != w.ElectionWinnerName()) {
    ADD_FAILURE() << "MASTER " << w.MasterName() << " but OpenSM would elect "
                  << w.ElectionWinnerName();
    return false;
  }
  return !w.bad_path_used();
}

inline bool RunChecked(FabricWorld& w, int steps) {
  for (int i = 0; i < steps; ++i)
    if (!CheckedStep(w)) return false;
  return true;
}

template <typename Pred>
inline int StepsUntil(FabricWorld& w, Pred pred, int max_steps) {
  for (int i = 0; i < max_steps; ++i) {
    if (pred()) return i;
    if (!CheckedStep(w)) return -1;
  }
  return pred() ? max_steps : -1;
}

inline bool Emitted(const SimNode& n, Action::Kind kind) {
  for (const Action& a : n.last_actions)
    if (a.kind == kind) return true;
  return false;
}

// m (role master) comes up first and is MASTER; s joins as STANDBY.
inline void Boot(FabricWorld& w, bool preempt) {
  w.AddNode("m", kM, Role::kMaster, preempt);
  SimNode& s = w.AddNode("s", kS, Role::kStandby, preempt);
  s.smsupd_up = false;
  ASSERT_GE(StepsUntil(w, [&] { return w.MasterName() == "m"; }, 10), 0);
  w.NodeUp("s");
  ASSERT_GE(StepsUntil(w, [&] { return w.node("s").state == SmState::kStandby; }, 40), 0);
  ASSERT_TRUE(RunChecked(w, 25));  // every daemon has had an SA list since
  ASSERT_EQ(w.node("m").priority, 15);
  ASSERT_EQ(w.node("s").priority, 5);
}

}  // namespace smsupd::policy::testing
