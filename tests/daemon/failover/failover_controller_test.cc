// FailoverController on a fake fabric: the watch rounds feed the real
// policy, and its actions reach the recorders or the fabric (HANDOVERs).
// Time is a ManualClock that moves one poll interval per watch round, so
// "not within N rounds" means the same on every machine; every other wait
// is for a condition, with a deadline.
#include "daemon/failover/failover_controller.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "tests/daemon/fabric/fake_fabric.h"
#include "tests/daemon/support/manual_clock.h"

namespace smsupd {
namespace {

using namespace std::chrono_literals;

constexpr Guid kLocal = 0x0002c90300000002;
constexpr Guid kRemote = 0x0002c90300000001;

// An OpenSM log line stamped now, in the local time OpenSM writes
// ("Dec 07 13:09:53 699526 [tid] ..."), for checks that take its time.
std::string OpenSmLogLineNow(const std::string& text) {
  const auto wall = std::chrono::system_clock::now();
  const std::time_t now = std::chrono::system_clock::to_time_t(wall);
  const auto usec =
      std::chrono::duration_cast<std::chrono::microseconds>(wall.time_since_epoch()).count() %
      1000000;
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[48];
  const size_t n = std::strftime(stamp, sizeof stamp, "%b %d %H:%M:%S", &local);
  std::snprintf(stamp + n, sizeof stamp - n, " %06lld", static_cast<long long>(usec));
  return std::string(stamp) + " [300016C0] " + text;
}

struct Recorded {
  std::vector<int> priorities;              // SetLocalPriority
  std::vector<std::pair<int, bool>> starts;  // StartOpenSm(priority, restart)
  std::vector<Clock::TimePoint> start_times;  // on `clock`, one per start
  const Clock* clock = nullptr;
  int stops = 0;
  int holds = 0;  // HoldRestart
  int kills = 0;  // KillAfterHandover
  std::vector<std::string> freezes;  // "pause" / "resume", in order
  // HANDOVERs on the fabric at the moment of each pause.
  std::function<size_t()> handovers_sent;
  std::vector<size_t> handovers_at_pause;
  std::vector<std::string> events;
  std::vector<std::string> event_texts;  // "LOG_ID text", as announced
  std::map<std::string, bool> problems;
};

class RecordingLocalSm : public LocalSmControl {
 public:
  explicit RecordingLocalSm(Recorded& seen) : seen_(seen) {}
  void FollowPriority(std::optional<int>) override {}
  void SetPriority(int priority) override { seen_.priorities.push_back(priority); }
  void Start(int priority, bool restart) override {
    seen_.starts.push_back({priority, restart});
    if (seen_.clock) seen_.start_times.push_back(seen_.clock->Now());
  }
  void Stop() override { ++seen_.stops; }
  void HoldRestart() override { ++seen_.holds; }
  bool KillAfterHandover() override {
    ++seen_.kills;
    return true;
  }
  bool PauseForHandover() override {
    seen_.freezes.push_back("pause");
    if (seen_.handovers_sent) seen_.handovers_at_pause.push_back(seen_.handovers_sent());
    return true;
  }
  void ResumeAfterHandover() override { seen_.freezes.push_back("resume"); }

 private:
  Recorded& seen_;
};

class RecordingReporter : public Reporter {
 public:
  explicit RecordingReporter(Recorded& seen) : seen_(seen) {}
  void AddEvent(std::string_view, nlohmann::json) override {}
  void Announce(const std::string& log_id, const std::string& text) override {
    seen_.events.push_back(log_id);
    seen_.event_texts.push_back(log_id + " " + text);
  }
  void RaiseProblem(const std::string& id, const std::string&) override { seen_.problems[id] = true; }
  void ClearProblem(const std::string& id) override { seen_.problems[id] = false; }
  bool HasProblem(const std::string& id) const override {
    auto found = seen_.problems.find(id);
    return found != seen_.problems.end() && found->second;
  }

 private:
  Recorded& seen_;
};

class FailoverControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fabric_ = std::make_shared<FakeFabric>();
    worker_ = std::make_unique<MadWorker>(io_, fabric_);
    seen_.handovers_sent = [this] { return fabric_->handovers().size(); };
  }
  void TearDown() override {
    if (controller_) controller_->Stop();
    worker_->Stop();
  }

  void Start(policy::Role role) {
    policy::PolicyConfig config;
    config.local_guid = kLocal;
    config.role = role;
    config.startup_wait = 200ms;
    config.takeover_timeout = takeover_timeout_;
    seen_.clock = &clock_;
    FailoverTiming timing{poll_, 40ms, 1000ms, link_glance_};
    controller_ = std::make_unique<FailoverController>(
        io_, clock_, *worker_, config, timing, 0, local_sm_, reporter_,
        [this](const SubnetObservation& picture) {
          ++rounds_;
          clock_.Advance(kPoll);
          if (each_round_) each_round_(picture);
        });
    controller_->Start();
  }

