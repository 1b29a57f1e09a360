// The policy driven directly by hand-written observations: the timing model
// (slow is not missed, thresholds, cross-check) and the first start.
#include <gtest/gtest.h>

#include "policies/failover_policy.h"
#include "policies/priority_plan.h"

namespace smsupd::policy {
namespace {

constexpr Guid kLocal = 0x0002c90300000005;
constexpr Guid kPeer = 0x0002c9030000000a;
const TimePoint kT0 = TimePoint{} + std::chrono::hours(1);

PolicyConfig Config(Role role) {
  PolicyConfig c;
  c.local_guid = kLocal;
  c.role = role;
  return c;
}

int Count(const Actions& actions, Action::Kind kind) {
  int n = 0;
  for (const Action& a : actions) n += a.kind == kind;
  return n;
}

const Action* Find(const Actions& actions, Action::Kind kind) {
  for (const Action& a : actions)
    if (a.kind == kind) return &a;
  return nullptr;
}

Observation StandbyUnder(int misses, std::optional<bool> port_answers) {
  Observation obs;
  obs.opensm.running = true;
  obs.local_sm = LocalSmInfo{SmState::kStandby, 5, 1};
  obs.local_port = LocalPort{4, 2, 1};
  obs.master = MasterWatch{kPeer, 1, 15, SmState::kMaster, misses, 100, port_answers};
  return obs;
}

// A policy that has adopted a running STANDBY under a master at 15.
FailoverPolicy AdoptedStandby(Role role) {
  FailoverPolicy policy(Config(role), kT0);
  Observation obs = StandbyUnder(0, std::nullopt);
  obs.sms =
      std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 15}, {kLocal, 2, SmState::kStandby, 5}};
  policy.Decide(obs, kT0);
  EXPECT_EQ(policy.state(), SupervisorState::kStandby);
  return policy;
}

// A running MASTER at 15 with the peer STANDBY at 5 in its SM list.
Observation MasterWithAStandby() {
  Observation obs;
  obs.opensm.running = true;
  obs.local_sm = LocalSmInfo{SmState::kMaster, 15, 1};
  obs.local_port = LocalPort{4, 2, 2};
  obs.sms = std::vector<SmEntry>{{kLocal, 2, SmState::kMaster, 15}, {kPeer, 1, SmState::kStandby, 5}};
  return obs;
}

// A policy that has adopted the MASTER `obs` shows.
FailoverPolicy AdoptedMasterOf(const Observation& obs) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  policy.Decide(obs, kT0);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  return policy;
}

// `at_ms`, found by 150 ms steps, is the first step at or after `due_ms`.
void ExpectFirstStepAfter(int at_ms, int due_ms) {
  EXPECT_GE(at_ms, due_ms) << "early";
  EXPECT_LE(at_ms, due_ms + 150) << "late, or never";
}

TEST(PolicyStepTest, StartupWaitsForTheSaWhileThePortIsActive) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation obs;
  obs.local_port = LocalPort{4, 2, 1};
  EXPECT_EQ(Count(policy.Decide(obs, kT0 + Duration(1000)), Action::Kind::kStartOpenSm), 0);
  const Actions a = policy.Decide(obs, kT0 + Duration(3000));
  ASSERT_NE(Find(a, Action::Kind::kStartOpenSm), nullptr);
  EXPECT_EQ(Find(a, Action::Kind::kStartOpenSm)->priority, 15);  // nobody else seen
}

TEST(PolicyStepTest, StartupJoinsUnderAMasterTheSaReports) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation obs;
  obs.local_port = LocalPort{4, 2, 1};
  obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 15}};
  const Actions a = policy.Decide(obs, kT0 + Duration(100));
  ASSERT_NE(Find(a, Action::Kind::kStartOpenSm), nullptr);
  EXPECT_EQ(Find(a, Action::Kind::kStartOpenSm)->priority, 5);
}

// A cold start of the subnet (no SM has brought the port up): the role
// master starts at once; the role standby gives it time, or both would
// start within milliseconds and both become MASTER.
TEST(PolicyStepTest, ColdStartTheRoleMasterFirstTheStandbyAfterItsWait) {
  Observation obs;
  obs.local_port = LocalPort{2, 0, 0};  // Init: no SM has configured it
  FailoverPolicy master(Config(Role::kMaster), kT0);
  const Actions m = master.Decide(obs, kT0 + Duration(100));
  ASSERT_NE(Find(m, Action::Kind::kStartOpenSm), nullptr);
  EXPECT_EQ(Find(m, Action::Kind::kStartOpenSm)->priority, 15);

  FailoverPolicy standby(Config(Role::kStandby), kT0);
  const Duration wait = standby.config().standby_cold_start_wait;
  EXPECT_EQ(Find(standby.Decide(obs, kT0 + Duration(100)), Action::Kind::kStartOpenSm), nullptr);
  EXPECT_EQ(Find(standby.Decide(obs, kT0 + wait - Duration(1)), Action::Kind::kStartOpenSm),
            nullptr);
  const Actions s = standby.Decide(obs, kT0 + wait);
  ASSERT_NE(Find(s, Action::Kind::kStartOpenSm), nullptr) << "nobody came: start anyway";
  EXPECT_EQ(Find(s, Action::Kind::kStartOpenSm)->priority, 5);
}

// Both management nodes rebooted while the switches stayed up: the ports
// are Active, no SA answers. The role master starts after startup_wait,
// the role standby only after its longer cold-start wait.
TEST(PolicyStepTest, RebootOfBothNodesStartsTheRoleMasterFirst) {
  Observation obs;
  obs.local_port = LocalPort{4, 3, 1};  // Active, SM LID of an SM that is gone
  FailoverPolicy master(Config(Role::kMaster), kT0);
  const Duration startup = master.config().startup_wait;
  EXPECT_EQ(Find(master.Decide(obs, kT0 + startup - Duration(1)), Action::Kind::kStartOpenSm),
            nullptr);
  EXPECT_NE(Find(master.Decide(obs, kT0 + startup), Action::Kind::kStartOpenSm), nullptr);
  FailoverPolicy standby(Config(Role::kStandby), kT0);
  EXPECT_EQ(Find(standby.Decide(obs, kT0 + startup), Action::Kind::kStartOpenSm), nullptr);
  EXPECT_NE(Find(standby.Decide(obs, kT0 + standby.config().standby_cold_start_wait),
                 Action::Kind::kStartOpenSm),
            nullptr);
}

TEST(PolicyStepTest, ColdStartTheStandbyJoinsUnderTheMasterThatCameUp) {
  FailoverPolicy standby(Config(Role::kStandby), kT0);
  Observation cold;
  cold.local_port = LocalPort{2, 0, 0};
  EXPECT_EQ(Find(standby.Decide(cold, kT0 + Duration(500)), Action::Kind::kStartOpenSm), nullptr);
  Observation up;  // the master's first sweep made the port Active
  up.local_port = LocalPort{4, 2, 1};
  up.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 15}};
  const Actions a = standby.Decide(up, kT0 + Duration(2000));
  ASSERT_NE(Find(a, Action::Kind::kStartOpenSm), nullptr);
  EXPECT_EQ(Find(a, Action::Kind::kStartOpenSm)->priority, 5);
}

TEST(PolicyStepTest, MissesBelowTheThresholdNeverTakeOver) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  TimePoint now = kT0;
  for (int i = 0; i < 3000; ++i) {  // 2 of 3 polls lost, node silent each time
    now += Duration(150);
    const int misses = i % 3;
    const Actions a = policy.Decide(StandbyUnder(misses, misses ? std::optional(false)
                                                                : std::nullopt), now);
    ASSERT_EQ(Count(a, Action::Kind::kTakeOver), 0) << "poll " << i;
  }
  EXPECT_EQ(policy.state(), SupervisorState::kStandby);
}

TEST(PolicyStepTest, NodeGoneTakesOverAtTheThreshold) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  const int threshold = policy.config().miss_threshold;
  for (int misses = 1; misses <= threshold; ++misses) {
    const Actions a = policy.Decide(StandbyUnder(misses, false), kT0 + misses * Duration(150));
    EXPECT_EQ(Count(a, Action::Kind::kTakeOver), misses == threshold ? 1 : 0) << misses;
  }
  EXPECT_EQ(policy.state(), SupervisorState::kTakingOver);
}

TEST(PolicyStepTest, LivePortNeedsTheExtraMisses) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  const PolicyConfig& c = policy.config();
  const int needed = c.miss_threshold + c.silent_sm_extra_misses;
  for (int misses = 1; misses <= needed; ++misses) {
    // Unknown cross-check (not asked yet) counts as "port answers".
    const auto port = misses % 2 ? std::optional<bool>(true) : std::nullopt;
    const Actions a = policy.Decide(StandbyUnder(misses, port), kT0 + misses * Duration(150));
    EXPECT_EQ(Count(a, Action::Kind::kTakeOver), misses == needed ? 1 : 0) << misses;
  }
}

// The master answers a poll 150 ms after `now` (moved on), its ActCount at
// `act_count`.
Actions AnswerWithActCount(FailoverPolicy& policy, TimePoint& now, std::uint32_t act_count) {
  now += Duration(150);
  Observation obs = StandbyUnder(0, std::nullopt);
  obs.master->act_count = act_count;
  return policy.Decide(obs, now);
}

// The master, its port answering, goes silent from the step after `now`
// on: taken over at miss_threshold + silent_sm_extra_misses, not before.
void ExpectTakenOverAtTheExtraMisses(FailoverPolicy& policy, TimePoint& now) {
  const int needed = policy.config().miss_threshold + policy.config().silent_sm_extra_misses;
  for (int misses = 1; misses <= needed; ++misses) {
    now += Duration(150);
    EXPECT_EQ(Count(policy.Decide(StandbyUnder(misses, true), now), Action::Kind::kTakeOver),
              misses == needed ? 1 : 0)
        << misses;
  }
}

