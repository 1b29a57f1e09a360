// StatusBoard on its own: what `smctl status`, `smctl events` and STATUS=
// show for the reports, supervisor events and watch rounds it receives.
#include "daemon/status/status_board.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/problems.h"
#include "daemon/status/event_kinds.h"
#include "common/control_wire.h"

namespace smsupd {
namespace {

constexpr Guid kLocal = 0x0002c903000000a1;
constexpr Guid kRemote = 0x0002c903000000b1;

class RecordingNotifier : public Notifier {
 public:
  void Notify(std::string_view message) override { messages.emplace_back(message); }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override { return std::nullopt; }
  bool StopIsARestart() const override { return false; }
  std::vector<std::string> messages;
};

class StatusBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    running_.config.node = "mgmt1";
    running_.config.hosts["mgmt2"] = {kRemote};
    running_.port_guid = kLocal;
    running_.generation = {3, "abc"};
    opensm_.state = OpenSmSnapshot::State::kRunning;
    opensm_.pid = 42;
  }
  void Attach() {
    board_.Attach({[this] { return opensm_; }, [] {
                     control::FailoverWire wire;
                     wire.state = "MASTER";
                     wire.commanded_priority = 15;
                     return wire;
                   }});
  }
  std::vector<std::string> EventKinds() {
    std::vector<std::string> kinds;
    for (const auto& event : board_.events().Since(0)) kinds.push_back(event.kind);
    return kinds;
  }
  static SubnetObservation MasterHere(int standbys) {
    SubnetObservation seen;
    seen.valid = true;
    seen.local_port.lid = 1;
    seen.local_sm = SmInfo{kLocal, 0, 0, 15, SmState::kMaster};
    seen.master = SmRecord{1, *seen.local_sm};
    seen.sms.push_back({1, *seen.local_sm});
    for (int i = 0; i < standbys; ++i)
      seen.sms.push_back({static_cast<uint16_t>(2 + i), SmInfo{kRemote + i, 0, 0, 5, SmState::kStandby}});
    return seen;
  }

  RunningConfig running_;
  RecordingNotifier notifier_;
  StatusBoard board_{running_, notifier_};
  OpenSmSnapshot opensm_;
};

TEST_F(StatusBoardTest, SaysStartingUntilThePartsAreAttached) {
  EXPECT_EQ(board_.Line(), "starting, config gen 3");
  Attach();
  EXPECT_EQ(board_.Line(), "OpenSM running (pid 42), config gen 3");
}

TEST_F(StatusBoardTest, LineCountsStandbysAndProblems) {
  Attach();
  board_.Observed(MasterHere(1));
  EXPECT_EQ(board_.Line(), "MASTER, priority 15, 1 standby, config gen 3");
  board_.RaiseProblem(kProblemNoStandby, "none");
  EXPECT_EQ(board_.Line(), "MASTER, priority 15, 1 standby, config gen 3, 1 problem(s)");
}

TEST_F(StatusBoardTest, PublishesStatusOnlyWhenTheLineChanges) {
  Attach();
  board_.Observed(MasterHere(1));
  board_.Observed(MasterHere(1));
  board_.Publish();
  ASSERT_EQ(notifier_.messages.size(), 1u);
  EXPECT_EQ(notifier_.messages[0], "STATUS=MASTER, priority 15, 1 standby, config gen 3");
  board_.Observed(MasterHere(2));
  ASSERT_EQ(notifier_.messages.size(), 2u);
  EXPECT_EQ(notifier_.messages[1], "STATUS=MASTER, priority 15, 2 standbys, config gen 3");
}

TEST_F(StatusBoardTest, AProblemIsOneEventWhenRaisedAndOneWhenCleared) {
  board_.RaiseProblem(kProblemPKeyDrift, "first text");
  board_.RaiseProblem(kProblemPKeyDrift, "second text");
  EXPECT_TRUE(board_.HasProblem(kProblemPKeyDrift));
  board_.ClearProblem(kProblemPKeyDrift);
  board_.ClearProblem(kProblemPKeyDrift);
  EXPECT_EQ(EventKinds(), (std::vector<std::string>{"problem-raised", "problem-cleared"}));
  EXPECT_FALSE(board_.HasProblem(kProblemPKeyDrift));
}

TEST_F(StatusBoardTest, AnnouncedIdsBecomeEventKinds) {
  board_.Announce("MASTER_LOST", "gone");
  auto events = board_.events().Since(0);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, "master-lost");
  EXPECT_EQ(events[0].details["text"], "gone");
  EXPECT_EQ(LogLevelOf("MASTER_LOST"), spdlog::level::warn);
  EXPECT_EQ(LogLevelOf("HANDOVER_SENT"), spdlog::level::info);
}

