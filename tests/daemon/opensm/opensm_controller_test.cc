// OpenSmController with a shell script for OpenSM (started as `<script> -F
// <conf>` like OpenSM; it appends "hup" to a file on each SIGHUP and exits
// on SIGTERM) and the fake fabric: what each action does to the files, the
// process and the hooks.
#include "daemon/opensm/opensm_controller.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <fstream>
#include <regex>

#include "common/atomic_file.h"
#include "common/problems.h"
#include "config/validator.h"
#include "daemon/opensm/opensm_pid_file.h"
#include "daemon/process/pidfd_process_launcher.h"
#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr Guid kPort = 0x0002c903000000a1;

class CountingFabric : public FakeFabric {
 public:
  Status ClearStaleSmFlag() override {
    ++cleared;
    return Status::Ok();
  }
  std::atomic<int> cleared{0};
};

class RecordingReporter : public Reporter {
 public:
  void AddEvent(std::string_view kind, nlohmann::json) override { events.emplace_back(kind); }
  void Announce(const std::string& log_id, const std::string&) override { events.push_back(log_id); }
  void RaiseProblem(const std::string& id, const std::string&) override { problems.insert(id); }
  void ClearProblem(const std::string& id) override { problems.erase(id); }
  bool HasProblem(const std::string& id) const override { return problems.count(id) != 0; }
  std::vector<std::string> events;
  std::set<std::string> problems;
};

class OpenSmControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/opensm-controller-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    std::ofstream(dir_ + "/fake-opensm")
        << "#!/bin/sh\ntrap 'echo hup >> " << dir_ << "/hups' HUP\ntrap 'exit 0' TERM\n"
        << ": > " << dir_ << "/traps-set\n"
        << "while :; do sleep 1 & wait $!; done\n";
    ::chmod((dir_ + "/fake-opensm").c_str(), 0755);
    std::string yaml = "version: 1\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
                       "  opensm:\n    binary: " + dir_ + "/fake-opensm\n    log_file: " + dir_ +
                       "/opensm.log\nstate_dir: " + dir_ + "/state\ncontrol:\n  socket: " + dir_ +
                       "/sock\npartitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
                       "      - { ports: ALL, membership: full }\n";
    auto outcome = config::ValidateText(yaml, "test.yaml");
    ASSERT_TRUE(outcome.ok());
    running_.config = *outcome.config;
    running_.port_guid = kPort;
    worker_ = std::make_unique<MadWorker>(io_, fabric_);
    MakeController();
  }
  void MakeController() {
    OpenSmHooks hooks;
    hooks.on_log = [this](const OpenSmLogEvent& event) { logged_.push_back(event.kind); };
    hooks.running = [this] { ++running_calls_; };
    hooks.first_start_failed = [this](const Status& failed) { first_failure_ = failed.message(); };
    hooks.stopped = [this] { ++stopped_; };
    hooks.on_event = [this](const OpenSmEvent& event) { supervisor_events_.push_back(event.kind); };
    hooks.start_priority = [this] { return hooks_start_priority_ ? hooks_start_priority_() : 5; };
    SupervisorTuning tuning;
    tuning.backoff = {1ms, 8ms, 60s};
    controller_ = std::make_unique<OpenSmController>(io_, launcher_, processes_, clock_, running_,
                                                     *worker_, reporter_, tuning, std::move(hooks));
  }
  void TearDown() override {
    if (controller_ && controller_->Snapshot().state == OpenSmSnapshot::State::kRunning) {
      controller_->Stop();
      RunUntil([&] { return stopped_ > 0; });
    }
    controller_.reset();
    worker_->Stop();
    fs::remove_all(dir_);
  }
  template <typename Predicate>
  bool RunUntil(Predicate done) {
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.run_for(5ms);
    }
    return true;
  }
  std::string PriorityInConf() {
    auto text = ReadWholeFile(dir_ + "/state/opensm.conf");
    if (!text) return "";
    std::smatch match;
    return std::regex_search(*text, match, std::regex("\nsm_priority ([0-9]+)")) ? match[1].str() : "";
  }
  int Hups() {
    auto text = ReadWholeFile(dir_ + "/hups");
    return text ? static_cast<int>(std::count(text->begin(), text->end(), '\n')) : 0;
  }

  std::string dir_;
  boost::asio::io_context io_;
  PidfdProcessLauncher launcher_{io_};
  ProcFsProcessTable processes_;
  SteadyClock clock_;
  RunningConfig running_;
  std::shared_ptr<CountingFabric> fabric_ = std::make_shared<CountingFabric>();
  std::unique_ptr<MadWorker> worker_;
  RecordingReporter reporter_;
  std::unique_ptr<OpenSmController> controller_;
  std::vector<OpenSmLogEvent::Kind> logged_;
  std::vector<std::string> supervisor_events_;
  std::function<int()> hooks_start_priority_;
  int running_calls_ = 0;
  int stopped_ = 0;
  std::string first_failure_;
};