// OpenSM computes routes holding its subnet lock, and its SMInfo receiver
// waits for it: on 10,000 HCAs a master answered nothing for 1.5-4 s of each
// heavy sweep while its port answered, and was taken over. A master that was
// in a large sweep at its last answer (its ActCount rising at a sweep's rate,
// by 50,000 SMPs or more since the sweep began) counts as lost only
// busy_master_silence after that answer, if its port answers; with its port
// silent too (the node gone), at the usual threshold.
TEST(PolicyStepTest, AMasterSilentInItsSweepIsLostOnlyAfterTheBusyMasterSilence) {
  for (const bool port_answers : {true, false}) {
    FailoverPolicy policy = AdoptedStandby(Role::kStandby);
    const PolicyConfig& c = policy.config();
    ASSERT_GT(c.busy_master_silence,
              (c.miss_threshold + c.silent_sm_extra_misses + 1) * Duration(150));
    TimePoint now = kT0;
    std::uint32_t act_count = 100;
    for (int answer = 0; answer < 10; ++answer) {  // 10,000 HCAs: +6,000 SMPs a poll
      act_count += 6000;
      EXPECT_EQ(Count(AnswerWithActCount(policy, now, act_count), Action::Kind::kTakeOver), 0);
    }
    const TimePoint last_answer = now;
    std::optional<int> taken_at_ms;
    std::string why;
    for (int misses = 1; misses <= 60 && !taken_at_ms; ++misses) {
      now += Duration(150);
      const Actions a = policy.Decide(StandbyUnder(misses, port_answers), now);
      if (!Count(a, Action::Kind::kTakeOver)) continue;
      taken_at_ms = static_cast<int>((now - last_answer) / Duration(1));
      for (const Action& action : a)
        if (action.kind == Action::Kind::kEmitEvent && action.id == "MASTER_LOST")
          why = action.text;
    }
    ASSERT_TRUE(taken_at_ms) << port_answers;
    if (port_answers) {
      ExpectFirstStepAfter(*taken_at_ms, static_cast<int>(c.busy_master_silence / Duration(1)));
      EXPECT_NE(why.find("silent for " + std::to_string(*taken_at_ms) +
                         " ms since an answer in a heavy sweep of a large fabric"),
                std::string::npos)
          << why;
    } else {
      EXPECT_EQ(*taken_at_ms, c.miss_threshold * 150) << "node gone: no extra wait";
      EXPECT_NE(why.find("is silent (node gone)"), std::string::npos) << why;
    }
  }
}

// The same silence after the sweep has ended (2 s of answers with the
// ActCount still) is a dead or hung SM: the extra misses, as before.
TEST(PolicyStepTest, AMasterSilentAfterItsSweepEndedNeedsOnlyTheExtraMisses) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  TimePoint now = kT0;
  std::uint32_t act_count = 100;
  for (int answer = 0; answer < 30; ++answer) {  // 1.5 s of sweep, then 3 s still
    if (answer < 10) act_count += 6000;
    AnswerWithActCount(policy, now, act_count);
  }
  ExpectTakenOverAtTheExtraMisses(policy, now);
}

// A small fabric's sweep (648 HCAs: ~8,600 SMPs) is computed in
// milliseconds: its master, silent right after it, is a dead or hung SM and
// is taken over at the extra misses (~1 s), not 6 s later. Its smsupd and
// OpenSM killed together just after a sweep must not cost a 6 s failover.
TEST(PolicyStepTest, AMasterSilentAfterASmallFabricsSweepNeedsOnlyTheExtraMisses) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  TimePoint now = kT0;
  std::uint32_t act_count = 100;
  for (int answer = 0; answer < 4; ++answer) {  // 8,600 SMPs in 0.6 s
    act_count += 2150;
    AnswerWithActCount(policy, now, act_count);
  }
  ExpectTakenOverAtTheExtraMisses(policy, now);
}

// A standby's own first discovery makes a busy master sweep again (on 10,000
// HCAs it then answered no SMInfo for ~2 s while its port answered): misses
// counted before the local SM is STANDBY do not count as "SM process dead".
// A silent port (the node gone) counts every miss, as before.
TEST(PolicyStepTest, MissesDuringTheLocalDiscoveryDoNotCountForALivePort) {
  for (const bool port_answers : {true, false}) {
    FailoverPolicy policy(Config(Role::kStandby), kT0);
    const PolicyConfig& c = policy.config();
    const int needed = c.miss_threshold + c.silent_sm_extra_misses;
    int step = 0;
    auto at = [&] { return kT0 + (++step) * Duration(150); };
    for (int misses = 0; misses <= needed + 3; ++misses) {
      Observation obs = StandbyUnder(misses, port_answers);
      obs.local_sm->state = SmState::kDiscovering;
      EXPECT_EQ(Count(policy.Decide(obs, at()), Action::Kind::kTakeOver), 0) << misses;
    }
    if (!port_answers) {
      EXPECT_EQ(Count(policy.Decide(StandbyUnder(needed + 4, false), at()), Action::Kind::kTakeOver), 1)
          << "node gone: taken over at the local STANDBY";
      continue;
    }
    // STANDBY now, the master still silent: only the misses from here count.
    for (int more = 0; more < needed; ++more)
      EXPECT_EQ(Count(policy.Decide(StandbyUnder(needed + 3 + more, true), at()), Action::Kind::kTakeOver), 0)
          << more;
    EXPECT_EQ(policy.state(), SupervisorState::kStandby);
    EXPECT_EQ(Count(policy.Decide(StandbyUnder(2 * needed + 3, true), at()), Action::Kind::kTakeOver), 1);
  }
}

// The master lost (its port answers, its SM does not) and no MASTER known
// from any SM list: MASTER_LOST and NO_MASTER fall due in the same step.
// One HANDOVER goes to the local SM, not two: a second one reaching the
// OpenSM the first made MASTER would force its heavy sweep again.
TEST(PolicyStepTest, TheMasterLostWithNoMasterListedSendsOneHandover) {
  FailoverPolicy policy(Config(Role::kStandby), kT0);
  const PolicyConfig& c = policy.config();
  const int needed = c.miss_threshold + c.silent_sm_extra_misses;
  int takeovers = 0;
  for (int misses = 0; misses <= needed; ++misses) {
    const Actions a = policy.Decide(StandbyUnder(misses, true), kT0 + misses * Duration(150));
    EXPECT_EQ(Count(a, Action::Kind::kTakeOver), misses == needed ? 1 : 0) << misses;
    takeovers += Count(a, Action::Kind::kTakeOver);
  }
  EXPECT_EQ(takeovers, 1);
  EXPECT_EQ(policy.state(), SupervisorState::kTakingOver);
}

TEST(PolicyStepTest, LocalPortDownBlocksTakeOver) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  for (int misses = 1; misses <= 20; ++misses) {
    Observation obs = StandbyUnder(misses, false);
    obs.local_port->port_state = 1;
    EXPECT_EQ(Count(policy.Decide(obs, kT0 + misses * Duration(150)), Action::Kind::kTakeOver), 0);
  }
}

Observation LocalMaster(int port_state, SmState local_state = SmState::kMaster) {
  Observation obs;
  obs.opensm.running = true;
  obs.local_sm = LocalSmInfo{local_state, 15, 1};
  obs.local_port = LocalPort{port_state, 1, 1};
  return obs;
}

// A policy that has adopted a running MASTER at 15 with a STANDBY beside it.
FailoverPolicy AdoptedMaster() {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation obs = LocalMaster(4);
  obs.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}, {kPeer, 2, SmState::kStandby, 5}};
  policy.Decide(obs, kT0);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  return policy;
}

Observation Stopped(int port_state) {
  Observation obs;
  obs.opensm.running = false;
  obs.opensm.exit_info = "exited with code 0";
  obs.local_port = LocalPort{port_state, 1, 1};
  return obs;
}

// The master's own port goes Down (its link unplugged): the standby takes
// over on the other side, so the isolated OpenSM must not survive to come
// back as a second MASTER at 15. It is stopped at once, nothing is sent
// through the dead port, and a standby starts only when the port is back.
TEST(PolicyStepTest, IsolatedMasterIsStoppedAndReturnsAsAStandby) {
  FailoverPolicy policy = AdoptedMaster();
  ASSERT_EQ(policy.state(), SupervisorState::kMaster);

  TimePoint t = kT0 + Duration(300);
  Actions down = policy.Decide(LocalMaster(1), t);
  EXPECT_EQ(Count(down, Action::Kind::kStopOpenSm), 1);
  // Asked once, however long OpenSM takes to exit.
  EXPECT_EQ(Count(policy.Decide(LocalMaster(1), t + Duration(150)), Action::Kind::kStopOpenSm), 0);

  Actions exited = policy.Decide(Stopped(1), t + Duration(300));
  EXPECT_EQ(Count(exited, Action::Kind::kSendHandover), 0);
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 0);
  EXPECT_EQ(policy.state(), SupervisorState::kRecovering);
  for (int i = 1; i <= 20; ++i)  // 3 s with the port Down: nothing starts
    EXPECT_EQ(Count(policy.Decide(Stopped(1), t + Duration(300) + i * Duration(150)),
                    Action::Kind::kRestartOpenSm), 0) << i;
  EXPECT_EQ(policy.problems().count(kProblemLocalPortDown), 1u);

  // Link back (port Init, no LID yet): one restart, one step below the
  // standby priority. The standby that took over still runs at the standby
  // priority until it raises itself; an equal priority and a lower GUID here
  // would make its OpenSM hand the mastership straight back.
  Actions back = policy.Decide(Stopped(2), t + Duration(4000));
  const Action* restart = Find(back, Action::Kind::kRestartOpenSm);
  ASSERT_NE(restart, nullptr);
  EXPECT_EQ(restart->priority, policy.config().standby_priority - 1);
  EXPECT_FALSE(OutRanks(restart->priority, policy.config().local_guid, policy.config().standby_priority,
                        ~Guid{0}));
  EXPECT_EQ(Count(policy.Decide(Stopped(2), t + Duration(4150)), Action::Kind::kRestartOpenSm), 0);
}