  // The local SM at LID 2, the remote one at LID 1; `master_lid` is where
  // both ports point.
  void TwoSms(SmState local, SmState remote, uint16_t master_lid) {
    fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, master_lid});
    fabric_->AddSm(1, {kRemote, 0, 0, remote == SmState::kMaster ? 15 : 5, remote});
    fabric_->AddSm(2, {kLocal, 0, 0, local == SmState::kMaster ? 15 : 5, local});
  }

  bool RunUntil(const std::function<bool()>& done, std::chrono::milliseconds limit = 5000ms) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      if (drive_rounds_ && controller_) controller_->PollSoon();
      io_.run_for(5ms);
    }
    return true;
  }
  // `count` more watch rounds (and as many poll intervals on the clock).
  bool RunRounds(int count) {
    const int until = rounds_ + count;
    return RunUntil([&] { return rounds_ >= until; });
  }
  bool InState(policy::SupervisorState state) { return controller_->policy().state() == state; }
  bool HandoverTo(uint16_t lid) {
    for (const auto& h : fabric_->handovers())
      if (h.target_lid == lid) return true;
    return false;
  }
  // OpenSM runs (as if started by the supervisor after StartOpenSm).
  void OpenSmRuns() {
    ASSERT_TRUE(RunUntil([&] { return !seen_.starts.empty(); })) << "no StartOpenSm";
    controller_->OpenSmChanged(true, "");
  }

  // The local SM STANDBY under the remote MASTER, both in the picture.
  void RunningStandbyUnderTheRemoteMaster() {
    TwoSms(SmState::kStandby, SmState::kMaster, 1);
    Start(policy::Role::kStandby);
    OpenSmRuns();
    ASSERT_TRUE(RunUntil([&] {
      const SubnetObservation& seen = controller_->latest();
      return InState(policy::SupervisorState::kStandby) && seen.master &&
             seen.master->info.guid == kRemote && seen.local_sm;
    }));
  }
  // The local SM MASTER with the remote one its STANDBY, both in the view.
  void RunningMasterWithAStandby() {
    TwoSms(SmState::kMaster, SmState::kStandby, 2);
    Start(policy::Role::kMaster);
    OpenSmRuns();
    ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kMaster) &&
                                      controller_->policy().view().size() == 2; }));
  }
  // smctl failover --wait on the MASTER: the HANDOVER goes to the standby
  // and the local OpenSM is killed once it answers.
  void FailoverAndWaitUntilKilled() {
    FailoverAndWait();
    ASSERT_TRUE(RunUntil([&] { return seen_.kills > 0; })) << "OpenSM was not killed after the HANDOVER";
  }
  // smctl failover --wait on this node; its answer lands in answer_.
  void FailoverAndWait() {
    controller_->Failover(std::nullopt, /*wait=*/true, 5000ms,
                          [this](bool ok, const std::string&, nlohmann::json details) {
                            answer_ = std::make_pair(ok, details);
                          });
  }

  // The local MASTER's OpenSM dies; the standby gets the HANDOVER and
  // becomes MASTER or (target_master false) not; its sweep never reaches
  // this node. The restart comes `after` the exit.
  void ExpectRestartAfterTheMasterDied(bool target_master, std::chrono::milliseconds after) {
    ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
    const size_t starts = seen_.starts.size();
    if (!target_master) each_round_ = [&](const SubnetObservation&) { fabric_->SetSmState(1, SmState::kStandby); };
    fabric_->KillSm(2);
    const Clock::TimePoint exited = clock_.Now();
    controller_->OpenSmChanged(false, "signal 9");
    ASSERT_TRUE(RunUntil([&] { return HandoverTo(1); }));
    ASSERT_TRUE(RunUntil([&] { return seen_.starts.size() > starts; }, 20000ms)) << "this node must have an SM again";
    EXPECT_TRUE(seen_.starts.back().second);
    const auto waited = seen_.start_times.back() - exited;
    EXPECT_GE(waited, after) << "restarted early";
    EXPECT_LE(waited, after + 10 * kPoll) << "restarted late";
  }

  boost::asio::io_context io_;
  std::shared_ptr<FakeFabric> fabric_;
  std::unique_ptr<MadWorker> worker_;
  static constexpr auto kPoll = 20ms;
  // The controller's poll interval and link glance (FailoverTiming); with
  // drive_rounds_, RunUntil asks for a round at once (PollSoon) each turn,
  // so a long interval costs no time until the test stops driving.
  std::chrono::milliseconds poll_ = kPoll;
  std::chrono::milliseconds link_glance_ = 0ms;
  bool drive_rounds_ = false;
  std::chrono::milliseconds takeover_timeout_ = 3000ms;
  ManualClock clock_;
  int rounds_ = 0;
  // Called with the picture after each round, before the next one starts.
  std::function<void(const SubnetObservation&)> each_round_;
  Recorded seen_;
  RecordingLocalSm local_sm_{seen_};
  RecordingReporter reporter_{seen_};
  std::unique_ptr<FailoverController> controller_;
  std::optional<std::pair<bool, nlohmann::json>> answer_;  // of FailoverAndWait
};

TEST_F(FailoverControllerTest, StartsAtTheRolePriorityWhenTheSubnetHasNoSm) {
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateInit, 0, 0});
  Start(policy::Role::kMaster);
  ASSERT_TRUE(RunUntil([&] { return !seen_.starts.empty(); }));
  EXPECT_EQ(seen_.starts[0], std::make_pair(15, false));
}