TEST_F(OpenSmControllerTest, InstallRendersTheConfiguredPriorityUntilThePolicyCommandsOne) {
  ASSERT_TRUE(controller_->Install(running_.config, kPort));
  EXPECT_EQ(PriorityInConf(), "15");
  controller_->FollowPriority(5);
  EXPECT_EQ(PriorityInConf(), "5") << "a commanded priority is written at once";
  ASSERT_TRUE(controller_->Install(running_.config, kPort));
  EXPECT_EQ(PriorityInConf(), "5") << "an apply must not undo the failover policy's priority";
  EXPECT_EQ(controller_->Render(running_.config, kPort).opensm_conf.find("\nsm_priority 15\n"),
            std::string::npos);
}

TEST_F(OpenSmControllerTest, StartRunsOpenSmAtThePriorityAndTellsTheDaemon) {
  controller_->Start(5, false);
  EXPECT_EQ(running_calls_, 1);
  EXPECT_EQ(PriorityInConf(), "5");
  EXPECT_EQ(controller_->Snapshot().state, OpenSmSnapshot::State::kRunning);
  EXPECT_EQ(fabric_->cleared, 0) << "a first start has no stale IsSM bit to clear";
}

// OpenSM writes a peer's SM_Key into its log (ERR 2F18) and creates the
// file world-readable.
TEST_F(OpenSmControllerTest, OpenSmsLogIsReadableByRootOnly) {
  std::ofstream(dir_ + "/opensm.log") << "old line\n";
  ::chmod((dir_ + "/opensm.log").c_str(), 0644);
  controller_->Start(5, false);
  struct stat info {};
  ASSERT_EQ(::stat((dir_ + "/opensm.log").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(OpenSmControllerTest, SetPriorityRewritesTheFileAndSignalsOpenSm) {
  controller_->Start(5, false);
  // A SIGHUP before the script's trap would end it (the default action).
  ASSERT_TRUE(RunUntil([&] { return fs::exists(dir_ + "/traps-set"); }));
  // FollowPriority of the priority already written changes nothing.
  controller_->FollowPriority(5);
  controller_->SetPriority(0);
  EXPECT_EQ(PriorityInConf(), "0");
  EXPECT_EQ(controller_->commanded_priority(), 0);
  ASSERT_TRUE(RunUntil([&] { return Hups() == 1; })) << "OpenSM was not told (SIGHUP)";
  EXPECT_NE(std::find(reporter_.events.begin(), reporter_.events.end(), "priority-set"),
            reporter_.events.end());
}

TEST_F(OpenSmControllerTest, FollowingAnAdoptedPriorityOnlyRewritesTheFile) {
  controller_->Start(5, false);
  controller_->FollowPriority(14);
  EXPECT_EQ(PriorityInConf(), "14");
  io_.run_for(100ms);
  EXPECT_EQ(Hups(), 0) << "a priority OpenSM already runs at needs no signal";
}

TEST_F(OpenSmControllerTest, ARestartAfterAnExitClearsTheStaleSmFlagFirst) {
  controller_->Start(5, true);
  ASSERT_TRUE(RunUntil([&] { return fabric_->cleared == 1; }));
}

TEST_F(OpenSmControllerTest, AFailedFirstStartIsTheDaemonsFailure) {
  running_.config.sm.opensm.binary = dir_ + "/no-such-opensm";
  MakeController();
  controller_->Start(15, false);
  EXPECT_NE(first_failure_, "") << "start-up must fail when OpenSM cannot be started";
  EXPECT_EQ(running_calls_, 0);
  EXPECT_TRUE(reporter_.problems.empty());
}

// Also: a start uses the config in force (a reload changed the binary).
TEST_F(OpenSmControllerTest, AFailedStartAfterOpenSmRanIsAHealthProblem) {
  controller_->Start(15, false);
  ASSERT_EQ(running_calls_, 1);
  controller_->Stop();
  ASSERT_TRUE(RunUntil([&] { return stopped_ == 1; }));
  running_.config.sm.opensm.binary = dir_ + "/no-such-opensm";
  controller_->Start(15, true);
  EXPECT_EQ(first_failure_, "") << "OpenSM ran before: the daemon keeps running";
  EXPECT_TRUE(reporter_.HasProblem(kProblemOpenSmStartFailed));
}

// The priority of a restart after the back-off was the one decided when
// OpenSM exited, however the subnet changed meanwhile.
TEST_F(OpenSmControllerTest, ARestartAfterTheBackOffAsksForItsPriorityThen) {
  std::ofstream(dir_ + "/fake-opensm") << "#!/bin/sh\nexit 3\n";  // exits at once
  int asked = 0;
  int priority = 5;
  hooks_start_priority_ = [&] {
    ++asked;
    return priority;
  };
  MakeController();
  controller_->Start(5, false);
  ASSERT_EQ(PriorityInConf(), "5");
  priority = 14;  // the subnet changed while OpenSM was down
  ASSERT_TRUE(RunUntil([&] { return asked > 0; })) << "the restart after the back-off never asked";
  ASSERT_TRUE(RunUntil([&] { return PriorityInConf() == "14"; }));
  EXPECT_EQ(controller_->commanded_priority(), 14);
}

TEST_F(OpenSmControllerTest, StopEndsOpenSmAndTellsTheDaemon) {
  controller_->Start(5, false);
  controller_->Stop();
  ASSERT_TRUE(RunUntil([&] { return stopped_ == 1; }));
  EXPECT_EQ(controller_->Snapshot().state, OpenSmSnapshot::State::kStopped);
}

TEST_F(OpenSmControllerTest, LogLinesOthersActOnReachTheHookAndSweepsAreCounted) {
  controller_->WatchLog();
  io_.run_for(20ms);
  std::ofstream log(dir_ + "/opensm.log", std::ios::app);
  log << "Dec 02 21:12:23 100200 [A8CE26C0] 0x80 -> Entering MASTER state\n"
      << "Dec 02 21:12:24 781462 [A8CE26C0] 0x01 -> osm_prtn_make_partitions: Partition "
         "configuration in error; retrying with default config\n"
      << "Dec 02 21:12:24 789414 [A8CE26C0] 0x02 -> SUBNET UP\n"
      << "Dec 02 21:12:30 100200 [A8CE26C0] 0x80 -> Entering STANDBY state\n";
  log.close();
  EXPECT_EQ(controller_->SweepsSeen(), 1u);
  // The SUBNET UP and the state changes go on too: the failover timeline's
  // subnet-up stage, and the end of a new master's first sweep.
  ASSERT_EQ(logged_.size(), 4u);
  EXPECT_EQ(logged_[0], OpenSmLogEvent::Kind::kEnteringMaster);
  EXPECT_EQ(logged_[1], OpenSmLogEvent::Kind::kPartitionConfigError);
  EXPECT_EQ(logged_[2], OpenSmLogEvent::Kind::kSubnetUp);
  EXPECT_EQ(logged_[3], OpenSmLogEvent::Kind::kEnteringStandby);
}

}  // namespace
}  // namespace smsupd