bool Announced(const Actions& actions, const std::string& kind) {
  for (const Action& a : actions)
    if (a.kind == Action::Kind::kEmitEvent && a.id == kind) return true;
  return false;
}

// The master's link flapped faster than its watch round: smsupd never read
// the local port Down, the standby (watching the switch port at the other
// end of the cable) took over, and its first sweep set the local port's SM
// LID to itself. The local OpenSM still answers MASTER at 15, which would win
// OpenSM's election and hand the fabric back. `standby_was_listed`: the new
// master had been this node's STANDBY; a MASTER that never was is left to
// OpenSM's election as before.
void SweptByTheFormerStandby(bool standby_was_listed) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation adopted = LocalMaster(4);
  adopted.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}};
  if (standby_was_listed) adopted.sms->push_back({kPeer, 2, SmState::kStandby, 5});
  policy.Decide(adopted, kT0);
  ASSERT_EQ(policy.state(), SupervisorState::kMaster);

  Observation swept = LocalMaster(4);
  swept.local_port->sm_lid = 2;
  swept.master = MasterWatch{kPeer, 2, 5, SmState::kMaster, 0, 100, std::nullopt};
  Observation with_list = swept;
  with_list.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}, {kPeer, 2, SmState::kMaster, 5}};
  TimePoint t = kT0 + Duration(150);
  int stops = 0, yields = 0;
  bool announced = false;
  for (int i = 0; i < 20; ++i, t += Duration(150)) {
    const Actions a = policy.Decide(i % 4 == 0 ? with_list : swept, t);
    stops += Count(a, Action::Kind::kStopOpenSm);
    yields += Count(a, Action::Kind::kSetLocalPriority);
    announced |= Announced(a, "SUPERSEDED_MASTER_STOPPED");
  }
  if (!standby_was_listed) {
    EXPECT_EQ(stops, 0);
    EXPECT_FALSE(announced);
    EXPECT_EQ(policy.state(), SupervisorState::kMaster) << "wins the election at 15, as before";
    return;
  }
  EXPECT_EQ(stops, 1) << "asked once, however long OpenSM takes to exit";
  EXPECT_TRUE(announced);
  EXPECT_EQ(yields, 0);

  Observation exited = Stopped(4);
  exited.local_port->sm_lid = 2;
  exited.master = swept.master;
  const Actions after = policy.Decide(exited, t);
  EXPECT_EQ(Count(after, Action::Kind::kSendHandover), 0) << "the new master is MASTER already";
  const Action* restart = Find(after, Action::Kind::kRestartOpenSm);
  ASSERT_NE(restart, nullptr) << "restarts at once: the port is up";
  EXPECT_FALSE(OutRanks(restart->priority, kLocal, 5, kPeer)) << "under the new master";
  EXPECT_EQ(policy.state(), SupervisorState::kRecovering);
}

TEST(PolicyStepTest, AMasterWhosePortItsFormerStandbySweptStepsDown) {
  SweptByTheFormerStandby(true);
}

TEST(PolicyStepTest, AMasterSweptByAnSmThatWasNeverItsStandbyKeepsOpenSmsElection) {
  SweptByTheFormerStandby(false);
}

// The other side: the standby took over from a master it lost (its cable's
// far end read Down). That master is back, still MASTER at 15, winning
// OpenSM's election against the new master at 5. The new master holds on
// (its smsupd stops the old one) instead of yielding and handing the
// fabric back; only after kReturnedMasterGrace, as if no smsupd ran there,
// does OpenSM's election decide.
TEST(PolicyStepTest, ANewMasterHoldsOnAgainstTheMasterItTookOverFromForAGrace) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation lost = StandbyUnder(1, false);
  lost.master->link_down = true;
  TimePoint t = kT0 + Duration(150);
  ASSERT_EQ(Count(policy.Decide(lost, t), Action::Kind::kTakeOver), 1);
  Observation master;
  master.opensm.running = true;
  master.local_sm = LocalSmInfo{SmState::kMaster, 5, 1};
  master.local_port = LocalPort{4, 2, 2};
  t += Duration(150);
  policy.Decide(master, t);
  ASSERT_EQ(policy.state(), SupervisorState::kMaster);

  Observation dual = master;
  dual.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 15}, {kLocal, 2, SmState::kMaster, 5}};
  bool held = false;
  const TimePoint returned = t;
  for (t += Duration(150); t < returned + Duration(9000); t += Duration(150)) {
    const Actions a = policy.Decide(dual, t);
    EXPECT_EQ(Count(a, Action::Kind::kSetLocalPriority), 0) << "yielded within the grace";
    held |= Announced(a, "DUAL_MASTER_HELD");
  }
  EXPECT_TRUE(held);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  int yields = 0;
  for (; t < returned + Duration(12000); t += Duration(150))
    yields += Count(policy.Decide(dual, t), Action::Kind::kSetLocalPriority);
  EXPECT_EQ(yields, 1) << "OpenSM's election decides once the grace is over";
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);
}

// A standby claims (priority 14) between two SM lists: the MASTER's
// first-hand read of it, taken every round, is enough to yield at once.
TEST(PolicyStepTest, AClaimReadFirstHandBetweenListsIsServedAtOnce) {
  FailoverPolicy policy = AdoptedMaster();
  Observation list = LocalMaster(4);
  list.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}, {kPeer, 2, SmState::kStandby, 5}};
  policy.Decide(list, kT0 + Duration(150));  // a list taken as MASTER
  Observation claim = LocalMaster(4);
  claim.standby_reads = {{kPeer, 2, SmState::kStandby, ClaimPriority(policy.config())}};
  const Actions a = policy.Decide(claim, kT0 + Duration(300));
  EXPECT_TRUE(Announced(a, "PREEMPT"));
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);
  const Action* yield = Find(a, Action::Kind::kSetLocalPriority);
  ASSERT_NE(yield, nullptr);
  EXPECT_EQ(yield->priority, 0);
}

// A MASTER yields to a claimer (priority 0); its OpenSM hands over and
// goes STANDBY; the claimer's OpenSM dies a moment later, and the claimer's
// smsupd hands the mastership straight back. The yielding SM is MASTER
// again: it leaves HANDING_OVER at once (and so raises its priority again)
// instead of sitting at priority 0, where any OpenSM restarted beside it
// would win OpenSM's election.
TEST(PolicyStepTest, AYieldHandedBackIsMasterAtOnce) {
  FailoverPolicy policy = AdoptedMaster();
  Observation list = LocalMaster(4);
  list.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}, {kPeer, 2, SmState::kStandby, 5}};
  list.opensm.master_entries = 1;
  policy.Decide(list, kT0 + Duration(150));
  Observation claim = LocalMaster(4);
  claim.opensm.master_entries = 1;
  claim.standby_reads = {{kPeer, 2, SmState::kStandby, ClaimPriority(policy.config())}};
  policy.Decide(claim, kT0 + Duration(300));
  ASSERT_EQ(policy.state(), SupervisorState::kHandingOver);

  // Still MASTER at priority 0 (the yield's sweep runs): not yet.
  Observation yielding = LocalMaster(4);
  yielding.local_sm->priority = 0;
  yielding.opensm.master_entries = 1;
  policy.Decide(yielding, kT0 + Duration(450));
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);

  // Handed back: OpenSM logged entering MASTER once more.
  Observation back = yielding;
  back.opensm.master_entries = 2;
  const Actions a = policy.Decide(back, kT0 + Duration(600));
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  EXPECT_TRUE(Announced(a, "HANDOVER_RETURNED"));
  EXPECT_EQ(policy.counters().at("handover_taken_back"), 1);
}

TEST(PolicyStepTest, AStopWhileWaitingForThePortStartsNothingLater) {
  FailoverPolicy policy = AdoptedMaster();
  policy.Decide(LocalMaster(1), kT0 + Duration(150));
  policy.Decide(Stopped(1), kT0 + Duration(300));
  ASSERT_EQ(policy.state(), SupervisorState::kRecovering);
  Observation stop = Stopped(1);
  stop.command = OperatorCommand{OperatorCommand::Kind::kStop, std::nullopt};
  policy.Decide(stop, kT0 + Duration(450));
  EXPECT_EQ(policy.state(), SupervisorState::kStopped);
  EXPECT_EQ(Count(policy.Decide(Stopped(4), kT0 + Duration(600)), Action::Kind::kRestartOpenSm), 0);
}

// A port that has just come back is Init: no LID, the SA out of reach, no
// MASTER visible anywhere. That is not "no master in the subnet".
TEST(PolicyStepTest, NoMasterIsJudgedOnlyWithThePortActive) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  auto alone = [](int port_state) {
    Observation obs;
    obs.opensm.running = true;
    obs.local_sm = LocalSmInfo{SmState::kStandby, 5, 1};
    obs.local_port = LocalPort{port_state, static_cast<std::uint16_t>(port_state == 4 ? 2 : 0), 0};
    obs.sms = std::vector<SmEntry>{{kLocal, 2, SmState::kStandby, 5}};
    return obs;
  };
  TimePoint t = kT0 + Duration(150);
  for (int i = 0; i < 20; ++i, t += Duration(150))  // 3 s with the port Init
    EXPECT_EQ(Count(policy.Decide(alone(2), t), Action::Kind::kTakeOver), 0) << i;
  // Active: the grace counts from now, then the best standby acts.
  const int grace_polls = static_cast<int>(policy.config().no_master_grace / Duration(150));
  for (int i = 0; i < grace_polls; ++i, t += Duration(150))
    EXPECT_EQ(Count(policy.Decide(alone(4), t), Action::Kind::kTakeOver), 0) << i;
  int takeovers = 0;
  for (int i = 0; i < 14; ++i, t += Duration(150))
    takeovers += Count(policy.Decide(alone(4), t), Action::Kind::kTakeOver);
  EXPECT_GE(takeovers, 1);
}