TEST_F(FailoverControllerTest, ARoleMasterJoinsUnderARunningMasterAsAStandby) {
  TwoSms(SmState::kNotActive, SmState::kMaster, 1);
  Start(policy::Role::kMaster);
  ASSERT_TRUE(RunUntil([&] { return !seen_.starts.empty(); }));
  EXPECT_LT(seen_.starts[0].first, 15) << "a 15 started under a MASTER leaves no master";
}

TEST_F(FailoverControllerTest, TakesOverOnlyOnceTheMasterNodeIsGone) {
  TwoSms(SmState::kStandby, SmState::kMaster, 1);
  Start(policy::Role::kStandby);
  OpenSmRuns();
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kStandby); }));
  ASSERT_TRUE(RunRounds(15));  // 15 polls answered by the master
  EXPECT_FALSE(HandoverTo(2)) << "took over from a live master";

  fabric_->RemoveNode(1);
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(2); })) << "no take-over";
  EXPECT_EQ(fabric_->handovers().back().sent.guid, kLocal) << "HANDOVER payload must carry our GUID";
  EXPECT_NE(std::find(seen_.events.begin(), seen_.events.end(), "MASTER_LOST"),
            seen_.events.end());
}

// The remote master's port, reached by the walk over DR path 0,1,3: out of
// the local port 1, then out of port 3 of the leaf switch, which is the
// switch port at the other end of the master's cable.
const DirectedRoute kRouteToMaster{1, 3};
const DirectedRoute kLeaf{1};
constexpr int kLeafPortToMaster = 3;

PortInfo SwitchPort(int port_state) {
  PortInfo info;
  info.port_state = port_state;
  info.phys_state = port_state == kPortStateDown ? 2 : 5;  // Polling / LinkUp
  return info;
}

constexpr Guid kLeafGuid = 0x0002c90300001000;

NodeInfo SwitchNode(Guid guid) {
  NodeInfo info;
  info.type = NodeType::kSwitch;
  info.num_ports = 36;
  info.node_guid = guid;
  return info;
}

class MasterLinkTest : public FailoverControllerTest {
 protected:
  // A STANDBY under the remote MASTER whose walk found the route to it.
  void StandbyWatchingTheMastersCable(Guid route_ends_at = kRemote) {
    DiscoveredPort master_port;
    master_port.port_guid = kRemote;
    master_port.node_type = NodeType::kCa;
    master_port.port_num = 1;
    master_port.lid = 1;
    master_port.is_sm = true;
    master_port.hops = 2;
    master_port.route = kRouteToMaster;
    fabric_->SetDiscoveredPorts({master_port});
    fabric_->SetRoutePort(kLeaf, kLeafPortToMaster, SwitchPort(kPortStateActive));
    NodeInfo end;
    end.type = NodeType::kCa;
    end.port_guid = route_ends_at;
    fabric_->SetRouteNode(kRouteToMaster, end);
    fabric_->SetRouteNode(kLeaf, SwitchNode(kLeafGuid));
    ASSERT_NO_FATAL_FAILURE(RunningStandbyUnderTheRemoteMaster());
    // A walk, then rounds that read the cable and confirm the route.
    ASSERT_TRUE(RunUntil([&] { return fabric_->walks() > 0 && fabric_->route_reads() >= 4; }));
    ASSERT_TRUE(RunRounds(5));
    ASSERT_FALSE(HandoverTo(2)) << "took over from a live master";
  }
  // The same, with rounds a minute apart and a glance every 5 ms: once the
  // set-up stops driving rounds, only the glances read the cable.
  void StandbyGlancingAtTheMastersCable() {
    poll_ = 60000ms;
    link_glance_ = 5ms;
    drive_rounds_ = true;
    ASSERT_NO_FATAL_FAILURE(StandbyWatchingTheMastersCable());
    drive_rounds_ = false;
    const int reads = fabric_->route_reads();
    ASSERT_TRUE(RunUntil([&] { return fabric_->route_reads() >= reads + 2; })) << "no glance at the cable";
  }
  std::optional<std::string> MasterLostText() const {
    for (const std::string& text : seen_.event_texts)
      if (text.rfind("MASTER_LOST ", 0) == 0) return text;
    return std::nullopt;
  }
  // Waits for MASTER_LOST; true when the missed-poll rule decided it
  // ("missed N SMInfo polls", N at least the threshold).
  bool LostByMissedPolls() {
    if (!RunUntil([&] { return MasterLostText().has_value(); })) return false;
    const std::string text = *MasterLostText();
    const size_t at = text.find(" missed ");
    const int missed = at == std::string::npos ? 0 : std::atoi(text.c_str() + at + 8);
    EXPECT_GE(missed, policy::PolicyConfig{}.miss_threshold) << text;
    return missed >= policy::PolicyConfig{}.miss_threshold;
  }
};

// Node loss: the master's node gone, the switch port at the other end of
// its cable Down. That read decides, at the first missed poll, and the
// event says so.
TEST_F(MasterLinkTest, AMasterWhoseCableReadsDownIsLostAtTheFirstMissedPoll) {
  ASSERT_NO_FATAL_FAILURE(StandbyWatchingTheMastersCable());
  fabric_->RemoveNode(1);
  fabric_->SetRoutePort(kLeaf, kLeafPortToMaster, SwitchPort(kPortStateDown));
  ASSERT_TRUE(RunUntil([&] { return MasterLostText().has_value(); })) << "no MASTER_LOST";
  EXPECT_NE(MasterLostText()->find("other end of its cable reads Down"), std::string::npos) << *MasterLostText();
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(2); })) << "no take-over";
}

