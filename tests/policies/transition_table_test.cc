// Every row of the transition table, driven through the policy (Kea's
// testTransition(from, event, expected) idea), and every pair not in the
// table shown to be reported and ignored.
#include "policies/transition_table.h"

#include <gtest/gtest.h>

#include "policies/failover_policy.h"

namespace smsupd::policy {
namespace {

using S = SupervisorState;
using E = PolicyEvent;

constexpr Guid kTableLocal = 0x10;
constexpr Guid kTablePeer = 0x20;
constexpr Guid kThird = 0x30;
const TimePoint kTableT0 = TimePoint{} + std::chrono::hours(1);
const TimePoint kT1 = kTableT0 + std::chrono::seconds(1);

const std::vector<S> kAllStates = {S::kStarting, S::kNotActive, S::kDiscovering, S::kStandby,
                                   S::kMaster, S::kTakingOver, S::kHandingOver,
                                   S::kRecovering, S::kStopping, S::kStopped};
const std::vector<E> kAllEvents = {
    E::kStartupReady, E::kOpenSmStarted, E::kOpenSmExited, E::kLocalNotActive,
    E::kLocalDiscovering, E::kLocalStandby, E::kLocalMaster, E::kLocalSmSilent,
    E::kMasterNotSweeping,
    E::kMasterLost, E::kNoMaster,
    E::kDualMaster, E::kClaimSeen, E::kHandoverComplete, E::kDeadline,
    E::kFailoverCommand, E::kStopCommand, E::kRestartCommand};

// The local SM's SMInfo state while the supervisor is in `s` (nullopt: down).
std::optional<SmState> Mirror(S s) {
  switch (s) {
    case S::kNotActive: return SmState::kNotActive;
    case S::kDiscovering: return SmState::kDiscovering;
    case S::kStandby: case S::kTakingOver: return SmState::kStandby;
    case S::kMaster: case S::kHandingOver: case S::kStopping: return SmState::kMaster;
    default: return std::nullopt;
  }
}

void SetLocal(Observation& obs, std::optional<SmState> state, int priority) {
  obs.opensm.running = state.has_value();
  obs.local_sm.reset();
  if (state) obs.local_sm = LocalSmInfo{*state, priority, 7};
}

// An observation in which `event` is true in state `from`; `guard` picks
// between the row's `to` (true) and `otherwise` (false).
Observation ObservationFor(S from, E event, bool guard) {
  Observation obs;
  obs.local_port = LocalPort{4, 1, 2};
  const auto local = Mirror(from);
  SetLocal(obs, local, local == SmState::kMaster ? 15 : 5);
  std::vector<SmEntry> sms = {{kTablePeer, 2, SmState::kStandby, 5}};
  if (local != SmState::kMaster) sms[0] = {kTablePeer, 2, SmState::kMaster, 15};
  switch (event) {
    case E::kStartupReady: case E::kOpenSmExited: SetLocal(obs, std::nullopt, 0); break;
    case E::kOpenSmStarted: SetLocal(obs, SmState::kNotActive, 5); break;
    case E::kLocalNotActive: SetLocal(obs, SmState::kNotActive, 5); break;
    case E::kLocalDiscovering: SetLocal(obs, SmState::kDiscovering, 5); break;
    case E::kLocalStandby: SetLocal(obs, SmState::kStandby, 5); break;
    case E::kLocalMaster:
      SetLocal(obs, SmState::kMaster, 15);
      if (guard) obs.opensm.master_entries = 1;  // HANDING_OVER: handed back since the yield
      break;
    case E::kLocalSmSilent: obs.opensm.running = true, obs.local_sm.reset(); break;
    case E::kMasterLost:
      obs.master = MasterWatch{kTablePeer, 2, 15, SmState::kMaster, 10, 1, false};
      break;
    case E::kNoMaster:
      sms = {{kTablePeer, 2, SmState::kStandby, 5}};
      break;
    case E::kDualMaster:
      sms = {{kTablePeer, 2, SmState::kMaster, 15}, {kThird, 3, SmState::kMaster, 5}};
      if (local == SmState::kMaster) SetLocal(obs, SmState::kMaster, guard ? 5 : 15);
      break;
    case E::kClaimSeen:
      sms = {{kTablePeer, 2, SmState::kStandby, 14}};
      if (!guard) sms.push_back({kThird, 3, SmState::kStandby, 15});
      break;
    case E::kMasterNotSweeping:
      obs.opensm.first_sweep_running = true;
      if (!guard) sms.clear();
      break;
    case E::kHandoverComplete: SetLocal(obs, SmState::kStandby, 0); break;
    case E::kFailoverCommand: case E::kStopCommand:
      obs.command = OperatorCommand{event == E::kStopCommand ? OperatorCommand::Kind::kStop
                                                             : OperatorCommand::Kind::kFailover,
                                    std::nullopt};
      if (!guard) sms.clear();
      break;
    case E::kRestartCommand:
      obs.command = OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt};
      if (!guard) sms.clear();
      break;
    default: break;
  }
  if (local || obs.opensm.running)
    sms.push_back({kTableLocal, 1, obs.local_sm ? obs.local_sm->state : SmState::kNotActive,
                   obs.local_sm ? obs.local_sm->priority : 0});
  obs.sms = sms;
  return obs;
}

PolicyConfig Config() {
  PolicyConfig c;
  c.local_guid = kTableLocal;
  c.role = Role::kMaster;
  c.preempt = true;
  return c;
}

bool HasEvent(const Actions& actions, const std::string& kind) {
  for (const Action& a : actions)
    if (a.kind == Action::Kind::kEmitEvent && a.id == kind) return true;
  return false;
}

// Runs `event` from `from`; returns the state reached.
S TestTransition(S from, E event, bool guard, Actions* out = nullptr) {
  FailoverPolicy policy(Config(), kTableT0);
  policy.ForceStateForTest(from, kTableT0);
  if (!guard && from == S::kHandingOver && event != E::kStopCommand) {
    // The alternative of HANDING_OVER rows is "a stop is pending".
    Observation stop = ObservationFor(from, E::kStopCommand, true);
    policy.ApplyForTest(E::kStopCommand, stop, kTableT0);
  }
  const TimePoint when = event == E::kDeadline ? kTableT0 + std::chrono::hours(1) : kT1;
  Actions actions = policy.ApplyForTest(event, ObservationFor(from, event, guard), when);
  if (out) *out = actions;
  return policy.state();
}

TEST(TransitionTableTest, EveryRowLeadsWhereTheTableSays) {
  for (const Transition& t : TransitionTable()) {
    SCOPED_TRACE(std::string(SupervisorStateName(t.from)) + " + " + PolicyEventName(t.event));
    Actions actions;
    EXPECT_EQ(SupervisorStateName(TestTransition(t.from, t.event, true, &actions)),
              std::string(SupervisorStateName(t.to)));
    EXPECT_FALSE(HasEvent(actions, "FAILOVER_ILLEGAL_EVENT"));
    if (t.otherwise != t.to) {
      SCOPED_TRACE("guard fails");
      EXPECT_EQ(SupervisorStateName(TestTransition(t.from, t.event, false)),
                std::string(SupervisorStateName(t.otherwise)));
    }
  }
}

TEST(TransitionTableTest, EveryIllegalPairIsReportedAndIgnored) {
  int illegal = 0;
  for (S from : kAllStates) {
    for (E event : kAllEvents) {
      if (FindTransition(from, event) != nullptr) continue;
      ++illegal;
      SCOPED_TRACE(std::string(SupervisorStateName(from)) + " + " + PolicyEventName(event));
      Actions actions;
      EXPECT_EQ(TestTransition(from, event, true, &actions), from);
      EXPECT_TRUE(HasEvent(actions, "FAILOVER_ILLEGAL_EVENT"));
    }
  }
  EXPECT_GT(illegal, 40);
}

TEST(TransitionTableTest, PairsAreUniqueAndCommandsAreLegalEverywhere) {
  for (S from : kAllStates) {
    for (E event : kAllEvents) {
      int rows = 0;
      for (const Transition& t : TransitionTable()) rows += t.from == from && t.event == event;
      EXPECT_LE(rows, 1);
    }
    // An operator always gets an answer, whatever the state.
    EXPECT_NE(FindTransition(from, E::kFailoverCommand), nullptr) << SupervisorStateName(from);
    EXPECT_NE(FindTransition(from, E::kStopCommand), nullptr) << SupervisorStateName(from);
  }
}

TEST(TransitionTableTest, IllegalPairIsReportedOncePerVisit) {
  FailoverPolicy policy(Config(), kTableT0);
  policy.ForceStateForTest(S::kStopped, kTableT0);
  Observation obs = ObservationFor(S::kStopped, E::kMasterLost, true);
  EXPECT_TRUE(HasEvent(policy.ApplyForTest(E::kMasterLost, obs, kT1), "FAILOVER_ILLEGAL_EVENT"));
  EXPECT_FALSE(HasEvent(policy.ApplyForTest(E::kMasterLost, obs, kT1), "FAILOVER_ILLEGAL_EVENT"));
}

TEST(TransitionTableTest, RefusedFailoverCommandIsAnsweredInEveryState) {
  for (S from : kAllStates) {
    if (from == S::kMaster || from == S::kStandby) continue;  // may be accepted
    Actions actions;
    TestTransition(from, E::kFailoverCommand, true, &actions);
    bool replied = false;
    for (const Action& a : actions)
      replied |= a.kind == Action::Kind::kReplyToOperator && !a.ok && !a.text.empty();
    EXPECT_TRUE(replied) << SupervisorStateName(from);
  }
}

}  // namespace
}  // namespace smsupd::policy