TEST(PolicyStepTest, AStandbyWhosePortGoesDownChangesNothing) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation obs = StandbyUnder(0, std::nullopt);
  obs.local_port->port_state = 1;
  EXPECT_EQ(Count(policy.Decide(obs, kT0 + Duration(150)), Action::Kind::kSetLocalPriority), 0);
}

// A STANDBY's link flaps: the OpenSM that ran through the outage is
// stopped and a fresh one starts when the port is back, under the master it
// knows. Nothing is left running on what it believed before the outage
// (and a fresh OpenSM sets the port's IsSM bit, which a master's sweep needs
// to find this SM).
TEST(PolicyStepTest, AStandbyWhosePortWasDownStartsAFreshOpenSmWhenItIsBack) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  TimePoint t = kT0 + Duration(150);
  Observation down = StandbyUnder(0, std::nullopt);
  down.local_port->port_state = 1;
  Actions stop = policy.Decide(down, t);
  EXPECT_EQ(Count(stop, Action::Kind::kStopOpenSm), 1);
  EXPECT_EQ(Count(stop, Action::Kind::kTakeOver), 0);
  EXPECT_EQ(Count(policy.Decide(down, t + Duration(150)), Action::Kind::kStopOpenSm), 0);

  Actions exited = policy.Decide(Stopped(1), t + Duration(300));
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 0);
  EXPECT_EQ(policy.state(), SupervisorState::kRecovering);
  for (int i = 1; i <= 20; ++i)  // 3 s with the port Down: nothing starts
    EXPECT_EQ(Count(policy.Decide(Stopped(1), t + Duration(300) + i * Duration(150)),
                    Action::Kind::kRestartOpenSm), 0) << i;

  Observation back = Stopped(2);
  back.master = MasterWatch{kPeer, 1, 15, SmState::kMaster, 0, 100, std::nullopt};
  Actions restarted = policy.Decide(back, t + Duration(4000));
  const Action* restart = Find(restarted, Action::Kind::kRestartOpenSm);
  ASSERT_NE(restart, nullptr);
  EXPECT_EQ(restart->priority, policy.config().standby_priority);
  EXPECT_EQ(Count(policy.Decide(back, t + Duration(4150)), Action::Kind::kRestartOpenSm), 0);
}

// OpenSM saw "SM port is down" in its first sweep as MASTER and went
// DISCOVERING before smsupd read the port Down: the policy follows it to
// DISCOVERING, and that OpenSM, left running, would come back through the
// link as an SM no master's sweep reads (seen on the simulator: the node
// never became STANDBY in its peer's list). It is stopped like a MASTER's.
TEST(PolicyStepTest, AMasterThatWentDiscoveringWithItsPortDownIsStoppedToo) {
  FailoverPolicy policy = AdoptedMaster();
  TimePoint t = kT0 + Duration(150);
  Actions down = policy.Decide(LocalMaster(1, SmState::kDiscovering), t);
  EXPECT_EQ(policy.state(), SupervisorState::kDiscovering);
  EXPECT_EQ(Count(down, Action::Kind::kStopOpenSm), 1);
  Actions exited = policy.Decide(Stopped(1), t + Duration(150));
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 0);
  EXPECT_EQ(Count(exited, Action::Kind::kSendHandover), 0);
  EXPECT_EQ(Count(policy.Decide(Stopped(2), t + Duration(3000)), Action::Kind::kRestartOpenSm), 1);
}

// A link that flaps faster than OpenSM exits: the exit comes with the port
// up again, and OpenSM starts at once.
TEST(PolicyStepTest, AStandbyWhosePortFlappedRestartsWhenItsOpenSmExits) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation down = StandbyUnder(0, std::nullopt);
  down.local_port->port_state = 1;
  EXPECT_EQ(Count(policy.Decide(down, kT0 + Duration(150)), Action::Kind::kStopOpenSm), 1);
  Observation up = StandbyUnder(0, std::nullopt);
  up.local_port->port_state = 2;
  EXPECT_EQ(Count(policy.Decide(up, kT0 + Duration(300)), Action::Kind::kStopOpenSm), 0);
  Observation exited = Stopped(2);
  exited.master = MasterWatch{kPeer, 1, 15, SmState::kMaster, 0, 100, std::nullopt};
  EXPECT_EQ(Count(policy.Decide(exited, kT0 + Duration(450)), Action::Kind::kRestartOpenSm), 1);
}

// A STANDBY handed the mastership: its SM list (read every inventory
// interval) still names the old master MASTER.
FailoverPolicy MasterByAHandover(TimePoint& t) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation obs;
  obs.opensm.running = true;
  obs.local_sm = LocalSmInfo{SmState::kMaster, 5, 1};
  obs.local_port = LocalPort{4, 2, 2};
  t = kT0 + Duration(150);
  policy.Decide(obs, t);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  return policy;
}

Observation ExitedWithThePortActive() {
  Observation obs;
  obs.opensm.running = false;
  obs.opensm.exit_info = "signal 9";
  obs.local_port = LocalPort{4, 2, 2};
  return obs;
}

// Its OpenSM killed within a second of the handover: the old master is
// STANDBY by now, but the list says MASTER. The choice between a HANDOVER
// and a restart in place is made on a fresh list, asked for at once.
TEST(PolicyStepTest, AMastersExitOnAnOldListWaitsForAFreshOneAndHandsOver) {
  TimePoint t;
  FailoverPolicy policy = MasterByAHandover(t);
  t += Duration(600);
  Actions exited = policy.Decide(ExitedWithThePortActive(), t);
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 0) << "restarted in place on an old list";
  EXPECT_EQ(Count(exited, Action::Kind::kRefreshSms), 1);
  EXPECT_EQ(Count(exited, Action::Kind::kSendHandover), 0);
  EXPECT_EQ(policy.state(), SupervisorState::kRecovering);

  Observation fresh = ExitedWithThePortActive();
  fresh.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kStandby, 5}};
  Actions decided = policy.Decide(fresh, t + Duration(300));
  const Action* handover = Find(decided, Action::Kind::kSendHandover);
  ASSERT_NE(handover, nullptr);
  EXPECT_EQ(handover->target_guid, kPeer);
  EXPECT_EQ(Count(decided, Action::Kind::kRestartOpenSm), 0) << "restarts once the new master swept";
}

TEST(PolicyStepTest, AMastersExitRestartsInPlaceWhenTheFreshListHasNoStandby) {
  TimePoint t;
  FailoverPolicy policy = MasterByAHandover(t);
  t += Duration(600);
  policy.Decide(ExitedWithThePortActive(), t);
  Observation fresh = ExitedWithThePortActive();
  fresh.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kNotActive, 5}};
  Actions decided = policy.Decide(fresh, t + Duration(300));
  EXPECT_EQ(Count(decided, Action::Kind::kSendHandover), 0);
  EXPECT_EQ(Count(decided, Action::Kind::kRestartOpenSm), 1);
}

// No fresh list comes (the MAD thread is stuck): the restart at
// exit_list_wait, once.
TEST(PolicyStepTest, AMastersExitWaitsForAFreshListOnlySoLong) {
  TimePoint t;
  FailoverPolicy policy = MasterByAHandover(t);
  t += Duration(600);
  policy.Decide(ExitedWithThePortActive(), t);
  const Duration wait = policy.config().exit_list_wait;
  int restarts = 0;
  int restart_at_ms = -1;
  for (int ms = 150; ms <= 3000; ms += 150) {
    const int n = Count(policy.Decide(ExitedWithThePortActive(), t + Duration(ms)),
                        Action::Kind::kRestartOpenSm);
    if (n > 0 && restart_at_ms < 0) restart_at_ms = ms;
    restarts += n;
  }
  EXPECT_EQ(restarts, 1);
  ExpectFirstStepAfter(restart_at_ms, static_cast<int>(wait.count()));
}

// A master with no other SM listed loses nothing by waiting for a list
// that cannot help: it restarts at once, as before.
TEST(PolicyStepTest, ALoneMastersExitRestartsAtOnce) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation obs = LocalMaster(4);
  obs.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}};
  policy.Decide(obs, kT0);
  ASSERT_EQ(policy.state(), SupervisorState::kMaster);
  const TimePoint later = kT0 + policy.config().command_standby_wait + Duration(150);
  policy.Decide(LocalMaster(4), later);
  Actions exited = policy.Decide(Stopped(4), later + Duration(150));
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 1);
  EXPECT_EQ(Count(exited, Action::Kind::kRefreshSms), 0);
}

// A MASTER at `act_count` in its first sweep (OpenSM logged "Entering
// MASTER state" and no SUBNET UP since), with the peer STANDBY listed.
Observation MasterInItsFirstSweep(std::uint32_t act_count, bool standby_listed = true) {
  Observation obs = MasterWithAStandby();
  obs.opensm.first_sweep_running = true;
  obs.local_sm->act_count = act_count;
  if (!standby_listed) obs.sms = std::vector<SmEntry>{{kLocal, 2, SmState::kMaster, 15}};
  return obs;
}

// The first step at which `kind` is asked, stepping every 150 ms from kT0
// with `observe(ms)`; -1 if never within `limit_ms`.
template <typename Observe>
int FirstStepWith(FailoverPolicy& policy, Action::Kind kind, int limit_ms, Observe observe) {
  for (int ms = 150; ms <= limit_ms; ms += 150)
    if (Count(policy.Decide(observe(ms), kT0 + Duration(ms)), kind) > 0) return ms;
  return -1;
}