// Between two rounds the STANDBY glances at the switch port of the master's
// cable: a node lost right after a round is seen without waiting for the
// next one (here a minute away).
TEST_F(MasterLinkTest, ALostNodeIsSeenBetweenTwoRounds) {
  ASSERT_NO_FATAL_FAILURE(StandbyGlancingAtTheMastersCable());
  fabric_->RemoveNode(1);
  fabric_->SetRoutePort(kLeaf, kLeafPortToMaster, SwitchPort(kPortStateDown));
  ASSERT_TRUE(RunUntil([&] { return MasterLostText().has_value(); })) << "the loss waited for the next round";
  EXPECT_NE(MasterLostText()->find("other end of its cable reads Down"), std::string::npos) << *MasterLostText();
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(2); })) << "no take-over";
}

// A glance that reads the cable up runs no round: the watch's pace (and its
// SMInfo polls of the master) stay the poll interval's.
TEST_F(MasterLinkTest, AGlanceAtALiveCableRunsNoRound) {
  ASSERT_NO_FATAL_FAILURE(StandbyGlancingAtTheMastersCable());
  const int rounds = rounds_;
  const int reads = fabric_->route_reads();
  ASSERT_TRUE(RunUntil([&] { return fabric_->route_reads() >= reads + 10; })) << "the glances stopped";
  EXPECT_EQ(rounds_, rounds);
  EXPECT_FALSE(MasterLostText().has_value());
}

// The cable's far end still up: a silent master is a busy or dead SM on a
// live node, and the missed-poll rule decides as before.
TEST_F(MasterLinkTest, AMasterSilentBehindALiveCableNeedsTheMissedPolls) {
  ASSERT_NO_FATAL_FAILURE(StandbyWatchingTheMastersCable());
  fabric_->RemoveNode(1);  // nothing answers at its LID; the switch port stays Active
  EXPECT_TRUE(LostByMissedPolls());
}

// A route that the walk found but that ends at another port now (the master
// recabled, this node moved): its Down port says nothing about the master.
TEST_F(MasterLinkTest, ARouteThatEndsAtAnotherPortIsNotTrusted) {
  ASSERT_NO_FATAL_FAILURE(StandbyWatchingTheMastersCable(/*route_ends_at=*/0x0002c903000000ffULL));
  fabric_->SetRoutePort(kLeaf, kLeafPortToMaster, SwitchPort(kPortStateDown));
  ASSERT_TRUE(RunRounds(20));
  EXPECT_FALSE(MasterLostText()) << "took over from a live master on a stale route";
  fabric_->RemoveNode(1);
  EXPECT_TRUE(LostByMissedPolls());
}

// The route now reaches another switch (a link between switches on the way
// was recabled) whose port reads Down: that says nothing about the master,
// which is merely busy.
TEST_F(MasterLinkTest, ARouteThatNowReachesAnotherSwitchDecidesNothing) {
  ASSERT_NO_FATAL_FAILURE(StandbyWatchingTheMastersCable());
  fabric_->SetRouteNode(kLeaf, SwitchNode(kLeafGuid + 1));
  fabric_->SetRoutePort(kLeaf, kLeafPortToMaster, SwitchPort(kPortStateDown));
  fabric_->KillSm(1);  // a busy master: its SM misses polls, its node lives
  EXPECT_TRUE(LostByMissedPolls());
}

TEST_F(FailoverControllerTest, AMasterWhoseMadsAreOftenDroppedIsNotTakenOver) {
  TwoSms(SmState::kStandby, SmState::kMaster, 1);
  Start(policy::Role::kStandby);
  OpenSmRuns();
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kStandby); }));
  // One call dropped in every round (a lossy link): polls are missed now
  // and then, but the master's port keeps answering and it answers again.
  for (int i = 0; i < 30; ++i) {
    fabric_->DropNext(1);
    ASSERT_TRUE(RunRounds(1));
  }
  EXPECT_FALSE(HandoverTo(2));
  EXPECT_TRUE(InState(policy::SupervisorState::kStandby));
}

TEST_F(FailoverControllerTest, OneUnansweredReadIsNotAChangeInThePicture) {
  ASSERT_NO_FATAL_FAILURE(RunningStandbyUnderTheRemoteMaster());
  // Both SMs stop answering between two rounds; the pictures of the next
  // two rounds are kept.
  std::vector<std::pair<bool, bool>> pictures;  // master, local SM shown
  bool killed = false;
  each_round_ = [&](const SubnetObservation& picture) {
    if (!killed) {
      fabric_->KillSm(1);
      fabric_->KillSm(2);
      killed = true;
    } else if (pictures.size() < 2) {
      pictures.push_back({picture.master.has_value(), picture.local_sm.has_value()});
    }
  };
  ASSERT_TRUE(RunUntil([&] { return pictures.size() >= 2; }));
  // One unanswered read: status and its events still show both SMs.
  EXPECT_TRUE(pictures[0].first) << "one missed poll of the master reported as 'no master'";
  EXPECT_TRUE(pictures[0].second) << "one missed read of the local SM reported as NOTACTIVE";
  // Two in a row: both are gone from the picture.
  EXPECT_FALSE(pictures[1].first);
  EXPECT_FALSE(pictures[1].second);
}