TEST_F(StatusBoardTest, AStartAfterAnExitIsARestart) {
  board_.OpenSmChanged({"OPENSM_STARTED", "pid 1", 1});
  board_.OpenSmChanged({"OPENSM_EXITED", "signal 9", 1});
  board_.OpenSmChanged({"OPENSM_STARTED", "pid 2", 2});
  EXPECT_EQ(EventKinds(),
            (std::vector<std::string>{"opensm-started", "opensm-exited", "opensm-restarted"}));
}

TEST_F(StatusBoardTest, ACrashLoopIsAProblemUntilTheSupervisorSaysItEnded) {
  Attach();
  opensm_.crash_loop = true;
  board_.OpenSmChanged({"OPENSM_CRASH_LOOP", "5 exits in 300 s", 0});
  EXPECT_TRUE(board_.HasProblem(kProblemOpenSmCrashLoop));
  board_.Observed(MasterHere(0));
  EXPECT_TRUE(board_.HasProblem(kProblemOpenSmCrashLoop));
  opensm_.crash_loop = false;
  board_.Observed(MasterHere(0));
  EXPECT_FALSE(board_.HasProblem(kProblemOpenSmCrashLoop));
}

TEST_F(StatusBoardTest, AFailedStartIsAProblemUntilOpenSmRuns) {
  board_.OpenSmChanged({"OPENSM_START_FAILED", "cannot execute /usr/sbin/opensm: No such file or directory", 0});
  ASSERT_TRUE(board_.HasProblem(kProblemOpenSmStartFailed));
  board_.OpenSmChanged({"OPENSM_STARTED", "pid 3", 3});
  EXPECT_FALSE(board_.HasProblem(kProblemOpenSmStartFailed));
}

TEST_F(StatusBoardTest, MasterChangesAreEventsButNotOnTheFirstLookAfterAnAdoption) {
  Attach();
  opensm_.adopted = true;
  board_.Observed(MasterHere(1));
  EXPECT_TRUE(EventKinds().empty()) << "the first round after an adoption is a baseline";
  SubnetObservation standby = MasterHere(1);
  standby.local_sm->state = SmState::kStandby;
  standby.master = SmRecord{2, SmInfo{kRemote, 0, 0, 15, SmState::kMaster}};
  board_.Observed(standby);
  EXPECT_EQ(EventKinds(), (std::vector<std::string>{"sm-state-changed", "master-changed"}));
}

TEST_F(StatusBoardTest, AnUnreadableLocalPortIsAProblem) {
  Attach();
  SubnetObservation seen = MasterHere(0);
  seen.port_error = "timeout";
  board_.Observed(seen);
  EXPECT_TRUE(board_.HasProblem(kProblemLocalPortUnreadable));
  board_.Observed(MasterHere(0));
  EXPECT_FALSE(board_.HasProblem(kProblemLocalPortUnreadable));
}

TEST_F(StatusBoardTest, StatusNamesHostsFromTheInventoryAndTheConfiguredRole) {
  running_.config.sm.role = config::Role::kStandby;
  running_.config.sm.preempt = false;
  Attach();
  SubnetObservation seen = MasterHere(0);
  seen.local_sm->state = SmState::kStandby;
  seen.master = SmRecord{2, SmInfo{kRemote, 0, 0, 15, SmState::kMaster}};
  board_.Observed(seen);
  control::StatusWire status = board_.Build();
  EXPECT_EQ(status.node, "mgmt1");
  ASSERT_TRUE(status.master);
  EXPECT_EQ(status.master->host, "mgmt2");
  ASSERT_TRUE(status.failover);
  EXPECT_EQ(status.failover->role, "standby");
  EXPECT_FALSE(status.failover->preempt);
  EXPECT_EQ(status.failover->commanded_priority, 15);
  EXPECT_EQ(status.config.generation, 3u);
  EXPECT_EQ(status.opensm.pid, 42);
}

TEST(ProblemCatalogueTest, EveryIdHasOneEntry) {
  for (const ProblemInfo& info : kProblems) {
    EXPECT_EQ(FindProblem(info.id), &info) << info.id;
    EXPECT_FALSE(info.meaning.empty()) << info.id;
  }
  EXPECT_EQ(FindProblem("NO_SUCH_PROBLEM"), nullptr);
}

}  // namespace
}  // namespace smsupd