// Its first sweep waits for a MAD that never completes: no SUBNET UP, no
// SMPs. At master_sweep_timeout it hands the mastership to the standby at
// once and its OpenSM is killed (as `smctl failover` does).
TEST(PolicyStepTest, AMasterThatNeverFinishesItsFirstSweepHandsOver) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  policy.Decide(MasterInItsFirstSweep(100), kT0);
  ASSERT_EQ(policy.state(), SupervisorState::kMaster);
  const int timeout_ms = static_cast<int>(policy.config().master_sweep_timeout.count());
  const int at = FirstStepWith(policy, Action::Kind::kHandOverThenKill, timeout_ms + 3000,
                               [](int) { return MasterInItsFirstSweep(100); });
  ExpectFirstStepAfter(at, timeout_ms);
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);
  EXPECT_EQ(policy.counters().at("master_not_sweeping"), 1u);
}

// A large fabric's first sweep is slow but sends thousands of SMPs: never
// taken for a hang while it does; acted on once it has been quiet for 2 s.
TEST(PolicyStepTest, AMastersSlowFirstSweepIsNotAHangWhileItSends) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  policy.Decide(MasterInItsFirstSweep(0), kT0);
  const int timeout_ms = static_cast<int>(policy.config().master_sweep_timeout.count());
  const int busy_until_ms = timeout_ms + 4950;  // a step
  const int at = FirstStepWith(policy, Action::Kind::kHandOverThenKill, busy_until_ms + 5000, [&](int ms) {
    return MasterInItsFirstSweep(static_cast<std::uint32_t>(std::min(ms, busy_until_ms)) * 2);
  });
  ExpectFirstStepAfter(at, busy_until_ms + 2000);
}

TEST(PolicyStepTest, AMasterThatFinishedItsFirstSweepIsNeverTakenForAHang) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation done = MasterInItsFirstSweep(100);
  done.opensm.first_sweep_running = false;  // SUBNET UP logged
  policy.Decide(done, kT0);
  EXPECT_EQ(FirstStepWith(policy, Action::Kind::kHandOverThenKill, 120000, [&](int) { return done; }), -1);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
}

// Zero turns the rule off (the daemon's choice when OpenSM's options hide
// the SUBNET UP line it waits for).
TEST(PolicyStepTest, AMasterSweepTimeoutOfZeroIsOff) {
  PolicyConfig config = Config(Role::kMaster);
  config.master_sweep_timeout = Duration(0);
  FailoverPolicy policy(config, kT0);
  policy.Decide(MasterInItsFirstSweep(100), kT0);
  EXPECT_EQ(FirstStepWith(policy, Action::Kind::kHandOverThenKill, 120000,
                          [](int) { return MasterInItsFirstSweep(100); }), -1);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
}

// No STANDBY: the OpenSM is stopped, and its exit starts a fresh one.
TEST(PolicyStepTest, AHungMasterWithoutAStandbyRestartsItsOpenSm) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  policy.Decide(MasterInItsFirstSweep(100, false), kT0);
  const int timeout_ms = static_cast<int>(policy.config().master_sweep_timeout.count());
  const int at = FirstStepWith(policy, Action::Kind::kStopOpenSm, timeout_ms + 3000,
                               [](int) { return MasterInItsFirstSweep(100, false); });
  ExpectFirstStepAfter(at, timeout_ms);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  EXPECT_EQ(Count(policy.Decide(MasterInItsFirstSweep(100, false), kT0 + Duration(at + 150)),
                  Action::Kind::kStopOpenSm), 0) << "asked once";
  Actions exited = policy.Decide(Stopped(4), kT0 + Duration(at + 300));
  EXPECT_EQ(Count(exited, Action::Kind::kRestartOpenSm), 1);
}

// The HANDOVER of a hung master is not answered: the yield would need a
// sweep from an OpenSM that finishes none, so it is stopped instead.
TEST(PolicyStepTest, AHungMastersUnansweredHandoverStopsItsOpenSm) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  policy.Decide(MasterInItsFirstSweep(100), kT0);
  const int timeout_ms = static_cast<int>(policy.config().master_sweep_timeout.count());
  const int at = FirstStepWith(policy, Action::Kind::kHandOverThenKill, timeout_ms + 3000,
                               [](int) { return MasterInItsFirstSweep(100); });
  ASSERT_GT(at, 0);
  Observation failed = MasterInItsFirstSweep(100);
  failed.direct_handover_failed = true;
  Actions after = policy.Decide(failed, kT0 + Duration(at + 150));
  EXPECT_EQ(Count(after, Action::Kind::kStopOpenSm), 1);
  EXPECT_EQ(Count(after, Action::Kind::kSetLocalPriority), 0);
}

TEST(PolicyStepTest, NoTakeOverWhenAnotherSmIsAlreadyMaster) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  constexpr Guid kOther = 0x0002c90300000003;
  for (int misses = 1; misses <= 10; ++misses) {
    Observation obs = StandbyUnder(misses, false);
    obs.sms = std::vector<SmEntry>{{kOther, 3, SmState::kMaster, 5},
                                   {kLocal, 2, SmState::kStandby, 5}};
    EXPECT_EQ(Count(policy.Decide(obs, kT0 + misses * Duration(150)), Action::Kind::kTakeOver), 0);
  }
  EXPECT_EQ(policy.state(), SupervisorState::kStandby);
}

// After a handover the old master is STANDBY under a new master at 5 that
// its SM list already shows; its own port still names itself until the new
// master's first sweep reaches it. Its priority moves (a SIGHUP: a STANDBY
// OpenSM then walks the subnet, beside that sweep) only once the port names
// the new master.
TEST(PolicyStepTest, AStandbyMovesItsPriorityOnlyOnceItsPortNamesTheMaster) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation obs = StandbyUnder(0, std::nullopt);
  obs.master.reset();
  obs.local_port = LocalPort{4, 2, 2};  // SM LID: its own
  obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 5}, {kLocal, 2, SmState::kStandby, 5}};
  EXPECT_EQ(Count(policy.Decide(obs, kT0 + Duration(150)), Action::Kind::kSetLocalPriority), 0);
  obs.local_port = LocalPort{4, 2, 1};
  obs.master = MasterWatch{kPeer, 1, 5, SmState::kMaster, 0, 100, std::nullopt};
  const Actions swept = policy.Decide(obs, kT0 + Duration(300));
  const Action* set = Find(swept, Action::Kind::kSetLocalPriority);
  ASSERT_NE(set, nullptr) << "the standby never moves below the new master";
  EXPECT_EQ(set->priority, 4);
}

// What a standby handed the mastership observes: its OpenSM MASTER at 5, in
// its first heavy sweep, with `peer` (the old master) beside it on the list.
Observation NewMasterInItsFirstSweep(SmEntry peer) {
  Observation obs;
  obs.opensm.running = true;
  obs.opensm.first_sweep_running = true;
  obs.local_sm = LocalSmInfo{SmState::kMaster, 5, 1};
  obs.local_port = LocalPort{4, 2, 2};
  obs.sms = std::vector<SmEntry>{peer, {kLocal, 2, SmState::kMaster, 5}};
  return obs;
}

// A standby handed the mastership: its OpenSM is MASTER at 5 and in its
// first heavy sweep. The raise to 15 (a SIGHUP, which would make OpenSM
// start that sweep's discovery over) waits for the sweep's SUBNET UP, or
// for first_sweep_hold if that line never shows.
TEST(PolicyStepTest, ANewMasterRaisesItsPriorityOnlyAfterItsFirstSweep) {
  for (bool subnet_up_logged : {true, false}) {
    SCOPED_TRACE(subnet_up_logged ? "SUBNET UP logged" : "no SUBNET UP line");
    FailoverPolicy policy = AdoptedStandby(Role::kStandby);
    Observation obs = NewMasterInItsFirstSweep({kPeer, 1, SmState::kStandby, 0});
    const TimePoint handed = kT0 + Duration(1000);
    int raised_at_ms = -1;
    for (int ms = 0; ms <= 25000 && raised_at_ms < 0; ms += 150) {
      if (subnet_up_logged && ms >= 2400) obs.opensm.first_sweep_running = false;
      const Actions step = policy.Decide(obs, handed + Duration(ms));
      const Action* set = Find(step, Action::Kind::kSetLocalPriority);
      if (set && set->priority == 15) raised_at_ms = ms;
    }
    EXPECT_EQ(policy.state(), SupervisorState::kMaster);
    if (subnet_up_logged) {
      EXPECT_EQ(raised_at_ms, 2400) << "raised during the first sweep, or not right after it";
    } else {
      ExpectFirstStepAfter(raised_at_ms, 20000);
    }
  }
}

// A standby handed the mastership by a MASTER whose OpenSM is dead (its SM
// list shows no STANDBY): the OpenSM that handed over starts again as its
// first sweep ends. The raise to 15 is written to opensm.conf with no
// SIGHUP, so that no heavy sweep runs beside that OpenSM's discovery; the
// sweep its trap 144 starts applies it. Only if no sweep applied it by
// max(3 s, 1.5 x the first sweep) is it sent with a SIGHUP.
TEST(PolicyStepTest, ANewMasterWithNoStandbyRaisesItselfAtItsNextSweepNotBySignal) {
  for (bool applied_by_a_sweep : {true, false}) {
    SCOPED_TRACE(applied_by_a_sweep ? "a trap's sweep applies it at 4 s" : "no sweep of its own");
    FailoverPolicy policy = AdoptedStandby(Role::kStandby);
    Observation obs = NewMasterInItsFirstSweep({kPeer, 1, SmState::kNotActive, 15});
    const TimePoint handed = kT0 + Duration(1000);
    int written_at_ms = -1;
    int signalled_at_ms = -1;
    for (int ms = 0; ms <= 12000; ms += 150) {
      if (ms >= 2400) obs.opensm.first_sweep_running = false;
      if (applied_by_a_sweep && ms >= 4000) obs.local_sm->priority = 15;
      Observation step_obs = obs;
      if (ms == 4500) step_obs.local_sm.reset();  // one local SMInfo read lost
      const Actions step = policy.Decide(step_obs, handed + Duration(ms));
      if (written_at_ms < 0 && policy.commanded_priority() == 15) {
        written_at_ms = ms;
        EXPECT_TRUE(policy.priority_deferred());
        EXPECT_TRUE(Announced(step, "PRIORITY_RAISE_WRITTEN"));
      }
      if (const Action* set = Find(step, Action::Kind::kSetLocalPriority)) {
        EXPECT_EQ(set->priority, 15);
        if (signalled_at_ms < 0) signalled_at_ms = ms;
      }
    }
    EXPECT_EQ(policy.state(), SupervisorState::kMaster);
    EXPECT_EQ(written_at_ms, 2400) << "written during the first sweep, or not right after it";
    EXPECT_FALSE(policy.priority_deferred());
    if (applied_by_a_sweep) {
      EXPECT_EQ(signalled_at_ms, -1) << "a SIGHUP although a sweep had applied the raise";
    } else {
      ExpectFirstStepAfter(signalled_at_ms, 2400 + 2400 * 3 / 2);
    }
  }
}