// A standby handed the mastership (smctl failover on the master: HANDOVER,
// then the master's OpenSM killed) is MASTER before its first sweep points
// its port at it. The picture goes from the old master straight to this
// one: no round shows "no master", which the fabric never had.
TEST_F(FailoverControllerTest, AStandbyHandedTheMastershipIsTheMasterBeforeItsPortSaysSo) {
  ASSERT_NO_FATAL_FAILURE(RunningStandbyUnderTheRemoteMaster());
  std::vector<Guid> masters;  // shown after the handover, 0 for none
  bool handed = false;
  each_round_ = [&](const SubnetObservation& picture) {
    if (!handed) {
      fabric_->SetSmState(2, SmState::kMaster);
      fabric_->KillSm(1);
      handed = true;
    } else if (masters.size() < 4) {
      masters.push_back(picture.master ? picture.master->info.guid : 0);
    }
  };
  ASSERT_TRUE(RunUntil([&] { return masters.size() >= 4; }));
  for (size_t i = 0; i < masters.size(); ++i)
    EXPECT_EQ(masters[i], kLocal) << "round " << i << " after the handover shows master "
                                  << (masters[i] ? FormatGuid(masters[i]) : "none");
}

TEST_F(FailoverControllerTest, AMasterWhoseOpenSmExitsHandsOverToTheStandbyAtOnce) {
  takeover_timeout_ = 600s;  // rounds run back to back here: keep the deadline out of the way
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  const size_t starts = seen_.starts.size();
  fabric_->KillSm(2);
  controller_->OpenSmChanged(false, "signal 9");
  EXPECT_EQ(seen_.holds, 1) << "the supervisor must not restart OpenSM on its own";
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(1); })) << "the standby got no HANDOVER";
  // Not restarted while the new master's sweep has not reached this node: a
  // starting OpenSM's own walk of the subnet would slow that sweep.
  ASSERT_TRUE(RunRounds(20));
  EXPECT_EQ(seen_.starts.size(), starts) << "restarted before the new master swept this node";
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});  // SM LID: the new master
  ASSERT_TRUE(RunUntil([&] { return seen_.starts.size() > starts; })) << "OpenSM is not restarted";
  EXPECT_TRUE(seen_.starts.back().second) << "OpenSM is restarted";
  EXPECT_LT(seen_.starts.back().first, 15) << "restarted as a standby";
}

// The new master's SA ignores every request until its first sweep is over:
// the dead master's OpenSM restarts at the first round in which that SA
// answers (its port naming the new master), not 1.2 s of quiet ActCount later.
TEST_F(FailoverControllerTest, ADeadMastersOpenSmRestartsAsSoonAsTheNewMastersSaAnswers) {
  takeover_timeout_ = 600s;  // rounds run back to back here: keep the deadline out of the way
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  const size_t starts = seen_.starts.size();
  fabric_->SetSaSilent(1, true);  // the new master's first sweep
  fabric_->KillSm(2);
  controller_->OpenSmChanged(false, "signal 9");
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(1); })) << "the standby got no HANDOVER";
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});  // SM LID: the new master
  // Counted in rounds (kPoll each on the clock): 50 rounds are 1 s, less
  // than the 1.2 s a quiet ActCount needs.
  int round = 0;
  int restarted_at = -1;
  each_round_ = [&](const SubnetObservation&) {
    ++round;
    if (round == 50) fabric_->SetSaSilent(1, false);  // SUBNET UP
    if (restarted_at < 0 && seen_.starts.size() > starts) restarted_at = round;
  };
  ASSERT_TRUE(RunUntil([&] { return restarted_at >= 0; })) << "OpenSM is not restarted";
  EXPECT_GT(fabric_->sa_probes(), 0) << "the new master's SA was never asked";
  EXPECT_GT(restarted_at, 50) << "restarted while the new master's SA was silent";
  EXPECT_LE(restarted_at, 52) << "restarted late after the SA answered";
  EXPECT_TRUE(seen_.starts.back().second) << "OpenSM is restarted";
  EXPECT_LT(seen_.starts.back().first, 15) << "restarted as a standby";
  each_round_ = nullptr;
  const int probes = fabric_->sa_probes();
  ASSERT_TRUE(RunRounds(5));
  EXPECT_EQ(fabric_->sa_probes(), probes) << "the SA is still asked with no restart waiting";
}

// The HANDOVER's target never becomes MASTER (its OpenSM hangs, say): this
// node must have an SM again after takeover_timeout. While the target is
// MASTER but its first sweep has not reached this node (large fabrics), the
// wait goes on up to first_sweep_hold.
TEST_F(FailoverControllerTest, ADeadMastersOpenSmRestartsAtTheTakeoverTimeoutIfTheNewMasterNeverShows) {
  ExpectRestartAfterTheMasterDied(/*target_master=*/false, takeover_timeout_);
}

TEST_F(FailoverControllerTest, ADeadMastersOpenSmWaitsLongerWhileTheNewMasterIsMaster) {
  ExpectRestartAfterTheMasterDied(/*target_master=*/true, policy::PolicyConfig{}.first_sweep_hold);
}