// A raise that does not follow a first sweep as master (here: no SM list
// confirmed the mastership until long after it) follows no handover: no
// OpenSM is starting beside it, and it is a SIGHUP at once.
TEST(PolicyStepTest, ARaiseLongAfterTheFirstSweepIsSignalledAtOnce) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  Observation obs = NewMasterInItsFirstSweep({kPeer, 1, SmState::kNotActive, 15});
  const auto list = obs.sms;
  const TimePoint handed = kT0 + Duration(1000);
  int raised_at_ms = -1;
  for (int ms = 0; ms <= 30000 && raised_at_ms < 0; ms += 150) {
    if (ms >= 2400) obs.opensm.first_sweep_running = false;
    Observation step_obs = obs;
    step_obs.sms.reset();
    if (ms >= 25000) step_obs.sms = list;  // the first SM list since the handover
    const Actions step = policy.Decide(step_obs, handed + Duration(ms));
    if (const Action* set = Find(step, Action::Kind::kSetLocalPriority); set && set->priority == 15)
      raised_at_ms = ms;
  }
  ExpectFirstStepAfter(raised_at_ms, 25000);
  EXPECT_FALSE(policy.priority_deferred());
}

// A MASTER with a STANDBY whose OpenSM died at `exited` (signal 9): it has
// sent the standby a HANDOVER. `obs` is left as after the exit, with no SM list.
FailoverPolicy MasterWhoseOpenSmDied(Observation& obs, TimePoint exited) {
  obs = MasterWithAStandby();
  FailoverPolicy policy = AdoptedMasterOf(obs);
  obs.opensm = LocalOpenSm{false, "signal 9"};
  obs.local_sm.reset();
  obs.sms.reset();
  EXPECT_NE(Find(policy.Decide(obs, exited), Action::Kind::kSendHandover), nullptr);
  return policy;
}

// A MASTER whose OpenSM died hands over to the standby and restarts its
// own OpenSM once the new master's first sweep reached this node (its
// port's SM LID names it) and is over (its ActCount has not risen at a
// sweep's rate for 1.2 s). The wait ends at takeover_timeout if the new
// master never shows MASTER; while an SM list taken after the exit shows it
// MASTER, the wait goes on up to first_sweep_hold (large fabrics sweep
// longer than takeover_timeout).
TEST(PolicyStepTest, ADeadMastersRestartWaitsForTheNewMastersSweepWhileItIsMaster) {
  enum class NewMaster { kSweepsThisNodeAt6s, kMasterButNeverSweepsThisNode, kNeverMaster };
  for (NewMaster variant : {NewMaster::kSweepsThisNodeAt6s, NewMaster::kMasterButNeverSweepsThisNode,
                            NewMaster::kNeverMaster}) {
    SCOPED_TRACE(static_cast<int>(variant));
    Observation obs;
    const TimePoint exited = kT0 + Duration(1000);
    FailoverPolicy policy = MasterWhoseOpenSmDied(obs, exited);
    int restarted_at_ms = -1;
    for (int ms = 150; ms <= 25000 && restarted_at_ms < 0; ms += 150) {
      const SmState peer = variant == NewMaster::kNeverMaster ? SmState::kStandby : SmState::kMaster;
      obs.sms = std::vector<SmEntry>{{kPeer, 1, peer, 5}};
      if (variant == NewMaster::kSweepsThisNodeAt6s && ms >= 6000) {
        obs.local_port = LocalPort{4, 2, 1};
        // Its sweep sends 1,000 SMPs/s until 9 s, then it only answers polls.
        const auto act = static_cast<std::uint32_t>(ms < 9000 ? ms : 9000 + (ms - 9000) / 50);
        obs.master = MasterWatch{kPeer, 1, 5, SmState::kMaster, 0, act, std::nullopt};
      }
      if (Find(policy.Decide(obs, exited + Duration(ms)), Action::Kind::kRestartOpenSm)) restarted_at_ms = ms;
    }
    switch (variant) {
      case NewMaster::kSweepsThisNodeAt6s:
        ExpectFirstStepAfter(restarted_at_ms, 9000 + 1200);
        break;
      case NewMaster::kMasterButNeverSweepsThisNode: ExpectFirstStepAfter(restarted_at_ms, 20000); break;
      case NewMaster::kNeverMaster: ExpectFirstStepAfter(restarted_at_ms, 3000); break;
    }
  }
}

// The new master's SA ignores every request until its first sweep as
// master is over: the restart follows its first answer, not 1.2 s of a quiet
// ActCount -- once a reading shows the ActCount no longer rising at a
// sweep's rate: a first sweep that ends in errors lets the SA answer and
// sweeps again at once. The daemon asks only while the restart waits.
TEST(PolicyStepTest, ADeadMastersRestartFollowsTheNewMastersSaAnswering) {
  for (bool sweeps_again : {false, true}) {
    SCOPED_TRACE(sweeps_again ? "its first sweep ends in errors at 4 s and it sweeps again to 9 s"
                              : "its first sweep ends at 4 s");
    Observation obs;
    const TimePoint exited = kT0 + Duration(1000);
    FailoverPolicy policy = MasterWhoseOpenSmDied(obs, exited);
    EXPECT_TRUE(policy.waits_for_new_master_sweep());
    obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 5}};
    obs.local_port = LocalPort{4, 2, 1};  // its sweep has reached this node
    const int sweep_end_ms = sweeps_again ? 9000 : 4050;
    int restarted_at_ms = -1;
    for (int ms = 3000; ms <= 25000 && restarted_at_ms < 0; ms += 150) {
      // 1,000 SMPs/s while it sweeps, then only answers to polls.
      const auto act = static_cast<std::uint32_t>(
          ms <= sweep_end_ms ? ms : sweep_end_ms + (ms - sweep_end_ms) / 150);
      obs.master = MasterWatch{kPeer, 1, 5, SmState::kMaster, 0, act, std::nullopt};
      obs.master_sa_answers = ms >= 4050;
      if (Find(policy.Decide(obs, exited + Duration(ms)), Action::Kind::kRestartOpenSm))
        restarted_at_ms = ms;
    }
    // The first quiet reading after the SA answered.
    ExpectFirstStepAfter(restarted_at_ms, sweep_end_ms + 1);
    EXPECT_FALSE(policy.waits_for_new_master_sweep());
  }
}

// The new master's first sweep pauses while OpenSM waits out MAD timeouts
// (at most 800 ms with OpenSM's defaults): a lull shorter than 1.2 s does
// not end the wait. A new master that stops answering is not sweeping: the
// restart follows within 1.2 s of its last answer. It never runs past
// first_sweep_hold.
TEST(PolicyStepTest, ADeadMastersRestartOutwaitsLullsInTheNewMastersSweep) {
  enum class Sweep { kLullAt7s, kStopsAnsweringAt8s, kNeverEnds };
  for (Sweep sweep : {Sweep::kLullAt7s, Sweep::kStopsAnsweringAt8s, Sweep::kNeverEnds}) {
    SCOPED_TRACE(static_cast<int>(sweep));
    Observation obs;
    const TimePoint exited = kT0 + Duration(1000);
    FailoverPolicy policy = MasterWhoseOpenSmDied(obs, exited);
    obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 5}};
    obs.local_port = LocalPort{4, 2, 1};
    std::uint32_t act = 0;
    int restarted_at_ms = -1;
    for (int ms = 3000; ms <= 25000 && restarted_at_ms < 0; ms += 150) {
      int misses = 0;
      switch (sweep) {
        // 1,000 SMPs/s, except 1.05 s without any after 6.9 s; over after 9.9 s.
        case Sweep::kLullAt7s:
          act += (ms > 6900 && ms <= 7950) || ms > 9900 ? 0 : 150;
          break;
        case Sweep::kStopsAnsweringAt8s: act += 150, misses = ms > 8000 ? ms / 150 - 53 : 0; break;
        case Sweep::kNeverEnds: act += 150; break;
      }
      obs.master = MasterWatch{kPeer, 1, 5, SmState::kMaster, misses, act, std::nullopt};
      if (Find(policy.Decide(obs, exited + Duration(ms)), Action::Kind::kRestartOpenSm)) restarted_at_ms = ms;
    }
    switch (sweep) {
      case Sweep::kLullAt7s:
        ExpectFirstStepAfter(restarted_at_ms, 9900 + 1200);
        break;
      case Sweep::kStopsAnsweringAt8s:
        // Once it counts as lost (no SMInfo, not on the SM list), at once.
        EXPECT_GT(restarted_at_ms, 7950);
        EXPECT_LE(restarted_at_ms, 7950 + 1200);
        break;
      case Sweep::kNeverEnds: ExpectFirstStepAfter(restarted_at_ms, 20000); break;
    }
  }
}

// smctl failover on the MASTER whose own HANDOVER was not answered:
// priority 0 + SIGHUP, and OpenSM hands over at the end of the discovery of
// the sweep that starts. On a large fabric
// that discovery outlasts handover_timeout: while the local OpenSM is still
// MASTER and its ActCount rises faster than polls explain, the deadline
// moves on (handover_timeout after the last such rise), up to
// handover_sweep_limit.
TEST(PolicyStepTest, AYieldingMasterWaitsWhileItsOpenSmStillSweeps) {
  enum class Sweep { kEndsAt8s, kNeverEnds, kNone };
  for (Sweep sweep : {Sweep::kEndsAt8s, Sweep::kNeverEnds, Sweep::kNone}) {
    SCOPED_TRACE(static_cast<int>(sweep));
    Observation obs = MasterWithAStandby();
    FailoverPolicy policy = AdoptedMasterOf(obs);
    obs.command = OperatorCommand{};
    const TimePoint yielded = kT0 + Duration(1000);
    policy.Decide(obs, yielded);
    ASSERT_EQ(policy.state(), SupervisorState::kHandingOver);
    obs.command.reset();
    // Its own HANDOVER was not answered: OpenSM hands over by itself.
    obs.direct_handover_failed = true;
    ASSERT_NE(Find(policy.Decide(obs, yielded), Action::Kind::kSetLocalPriority), nullptr);
    obs.direct_handover_failed = false;
    obs.local_sm->priority = 0;
    int gave_up_at_ms = -1;
    for (int ms = 150; ms <= 70000 && gave_up_at_ms < 0; ms += 150) {
      const bool sweeping = sweep == Sweep::kNeverEnds || (sweep == Sweep::kEndsAt8s && ms <= 8000);
      obs.local_sm->act_count += sweeping ? 400 : 2;  // a sweep's SMPs, or answers to polls
      policy.Decide(obs, yielded + Duration(ms));
      if (policy.state() != SupervisorState::kHandingOver) gave_up_at_ms = ms;
    }
    EXPECT_EQ(policy.state(), SupervisorState::kMaster) << "the failed handover restores the master";
    switch (sweep) {
      case Sweep::kEndsAt8s: ExpectFirstStepAfter(gave_up_at_ms, 13000); break;
      case Sweep::kNeverEnds: ExpectFirstStepAfter(gave_up_at_ms, 60000); break;
      case Sweep::kNone: ExpectFirstStepAfter(gave_up_at_ms, 5000); break;
    }
  }
}

TEST(PolicyStepTest, AnswerResetsTheCount) {
  FailoverPolicy policy = AdoptedStandby(Role::kStandby);
  policy.Decide(StandbyUnder(2, false), kT0 + Duration(150));
  policy.Decide(StandbyUnder(0, std::nullopt), kT0 + Duration(300));  // late, answered
  const Actions a = policy.Decide(StandbyUnder(1, false), kT0 + Duration(450));
  EXPECT_EQ(Count(a, Action::Kind::kTakeOver), 0);
  EXPECT_EQ(policy.state(), SupervisorState::kStandby);
}

// Two MASTERs whose SM_Keys differ ignore each other (ERR 2F18): a yield
// cannot end that, and yielding again after every handover timeout only
// moves priorities back and forth. The policy reports it and leaves the
// fix (the keys) to the operator; without the mismatch it yields.
TEST(PolicyStepTest, ADualMasterOfMismatchedSmKeysIsReportedNotFought) {
  for (bool mismatch : {true, false}) {
    SCOPED_TRACE(mismatch ? "SM_Key mismatch" : "same keys");
    FailoverPolicy policy(Config(Role::kStandby), kT0);
    Observation obs;
    obs.opensm.running = true;
    obs.local_sm = LocalSmInfo{SmState::kMaster, 5, 1};
    obs.local_port = LocalPort{4, 2, 2};
    obs.sm_key_mismatch = mismatch;
    obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 15}, {kLocal, 2, SmState::kMaster, 5}};
    int priority_changes = 0, handovers = 0;
    bool dual_master_raised = false;
    for (int ms = 0; ms <= 30000; ms += 150) {
      for (const Action& a : policy.Decide(obs, kT0 + Duration(ms))) {
        priority_changes += a.kind == Action::Kind::kSetLocalPriority;
        handovers += a.kind == Action::Kind::kSendHandover;
        dual_master_raised |= a.kind == Action::Kind::kRaiseProblem && a.id == kProblemDualMaster;
      }
    }
    EXPECT_TRUE(dual_master_raised);
    if (mismatch) {
      EXPECT_EQ(priority_changes, 0);
      EXPECT_EQ(handovers, 0);
      EXPECT_TRUE(policy.problems().count(kProblemSmKeyMismatch));
    } else {
      EXPECT_GT(priority_changes, 0) << "a losing MASTER yields";
    }
  }
}

// The winner's smsupd kicks the losing MASTER its port names with a
// HANDOVER, but not while that loser sends at a sweep's rate: it hands over
// by itself at the end of that sweep's discovery, and a kick arriving just
// after would make it MASTER again. Once it only answers polls, the kick
// comes within dual_master_grace, and again at most every grace.
TEST(PolicyStepTest, ADualMastersLoserIsKickedOnlyOnceItStopsSweeping) {
  FailoverPolicy policy(Config(Role::kMaster), kT0);
  Observation obs;
  obs.opensm.running = true;
  obs.local_sm = LocalSmInfo{SmState::kMaster, 15, 1};
  obs.local_port = LocalPort{4, 2, 1};  // the loser's sweep named it here
  obs.sms =
      std::vector<SmEntry>{{kLocal, 2, SmState::kMaster, 15}, {kPeer, 1, SmState::kMaster, 0}};
  std::vector<int> kicks;
  for (int ms = 0; ms <= 9000; ms += 150) {
    // 1,000 SMPs/s until 5 s, then only answers to polls.
    const auto act = static_cast<std::uint32_t>(ms <= 5000 ? ms : 5000 + (ms - 5000) / 150);
    obs.master = MasterWatch{kPeer, 1, 0, SmState::kMaster, 0, act, std::nullopt};
    for (const Action& a : policy.Decide(obs, kT0 + Duration(ms)))
      if (a.kind == Action::Kind::kSendHandover) {
        EXPECT_EQ(a.target_guid, kPeer);
        kicks.push_back(ms);
      }
  }
  ASSERT_FALSE(kicks.empty()) << "an idle losing MASTER is never kicked";
  // The reading at 5.1 s still shows the sweep's last SMPs.
  ExpectFirstStepAfter(kicks.front(), 5100 + 500);
  for (std::size_t i = 1; i < kicks.size(); ++i) EXPECT_GE(kicks[i] - kicks[i - 1], 500);
}

// The peer's OpenSM has just restarted: the inventory still lists it
// DISCOVERING. A restart command on the MASTER waits for it to be STANDBY
// (asking for fresh lists meanwhile) instead of refusing at once; it is
// refused only once command_standby_wait has passed with no standby.
Observation MasterWithPeerIn(SmState peer) {
  Observation obs = LocalMaster(4);
  obs.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}, {kPeer, 2, peer, 5}};
  return obs;
}

bool Replied(const Actions& actions, bool ok) {
  for (const Action& a : actions)
    if (a.kind == Action::Kind::kReplyToOperator && a.ok == ok) return true;
  return false;
}

TEST(PolicyStepTest, ARestartWaitsForAStandbyThatIsComingUp) {
  FailoverPolicy policy = AdoptedMaster();
  TimePoint t = kT0 + Duration(300);
  Observation obs = MasterWithPeerIn(SmState::kDiscovering);
  obs.command = OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt};
  Actions first = policy.Decide(obs, t);
  EXPECT_FALSE(Replied(first, false)) << "refused while the peer was coming up";
  EXPECT_GE(Count(first, Action::Kind::kRefreshSms), 1);
  Actions later = policy.Decide(MasterWithPeerIn(SmState::kDiscovering), t + Duration(150));
  EXPECT_FALSE(Replied(later, false));
  // The peer is STANDBY: the MASTER hands over to it first (priority 0).
  Actions standby = policy.Decide(MasterWithPeerIn(SmState::kStandby), t + Duration(300));
  EXPECT_FALSE(Replied(standby, false));
  const Action* yield = Find(standby, Action::Kind::kSetLocalPriority);
  ASSERT_NE(yield, nullptr);
  EXPECT_EQ(yield->priority, 0);
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);
}

TEST(PolicyStepTest, ARestartWithNoStandbyComingUpIsRefusedAfterTheWait) {
  FailoverPolicy policy = AdoptedMaster();
  TimePoint t = kT0 + Duration(300);
  Observation obs = MasterWithPeerIn(SmState::kDiscovering);
  obs.command = OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt};
  policy.Decide(obs, t);
  Actions refused;
  for (int i = 1; i <= 30 && !Replied(refused, false); ++i)
    refused = policy.Decide(MasterWithPeerIn(SmState::kDiscovering), t + i * Duration(150));
  EXPECT_TRUE(Replied(refused, false)) << "never refused";
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  // Without any other SM seen for the wait, the refusal is at once.
  FailoverPolicy lone = AdoptedMaster();
  Observation alone = LocalMaster(4);
  alone.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}};
  lone.Decide(alone, t);
  alone.command = OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt};
  EXPECT_TRUE(Replied(lone.Decide(alone, t + Duration(3000)), false));
}