// smctl failover on the MASTER: smsupd sends the HANDOVER itself and kills
// its OpenSM the moment the standby answers, so that the new master's first
// sweep is the only one; the answer comes once the new master shows on this
// node's port, and OpenSM starts again as a standby.
TEST_F(FailoverControllerTest, FailoverOnTheMasterHandsOverKillsOpenSmAndAnswersOnceTheNewMasterShows) {
  takeover_timeout_ = 600s;  // rounds run back to back here: keep the deadline out of the way
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  const size_t starts = seen_.starts.size();
  ASSERT_NO_FATAL_FAILURE(FailoverAndWaitUntilKilled());
  EXPECT_TRUE(HandoverTo(1)) << "killed without a HANDOVER to the standby";
  EXPECT_TRUE(seen_.priorities.empty()) << "no yield (a SIGHUP starts a sweep of the old master)";
  // Paused before the HANDOVER left (the new master's sweep must not read
  // it MASTER), and killed, not resumed.
  EXPECT_EQ(seen_.freezes, std::vector<std::string>{"pause"});
  EXPECT_EQ(seen_.handovers_at_pause, std::vector<size_t>{0});

  // The kill lands; the new master's sweep has not reached this node yet.
  fabric_->KillSm(2);
  controller_->OpenSmChanged(false, "signal 9");
  ASSERT_TRUE(RunRounds(20));
  EXPECT_EQ(fabric_->handovers().size(), 1u) << "a second HANDOVER restarts the new master's sweep";
  EXPECT_FALSE(answer_) << "--wait answers only once the new master shows";
  EXPECT_EQ(seen_.starts.size(), starts) << "restarted before the new master swept this node";

  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});  // SM LID: the new master
  ASSERT_TRUE(RunUntil([&] { return answer_.has_value(); }));
  EXPECT_TRUE(answer_->first);
  EXPECT_EQ(answer_->second["to"], FormatGuid(kRemote));
  ASSERT_TRUE(RunUntil([&] { return seen_.starts.size() > starts; })) << "OpenSM is not started again";
  EXPECT_LT(seen_.starts.back().first, 15) << "started again as a standby";
  EXPECT_EQ(seen_.kills, 1);
}

// OpenSM answers the HANDOVER before it changes state, on another thread;
// on a loaded machine three reads right after the answer can all still say
// STANDBY. The target is read until it says MASTER: the old master's OpenSM
// is killed, not resumed as a second MASTER, and nothing yields.
TEST_F(FailoverControllerTest, AHandoverTargetSlowToReadMasterIsWaitedForNotGivenUp) {
  takeover_timeout_ = 600s;
  fabric_->MasterAfterReads(8);
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  ASSERT_NO_FATAL_FAILURE(FailoverAndWaitUntilKilled());
  EXPECT_EQ(seen_.freezes, std::vector<std::string>{"pause"}) << "resumed: the HANDOVER counted as failed";
  EXPECT_TRUE(seen_.priorities.empty()) << "yielded by priority 0 although the target took over";
  EXPECT_EQ(fabric_->handovers().size(), 1u);
}

// The answer names the new master even when the round that shows it on
// this node's port has no answer to its SMInfo poll (a sweeping master can
// be slow to answer): the text and the fields say the same.
TEST_F(FailoverControllerTest, TheAnswerNamesTheNewMasterItsPortShowsEvenIfItsPollMissed) {
  takeover_timeout_ = 600s;
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  ASSERT_NO_FATAL_FAILURE(FailoverAndWaitUntilKilled());
  fabric_->KillSm(2);
  controller_->OpenSmChanged(false, "signal 9");
  ASSERT_TRUE(RunRounds(3));
  fabric_->KillSm(1);  // busy: its SMInfo goes unanswered
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});
  ASSERT_TRUE(RunUntil([&] { return answer_.has_value(); }));
  EXPECT_TRUE(answer_->first);
  EXPECT_EQ(answer_->second["master"], FormatGuid(kRemote)) << answer_->second.dump();
  EXPECT_EQ(answer_->second["to"], FormatGuid(kRemote)) << answer_->second.dump();
}

// A command is decided on a round with a fresh SM list. With a STANDBY
// known, that round does not walk the subnet: the HANDOVER would wait for
// the walk (~0.8 s on 10,000 HCAs). With none known, it walks: the walk
// finds an SM the SA does not list yet.
TEST_F(FailoverControllerTest, AFailoverIsDecidedWithoutAWalkWhenAStandbyIsKnown) {
  takeover_timeout_ = 600s;
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  const int walks = fabric_->walks();
  FailoverAndWait();
  ASSERT_TRUE(RunUntil([&] { return HandoverTo(1); })) << "the standby got no HANDOVER";
  EXPECT_EQ(fabric_->walks(), walks) << "the failover waited for a walk of the subnet";
}

TEST_F(FailoverControllerTest, AFailoverWithNoStandbyKnownWalksTheSubnetForOne) {
  TwoSms(SmState::kMaster, SmState::kStandby, 2);
  fabric_->SetSmState(1, SmState::kDiscovering);
  Start(policy::Role::kMaster);
  OpenSmRuns();
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kMaster); }));
  ASSERT_TRUE(RunRounds(5));
  const int walks = fabric_->walks();
  FailoverAndWait();
  ASSERT_TRUE(RunUntil([&] { return fabric_->walks() > walks; })) << "no walk for a standby";
}

// A new master with no STANDBY walks the subnet for one -- but not in the
// kWalkHoldAfterTakeover after the failover that made it master: the
// OpenSM that handed over starts again at its SUBNET UP, and the walk's
// SMPs would queue beside that OpenSM's discovery at every switch.
TEST_F(FailoverControllerTest, ANewMasterDoesNotWalkTheSubnetRightAfterItsFailover) {
  drive_rounds_ = true;
  ASSERT_NO_FATAL_FAILURE(RunningStandbyUnderTheRemoteMaster());
  fabric_->KillSm(1);
  fabric_->SetSmState(2, SmState::kMaster);
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 2});
  controller_->SmStateLogged(true);
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kMaster); }));
  ASSERT_TRUE(RunRounds(20));
  const int walks = fabric_->walks();
  // OpenSM's line, stamped now: the timeline takes its time, and with no
  // far port known it ends here.
  controller_->SubnetUpLogged(OpenSmLogLineNow("0x02 -> SUBNET UP"));
  const Clock::TimePoint ended = clock_.Now();
  std::optional<Clock::TimePoint> walked;
  each_round_ = [&](const SubnetObservation&) {
    if (!walked && fabric_->walks() > walks) walked = clock_.Now();
  };
  ASSERT_TRUE(RunUntil([&] { return walked.has_value(); }, 20000ms)) << "no walk for a standby";
  EXPECT_GE(*walked - ended, FailoverController::kWalkHoldAfterTakeover)
      << "walked beside the restart of the OpenSM that handed over";
  each_round_ = nullptr;
}

// A HANDOVER that is not answered kills nothing: OpenSM hands over by
// itself instead (priority 0 and a SIGHUP), and the answer follows.
TEST_F(FailoverControllerTest, FailoverOnTheMasterYieldsWhenTheHandoverIsNotAnswered) {
  fabric_->RefuseHandovers();
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  FailoverAndWait();
  ASSERT_TRUE(RunUntil([&] { return !seen_.priorities.empty(); })) << "no yield after the refused HANDOVER";
  EXPECT_EQ(seen_.priorities.back(), 0) << "the master yields by priority 0";
  EXPECT_EQ(seen_.kills, 0) << "OpenSM killed although nobody took over";
  EXPECT_EQ(seen_.freezes, (std::vector<std::string>{"pause", "resume"}))
      << "OpenSM paused for the HANDOVER must run again when it is not answered";
  EXPECT_FALSE(answer_) << "--wait answers only once the handover completed";

  // What OpenSM does after the SIGHUP: hand over to the standby.
  fabric_->SetSmState(2, SmState::kStandby);
  fabric_->SetSmState(1, SmState::kMaster);
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});
  ASSERT_TRUE(RunUntil([&] { return answer_.has_value(); }));
  EXPECT_TRUE(answer_->first);
  EXPECT_EQ(answer_->second["to"], FormatGuid(kRemote));
}

// A standby handed the mastership raises itself to 15 only once its OpenSM
// logged the first sweep's SUBNET UP: a SIGHUP during that sweep would make
// OpenSM start its discovery over.
TEST_F(FailoverControllerTest, ANewMasterRaisesItsPriorityOnceItsFirstSweepIsLogged) {
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});
  fabric_->AddSm(1, {kRemote, 0, 0, 15, SmState::kMaster});
  fabric_->AddSm(2, {kLocal, 0, 0, 5, SmState::kStandby});
  Start(policy::Role::kStandby);
  OpenSmRuns();
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kStandby); }));
  // The old master yielded (priority 0) and handed over to this SM.
  fabric_->AddSm(1, {kRemote, 0, 0, 0, SmState::kStandby});
  fabric_->AddSm(2, {kLocal, 0, 0, 5, SmState::kMaster});
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 2});
  controller_->SmStateLogged(true);
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kMaster); }));
  ASSERT_TRUE(RunRounds(150));  // three inventory intervals: the list shows no other MASTER
  for (int priority : seen_.priorities) EXPECT_NE(priority, 15) << "raised during the first sweep";
  controller_->SubnetUpLogged("Dec 04 02:39:47 597200 [300016C0] 0x02 -> SUBNET UP");
  ASSERT_TRUE(RunUntil([&] { return !seen_.priorities.empty() && seen_.priorities.back() == 15; }))
      << "not raised after the first sweep";
}