// The peer restarted a moment ago and is not listed at all yet: the command
// waits for it as for a DISCOVERING one.
TEST(PolicyStepTest, ARestartWaitsForAPeerJustGoneFromTheList) {
  FailoverPolicy policy = AdoptedMaster();  // the peer STANDBY listed at kT0
  TimePoint t = kT0 + Duration(500);
  Observation gone = LocalMaster(4);
  gone.sms = std::vector<SmEntry>{{kLocal, 1, SmState::kMaster, 15}};
  gone.command = OperatorCommand{OperatorCommand::Kind::kRestart, std::nullopt};
  EXPECT_FALSE(Replied(policy.Decide(gone, t), false)) << "refused while the peer was restarting";
  const Actions back = policy.Decide(MasterWithPeerIn(SmState::kStandby), t + Duration(150));
  const Action* yield = Find(back, Action::Kind::kSetLocalPriority);
  ASSERT_NE(yield, nullptr);
  EXPECT_EQ(yield->priority, 0);
}

// smctl failover on the MASTER: smsupd's own HANDOVER to the standby, and
// the local OpenSM killed once it is answered (one sweep, the new master's,
// instead of two). Nothing is restarted and no second HANDOVER is sent
// while the new master's sweep runs. Once it reaches this node the command
// is answered; OpenSM starts again as a standby once that sweep is over
// (1.2 s without SMPs at a sweep's rate). A new master that never shows:
// OpenSM starts again after takeover_timeout, and the answer says the
// failover did not work.
TEST(PolicyStepTest, AnOperatorFailoverHandsOverThenKillsOpenSm) {
  for (bool shows : {true, false}) {
    SCOPED_TRACE(shows ? "the new master sweeps this node at 1.5 s, until 2.1 s" : "no new master shows");
    Observation obs = MasterWithAStandby();
    FailoverPolicy policy = AdoptedMasterOf(obs);
    obs.command = OperatorCommand{};
    const TimePoint asked = kT0 + Duration(1000);
    Actions a = policy.Decide(obs, asked);
    const Action* direct = Find(a, Action::Kind::kHandOverThenKill);
    ASSERT_NE(direct, nullptr);
    EXPECT_EQ(direct->target_guid, kPeer);
    EXPECT_EQ(direct->target_lid, 1);
    EXPECT_EQ(Count(a, Action::Kind::kSetLocalPriority), 0) << "a yield costs the old master's sweep";
    EXPECT_EQ(Count(a, Action::Kind::kReplyToOperator), 0);

    obs.command.reset();
    obs.opensm.running = false;
    obs.opensm.exit_info = "signal 9";
    obs.local_sm.reset();
    obs.sms.reset();
    int restarted_at_ms = -1;
    int answered_at_ms = -1;
    std::optional<bool> answered;
    for (int ms = 150; ms <= 6000 && restarted_at_ms < 0; ms += 150) {
      if (shows && ms >= 1500) {
        obs.local_port = LocalPort{4, 2, 1};
        const auto act = static_cast<std::uint32_t>(ms <= 2100 ? ms : 2100 + (ms - 2100) / 50);
        obs.master = MasterWatch{kPeer, 1, 5, SmState::kMaster, 0, act, std::nullopt};
      }
      a = policy.Decide(obs, asked + Duration(ms));
      EXPECT_EQ(Count(a, Action::Kind::kSendHandover), 0) << "a second HANDOVER restarts the new master's sweep";
      for (const Action& reply : a)
        if (reply.kind == Action::Kind::kReplyToOperator) answered = reply.ok, answered_at_ms = ms;
      if (const Action* restart = Find(a, Action::Kind::kRestartOpenSm)) {
        restarted_at_ms = ms;
        if (shows) EXPECT_LT(restart->priority, 5) << "a standby, below the new master (still at 5)";
        else EXPECT_EQ(restart->priority, 15) << "no new master: the master again";
      }
    }
    EXPECT_EQ(answered, shows);
    if (shows) {
      EXPECT_EQ(answered_at_ms, 1500) << "the handover is done once the new master shows";
      ExpectFirstStepAfter(restarted_at_ms, 2100 + 1200);
    } else {
      ExpectFirstStepAfter(restarted_at_ms, 3000);
      EXPECT_EQ(answered_at_ms, restarted_at_ms);
    }
  }
}

// The new master answers as MASTER (on every fresh SM list) but its first
// sweep never reaches this node: it does not manage the fabric. The
// operator's `failover --wait` is told so when the local OpenSM starts
// again (first_sweep_hold), never that the handover was done.
TEST(PolicyStepTest, AnOperatorFailoverToAMasterThatNeverSweepsFails) {
  Observation obs = MasterWithAStandby();
  FailoverPolicy policy = AdoptedMasterOf(obs);
  obs.command = OperatorCommand{};
  const TimePoint asked = kT0 + Duration(1000);
  ASSERT_NE(Find(policy.Decide(obs, asked), Action::Kind::kHandOverThenKill), nullptr);
  obs.command.reset();
  obs.opensm.running = false;
  obs.opensm.exit_info = "signal 9";
  obs.local_sm.reset();
  std::optional<bool> answered;
  int answered_at_ms = -1;
  int restarted_at_ms = -1;
  for (int ms = 150; ms <= 30000 && restarted_at_ms < 0; ms += 150) {
    // Its SMInfo says MASTER (read directly: no SA); the port still names
    // the old master, whose SM no longer answers.
    obs.sms = std::vector<SmEntry>{{kPeer, 1, SmState::kMaster, 5}};
    Actions a = policy.Decide(obs, asked + Duration(ms));
    for (const Action& reply : a)
      if (reply.kind == Action::Kind::kReplyToOperator) answered = reply.ok, answered_at_ms = ms;
    if (Find(a, Action::Kind::kRestartOpenSm)) restarted_at_ms = ms;
  }
  ASSERT_TRUE(answered.has_value());
  EXPECT_FALSE(*answered) << "a master that never swept this node was reported as done";
  // Counted from the exit, seen in the first step.
  ExpectFirstStepAfter(restarted_at_ms, 150 + static_cast<int>(policy.config().first_sweep_hold.count()));
  EXPECT_EQ(answered_at_ms, restarted_at_ms);
}

// The HANDOVER of an operator failover went unanswered (or the target did
// not read MASTER after it): nothing was killed, and OpenSM hands over by
// itself (priority 0), with the handover deadline counted from then.
TEST(PolicyStepTest, AnOperatorFailoverYieldsWhenItsHandoverIsNotAnswered) {
  Observation obs = MasterWithAStandby();
  FailoverPolicy policy = AdoptedMasterOf(obs);
  obs.command = OperatorCommand{};
  const TimePoint asked = kT0 + Duration(1000);
  ASSERT_NE(Find(policy.Decide(obs, asked), Action::Kind::kHandOverThenKill), nullptr);
  obs.command.reset();
  obs.direct_handover_failed = true;
  const Actions a = policy.Decide(obs, asked + Duration(300));
  const Action* yield = Find(a, Action::Kind::kSetLocalPriority);
  ASSERT_NE(yield, nullptr);
  EXPECT_EQ(yield->priority, 0);
  EXPECT_EQ(policy.state(), SupervisorState::kHandingOver);
  obs.direct_handover_failed = false;
  int failed_at_ms = -1;
  for (int ms = 450; ms <= 8000 && failed_at_ms < 0; ms += 150)
    if (Replied(policy.Decide(obs, asked + Duration(ms)), false)) failed_at_ms = ms;
  ExpectFirstStepAfter(failed_at_ms, 300 + 5000);
  EXPECT_EQ(policy.state(), SupervisorState::kMaster);
}

// A failover is decided on the round after it arrives. Run on a STANDBY that
// has claimed mastership by itself in between (preempt), it must not hand
// mastership straight back; run on a MASTER that has handed over in between,
// it must not claim mastership back.
TEST(PolicyStepTest, AFailoverDecidedAfterTheStateChangedDoesWhatWasAsked) {
  {
    SCOPED_TRACE("run on a STANDBY, decided as MASTER");
    Observation obs = MasterWithAStandby();
    FailoverPolicy policy = AdoptedMasterOf(obs);
    obs.command = OperatorCommand{};
    obs.command->issued_on = OperatorCommand::IssuedOn::kStandby;
    const Actions a = policy.Decide(obs, kT0 + Duration(1000));
    EXPECT_EQ(Find(a, Action::Kind::kHandOverThenKill), nullptr);
    EXPECT_EQ(Count(a, Action::Kind::kSetLocalPriority), 0);
    EXPECT_TRUE(Replied(a, true));
    EXPECT_EQ(policy.state(), SupervisorState::kMaster);
  }
  {
    SCOPED_TRACE("run on the MASTER, decided as STANDBY");
    FailoverPolicy policy = AdoptedStandby(Role::kMaster);
    Observation obs = StandbyUnder(0, std::nullopt);
    obs.command = OperatorCommand{};
    obs.command->issued_on = OperatorCommand::IssuedOn::kMaster;
    const Actions a = policy.Decide(obs, kT0 + Duration(1000));
    EXPECT_EQ(Count(a, Action::Kind::kSetLocalPriority), 0) << "no claim";
    EXPECT_TRUE(Replied(a, true));
    EXPECT_EQ(policy.state(), SupervisorState::kStandby);
    obs.command = OperatorCommand{};
    obs.command->issued_on = OperatorCommand::IssuedOn::kMaster;
    obs.command->target = 0x0002c903000000ffull;
    EXPECT_TRUE(Replied(policy.Decide(obs, kT0 + Duration(1200)), false))
        << "--to names an SM that is not the master now";
  }
  {
    SCOPED_TRACE("run on a STANDBY, still a STANDBY: the claim");
    FailoverPolicy policy = AdoptedStandby(Role::kStandby);
    Observation obs = StandbyUnder(0, std::nullopt);
    obs.command = OperatorCommand{};
    obs.command->issued_on = OperatorCommand::IssuedOn::kStandby;
    const Actions a = policy.Decide(obs, kT0 + Duration(1000));
    const Action* claim = Find(a, Action::Kind::kSetLocalPriority);
    ASSERT_NE(claim, nullptr);
    EXPECT_EQ(claim->priority, 14);
  }
}

}  // namespace
}  // namespace smsupd::policy