// A new master with no STANDBY (the SM that handed over is dead, and will
// start again beside this master) writes its raise without a SIGHUP, and
// sends the SIGHUP only if no heavy sweep of OpenSM's own applied it by
// max(3 s, 1.5 x the first sweep). OPENSM_NOT_SWEEPING (a MASTER at the
// wrong priority 10 s after a SIGHUP) counts from that SIGHUP, not from the
// write.
TEST_F(FailoverControllerTest, ANewMasterAloneSignalsItsRaiseOnlyAfterWaitingForASweep) {
  drive_rounds_ = true;
  ASSERT_NO_FATAL_FAILURE(RunningStandbyUnderTheRemoteMaster());
  // Handed the mastership; the old master's OpenSM is gone. Times are
  // taken in the rounds themselves (RunUntil may run past its condition).
  std::optional<Clock::TimePoint> became_master, written, signalled;
  each_round_ = [&](const SubnetObservation&) {
    if (!became_master && InState(policy::SupervisorState::kMaster)) became_master = clock_.Now();
    if (!written && controller_->policy().commanded_priority() == 15) written = clock_.Now();
    if (!signalled && !seen_.priorities.empty()) signalled = clock_.Now();
  };
  fabric_->KillSm(1);
  fabric_->SetSmState(2, SmState::kMaster);
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 2});
  controller_->SmStateLogged(true);
  ASSERT_TRUE(RunUntil([&] { return became_master.has_value(); }));
  ASSERT_TRUE(RunUntil([&] { return clock_.Now() - *became_master >= 8s; }));  // an 8 s first sweep
  EXPECT_FALSE(written) << "raised during the first sweep";
  controller_->SubnetUpLogged("Dec 04 02:39:47 597200 [300016C0] 0x02 -> SUBNET UP");
  ASSERT_TRUE(RunUntil([&] { return written.has_value(); })) << "the raise was never written";
  ASSERT_TRUE(RunUntil([&] { return signalled.has_value(); }, 20000ms)) << "never signalled";
  EXPECT_EQ(seen_.priorities.front(), 15);
  const auto waited = *signalled - *written;
  EXPECT_GE(waited, 12s) << "signalled before 1.5 x the 8 s first sweep";
  EXPECT_LE(waited, (*written - *became_master) * 3 / 2 + 2 * kPoll) << "signalled late";
  each_round_ = nullptr;
  EXPECT_FALSE(seen_.problems[kProblemOpenSmNotSweeping])
      << "not sweeping, while no SIGHUP was sent";
}

// The ports read-out is held while the local OpenSM is in its first sweep
// as master (InFirstSweepAsMaster): from its MASTER line to its SUBNET UP,
// and never longer than kFirstSweepLongest.
TEST_F(FailoverControllerTest, TheFirstSweepAsMasterLastsFromItsMasterLineToItsSubnetUp) {
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  EXPECT_FALSE(controller_->InFirstSweepAsMaster()) << "no MASTER line logged yet";
  controller_->SmStateLogged(true);
  EXPECT_TRUE(controller_->InFirstSweepAsMaster());
  controller_->SubnetUpLogged("Dec 04 02:39:47 597200 [300016C0] 0x02 -> SUBNET UP");
  EXPECT_FALSE(controller_->InFirstSweepAsMaster());

  controller_->SmStateLogged(true);  // handed the mastership again
  EXPECT_TRUE(controller_->InFirstSweepAsMaster());
  clock_.Advance(FailoverController::kFirstSweepLongest);
  EXPECT_FALSE(controller_->InFirstSweepAsMaster()) << "a sweep that never ends is not waited for";
  controller_->SmStateLogged(true);
  controller_->OpenSmChanged(false, "signal 9");
  EXPECT_FALSE(controller_->InFirstSweepAsMaster()) << "OpenSM exited";
}

TEST_F(FailoverControllerTest, FailoverWithoutAStandbyIsRefusedWithTheReason) {
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 2});
  fabric_->AddSm(2, {kLocal, 0, 0, 15, SmState::kMaster});
  Start(policy::Role::kMaster);
  OpenSmRuns();
  ASSERT_TRUE(RunUntil([&] { return InState(policy::SupervisorState::kMaster); }));
  std::optional<std::pair<bool, std::string>> answer;
  controller_->Failover(std::nullopt, false, 5000ms,
                        [&](bool ok, const std::string& text, nlohmann::json) {
                          answer = std::make_pair(ok, text);
                        });
  ASSERT_TRUE(RunUntil([&] { return answer.has_value(); }));
  EXPECT_FALSE(answer->first);
  EXPECT_NE(answer->second.find("no healthy STANDBY"), std::string::npos) << answer->second;
  EXPECT_TRUE(seen_.priorities.empty() || seen_.priorities.back() != 0);
}

TEST_F(FailoverControllerTest, StopOnTheMasterHandsOverBeforeStoppingOpenSm) {
  ASSERT_NO_FATAL_FAILURE(RunningMasterWithAStandby());
  controller_->StopRequested();
  ASSERT_TRUE(RunUntil([&] { return !seen_.priorities.empty(); }));
  EXPECT_EQ(seen_.priorities.back(), 0);
  EXPECT_EQ(seen_.stops, 0) << "OpenSM stopped before the handover";
  fabric_->SetSmState(2, SmState::kStandby);
  fabric_->SetSmState(1, SmState::kMaster);
  fabric_->SetLocalPort({"fake0", 1, kLocal, kPortStateActive, 2, 1});
  ASSERT_TRUE(RunUntil([&] { return seen_.stops > 0; }));
}

// Stuck() was documented as a health problem and nothing raised it.
TEST_F(FailoverControllerTest, AHangingMadCallIsAProblemUntilItReturns) {
  TwoSms(SmState::kStandby, SmState::kMaster, 1);
  Start(policy::Role::kStandby);
  OpenSmRuns();
  ASSERT_TRUE(RunRounds(2));
  fabric_->BlockCalls();
  ASSERT_TRUE(RunUntil([&] { return seen_.problems["MAD_THREAD_STUCK"]; }, 10000ms))
      << "a wedged MAD thread went unreported";
  fabric_->ReleaseCalls();
  ASSERT_TRUE(RunUntil([&] { return !seen_.problems["MAD_THREAD_STUCK"]; }, 10000ms));
}

}  // namespace
}  // namespace smsupd
