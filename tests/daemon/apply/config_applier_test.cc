// ConfigApplier through its narrow interfaces: a recording OpenSM
// (OpenSmConfigSink), the fake fabric behind a real MadWorker, a recording
// Reporter and a ManualClock. Commands arrive through a CommandRouter as
// the control server hands them over.
#include "daemon/apply/config_applier.h"

#include <gtest/gtest.h>

#include <boost/asio/post.hpp>
#include <stdlib.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/atomic_file.h"
#include "common/problems.h"
#include "config/validator.h"
#include "tests/daemon/fabric/fake_fabric.h"
#include "tests/daemon/support/manual_clock.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using control::ResultCode;

constexpr Guid kPort = 0x0002c903000000a1;

// OpenSM as the applier sees it: files written, signals sent. A SIGHUP
// completes a sweep ("SUBNET UP") unless the test says OpenSM is silent.
class RecordingOpenSm : public OpenSmConfigSink {
 public:
  config::RenderedFiles Render(const config::Config& config, Guid port) const override {
    return RenderConfig(config, port, std::nullopt);
  }
  Result<std::string> Install(const config::Config& config, Guid port) override {
    installed.push_back(config.source_text);
    return WriteRenderedConfig(config, port);
  }
  Status Hangup() override {
    ++hangups;
    if (sweeps_on_hangup) ++sweeps;
    return Status::Ok();
  }
  std::uint64_t SweepsSeen() override { return sweeps; }

  std::vector<std::string> installed;
  int hangups = 0;
  std::uint64_t sweeps = 0;
  bool sweeps_on_hangup = true;
};

class RecordingReporter : public Reporter {
 public:
  void AddEvent(std::string_view kind, nlohmann::json) override { events.emplace_back(kind); }
  void Announce(const std::string& log_id, const std::string&) override { events.push_back(log_id); }
  void RaiseProblem(const std::string& id, const std::string&) override { problems.insert(id); }
  void ClearProblem(const std::string& id) override { problems.erase(id); }
  bool HasProblem(const std::string& id) const override { return problems.count(id) != 0; }
  bool Saw(const std::string& kind) const {
    return std::find(events.begin(), events.end(), kind) != events.end();
  }
  std::vector<std::string> events;
  std::set<std::string> problems;
};

class ConfigApplierTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/config-applier-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    WriteConfig("");
    auto outcome = config::LoadAndValidate(ConfigPath());
    ASSERT_TRUE(outcome.ok());
    running_.config = *outcome.config;
    running_.port_guid = kPort;
    fabric_->SetLocalPort({"fake0", 1, kPort, kPortStateActive, 1, 1});
    fabric_->SetDiscoveredPorts({{kPort, kPort - 1, NodeType::kCa, 1, 1, "test mlx5_0", true}});
    fabric_->SetPKeyTable(1, 1, {0xffff, 0, 0, 0});
    worker_ = std::make_unique<MadWorker>(io_, fabric_);
    seen_.valid = true;
    seen_.local_sm = SmInfo{kPort, 0, 0, 15, SmState::kMaster};
    seen_.master = SmRecord{1, *seen_.local_sm};
    ApplyHooks hooks;
    hooks.subnet = [this] { return seen_; };
    hooks.reloading = [this](const std::string&) { notices_.push_back("RELOADING=1"); };
    hooks.reloaded = [this] { notices_.push_back("READY=1"); };
    hooks.poll_soon = [] {};
    hooks.restart_opensm = [this](bool force, std::function<void(bool, const std::string&)> done) {
      restarts_.push_back(force);
      if (restart_refused_.empty()) return done(true, "OpenSM restarted; this SM is STANDBY");
      done(false, restart_refused_);
    };
    // The twin: held until the test gives its verdict (GateAnswers).
    hooks.twin_gate = [this](const config::Config& next, std::function<void(TwinVerdict)> done) {
      gated_.push_back(next.source_text);
      gate_done_ = std::move(done);
    };
    applier_ = std::make_unique<ConfigApplier>(io_, clock_, ConfigPath(), running_, opensm_, *worker_,
                                               reporter_, std::move(hooks));
    applier_->RegisterCommands(router_);
    router_.Open();
    ASSERT_TRUE(applier_->ApplyAtStart());
  }
  void TearDown() override {
    applier_.reset();
    worker_->Stop();
    fs::remove_all(dir_);
  }
  std::string ConfigPath() const { return dir_ + "/smsupd.yaml"; }
  // `extra`: top-level keys; `sm_extra`: more lines under sm:.
  void WriteConfig(const std::string& extra, const std::string& sm_extra = "") {
    std::string text = "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n" +
                       sm_extra + "state_dir: " + dir_ + "/state\ncontrol:\n  socket: " + dir_ + "/sock\n"
                       "verify:\n  timeout_s: 10\n" + extra +
                       "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
                       "      - { ports: ALL, membership: full }\n";
    ASSERT_TRUE(WriteFileAtomically(ConfigPath(), text));
  }
  // Sends `command` as the control server would; the reply, once it came.
  // Answers from a job thread come back to the loop, as the control server
  // brings them; a synchronous answer is there at once.
  std::optional<control::Response>* Send(const std::string& command, nlohmann::json arguments,
                                         control::Caller caller = {1, 0, 0, control::AccessLevel::kFull}) {
    replies_.push_back(std::make_unique<std::optional<control::Response>>());
    auto* slot = replies_.back().get();
    router_.Handle({control::kProtocolVersion, command, std::move(arguments)}, caller,
                   [this, slot](control::Response response) {
                     boost::asio::post(io_, [slot, response] { *slot = response; });
                   });
    io_.restart();
    io_.poll();
    return slot;
  }
  template <typename Predicate>
  bool RunUntil(Predicate done) {
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.restart();  // answers posted from a job thread after the loop ran dry
      io_.run_for(5ms);
    }
    return true;
  }

  // RunUntil with time passing: 100 ms on the clock per loop turn, for the
  // waits a test does not look into.
  template <typename Predicate>
  bool RunAdvancing(Predicate done) {
    return RunUntil([&] {
      clock_.Advance(100ms);
      return done();
    });
  }

  std::string dir_;
  boost::asio::io_context io_;
  ManualClock clock_;
  RunningConfig running_;
  std::shared_ptr<FakeFabric> fabric_ = std::make_shared<FakeFabric>();
  std::unique_ptr<MadWorker> worker_;
  RecordingOpenSm opensm_;
  RecordingReporter reporter_;
  SubnetObservation seen_;
  std::vector<bool> restarts_;    // restart_opensm calls, with their force flag
  std::string restart_refused_;   // the failover policy's refusal, if any
  std::vector<std::string> notices_;
  std::vector<std::string> gated_;             // configs the twin gate was asked about
  std::function<void(TwinVerdict)> gate_done_;  // the gate waiting for its verdict
  control::CommandRouter router_;
  std::unique_ptr<ConfigApplier> applier_;
  std::vector<std::unique_ptr<std::optional<control::Response>>> replies_;
};

constexpr char kTenant[] =
    "  - name: tenant\n    pkey: 0x0010\n    members:\n      - { guid: 0x0002c903000000b1, membership: full }\n";

TEST_F(ConfigApplierTest, StartInstallsAndStoresGenerationOne) {
  EXPECT_EQ(running_.generation.number, 1u);
  EXPECT_EQ(opensm_.installed.size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ + "/state/generations/1/meta.json"));
  EXPECT_TRUE(reporter_.Saw("config-applied"));
}

TEST_F(ConfigApplierTest, ReloadInstallsSignalsAndAnswersWhenVerified) {
  WriteConfig("");
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}});
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kSuccess) << (*reply)->text;
  EXPECT_EQ((*reply)->arguments["verification"]["state"], "verified");
  EXPECT_EQ(running_.generation.number, 2u);
  EXPECT_EQ(opensm_.hangups, 1);
  EXPECT_EQ(notices_, (std::vector<std::string>{"RELOADING=1", "READY=1"}));
  EXPECT_FALSE(applier_->busy());
}

TEST_F(ConfigApplierTest, AnInvalidFileChangesNothingAndSaysWhy) {
  WriteConfig("no_such_key: 1\n");
  auto* reply = Send("reload", {{"wait", true}});
  ASSERT_TRUE(reply->has_value());
  EXPECT_EQ((*reply)->result, ResultCode::kError);
  EXPECT_NE((*reply)->text.find("no_such_key"), std::string::npos) << (*reply)->text;
  EXPECT_EQ(opensm_.installed.size(), 1u) << "nothing installed after the start";
  EXPECT_EQ(opensm_.hangups, 0);
  EXPECT_EQ(running_.generation.number, 1u);
  EXPECT_TRUE(reporter_.Saw("config-rejected"));
}

TEST_F(ConfigApplierTest, ABadRowOfTheCablingFileChangesNothingAndSaysWhere) {
  const std::string csv = dir_ + "/cabling.csv";
  ASSERT_TRUE(WriteFileAtomically(csv, "switch,switch_port,peer,peer_port\nleaf01,1,gpu01,1\nleaf01,0,gpu02,1\n"));
  WriteConfig("cabling:\n  file: " + csv + "\n");
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}});
  ASSERT_TRUE(reply->has_value());
  EXPECT_EQ((*reply)->result, ResultCode::kError);
  EXPECT_NE((*reply)->arguments.dump().find(csv), std::string::npos) << (*reply)->arguments.dump();
  EXPECT_EQ(opensm_.installed.size(), 1u) << "nothing installed after the start: not the tenant partition either";
  EXPECT_EQ(opensm_.hangups, 0);
  EXPECT_EQ(running_.generation.number, 1u);
  EXPECT_TRUE(reporter_.Saw("config-rejected"));
}

TEST_F(ConfigApplierTest, ACommandDuringAnApplyIsBusyASignalIsQueued) {
  opensm_.sweeps_on_hangup = false;  // the first apply waits for its sweep
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* first = Send("reload", {{"wait", true}});
  ASSERT_TRUE(applier_->busy());
  auto* second = Send("reload", nlohmann::json::object());
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->result, ResultCode::kApplyInProgress);
  applier_->Reload();  // SIGHUP: remembered
  // No SUBNET UP: each sweep wait ends by the clock, verification runs.
  ASSERT_TRUE(RunAdvancing([&] { return first->has_value(); }));
  EXPECT_EQ((*first)->result, ResultCode::kSuccess) << (*first)->text;
  ASSERT_TRUE(RunAdvancing([&] { return !applier_->busy() && opensm_.hangups >= 2; }))
      << "the queued SIGHUP was not applied";
}

// A stop during an apply left `reload --wait` without an answer.
TEST_F(ConfigApplierTest, AStopDuringAnApplyAnswersTheWaitingCaller) {
  opensm_.sweeps_on_hangup = false;  // the apply waits for its sweep
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}});
  io_.run_for(50ms);
  ASSERT_FALSE(reply->has_value());
  applier_->Stop();
  io_.restart();
  io_.poll();
  ASSERT_TRUE(reply->has_value());
  EXPECT_EQ((*reply)->result, ResultCode::kError);
  EXPECT_NE((*reply)->text.find("not verified"), std::string::npos) << (*reply)->text;
  EXPECT_EQ(running_.generation.number, 2u) << "the installed generation stays current";
  auto meta = ReadWholeFile(dir_ + "/state/generations/2/meta.json");
  ASSERT_TRUE(meta.ok());
  EXPECT_NE(meta->find("interrupted"), std::string::npos);
}

TEST_F(ConfigApplierTest, VerificationWaitsForTheSweepUntilTheClockSaysItIsLate) {
  opensm_.sweeps_on_hangup = false;
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}});
  io_.run_for(100ms);
  EXPECT_FALSE(reply->has_value()) << "verified before OpenSM swept and before the wait ended";
  clock_.Advance(999ms);
  io_.run_for(100ms);
  EXPECT_FALSE(reply->has_value());
  clock_.Advance(1ms);
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->arguments["verification"]["sweep_seen"], false);
}

TEST_F(ConfigApplierTest, OpenSmRefusingPartitionsRollsBackToThePreviousGeneration) {
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  opensm_.sweeps_on_hangup = false;
  auto* reply = Send("reload", {{"wait", true}});
  applier_->PartitionConfigRefused("Partition configuration in error; retrying with default config");
  ASSERT_TRUE(RunAdvancing([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kError);
  EXPECT_EQ((*reply)->arguments["rolled_back"], true) << (*reply)->text;
  EXPECT_EQ((*reply)->arguments["rolled_back_to"], 1);
  EXPECT_EQ(running_.generation.number, 3u) << "the rollback is a generation of its own";
  EXPECT_EQ(running_.config.source_text, opensm_.installed.front());
}

TEST_F(ConfigApplierTest, OnAStandbyAMismatchIsDriftNeverARollback) {
  seen_.local_sm->state = SmState::kStandby;
  seen_.master = SmRecord{2, SmInfo{kPort + 1, 0, 0, 15, SmState::kMaster}};
  // The master (another node) has not put the SM port in 0x0010.
  std::ofstream(ConfigPath(), std::ios::app)
      << "  - name: sm-net\n    pkey: 0x0010\n    members:\n"
         "      - { guid: 0x0002c903000000a1, membership: full }\n";
  auto* reply = Send("reload", {{"wait", true}});
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kSuccess) << (*reply)->text;
  EXPECT_EQ((*reply)->arguments["verification"]["state"], "drift");
  EXPECT_TRUE(reporter_.HasProblem(kProblemPKeyDrift));
  EXPECT_EQ(running_.generation.number, 2u);
}

TEST_F(ConfigApplierTest, AStartupOnlyChangeWaitsForARestart) {
  WriteConfig("", "  opensm:\n    options:\n      routing_engine: updn\n");
  auto* reply = Send("reload", nlohmann::json::object());
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_NE((*reply)->text.find("restart needed for"), std::string::npos) << (*reply)->text;
  EXPECT_TRUE(reporter_.HasProblem(kProblemRestartNeeded));
  EXPECT_TRUE(restarts_.empty());
  applier_->OpenSmStarted();
  EXPECT_FALSE(reporter_.HasProblem(kProblemRestartNeeded));
}

// The cabling CSV the YAML names is part of the config: an edit of only
// the CSV is a new generation, the same CSV again is "unchanged".
TEST_F(ConfigApplierTest, AnEditOfOnlyTheCablingFileIsAChange) {
  const std::string csv = dir_ + "/cabling.csv";
  ASSERT_TRUE(WriteFileAtomically(csv, "switch,switch_guid,switch_port,peer,peer_port\nleaf01,0x1000,1,gpu01,1\n"));
  WriteConfig("cabling:\n  file: " + csv + "\n");
  auto reload = [&] {
    auto* reply = Send("reload", {{"wait", true}});
    EXPECT_TRUE(RunUntil([&] { return reply->has_value(); }));
    return (*reply)->text;
  };
  reload();
  EXPECT_EQ(running_.generation.number, 2u);
  EXPECT_NE(reload().find("config unchanged (generation 2)"), std::string::npos);
  ASSERT_TRUE(WriteFileAtomically(csv, "switch,switch_guid,switch_port,peer,peer_port\nleaf02,0x1000,1,gpu01,1\n"));
  std::string text = reload();
  EXPECT_EQ(text.find("config unchanged"), std::string::npos) << text;
  EXPECT_EQ(running_.generation.number, 3u);
  EXPECT_EQ(running_.config.cabling.cables.at(0).a.device, "leaf02");
  auto names = ReadWholeFile(dir_ + "/state/node-name-map");
  ASSERT_TRUE(names.ok());
  EXPECT_NE(names->find("0x0000000000001000 \"leaf02\"\n"), std::string::npos) << *names;
}

TEST_F(ConfigApplierTest, ValidateChecksTheFileOnDisk) {
  auto* valid = Send("validate", nlohmann::json::object());
  ASSERT_TRUE(RunUntil([&] { return valid->has_value(); }));
  EXPECT_EQ((*valid)->result, ResultCode::kSuccess);
  WriteConfig("no_such_key: 1\n");
  auto* invalid = Send("validate", nlohmann::json::object());
  ASSERT_TRUE(RunUntil([&] { return invalid->has_value(); }));
  EXPECT_EQ((*invalid)->result, ResultCode::kError);
  EXPECT_EQ((*invalid)->arguments["valid"], false);
}

// 50 members asking at once: far more than a lane's room (4 waiting), yet
// nobody is told "busy": they share the validation in progress or the next.
TEST_F(ConfigApplierTest, ValidationsAskedTogetherShareOneAndNoneIsBusy) {
  std::vector<std::optional<control::Response>*> answers;
  for (uid_t uid = 1000; uid < 1050; ++uid)
    answers.push_back(Send("validate", nlohmann::json::object(),
                           {1, uid, uid, control::AccessLevel::kReadOnly}));
  ASSERT_TRUE(RunUntil([&] {
    return std::all_of(answers.begin(), answers.end(), [](auto* answer) { return answer->has_value(); });
  }));
  for (auto* answer : answers) EXPECT_EQ((*answer)->result, ResultCode::kSuccess) << (*answer)->text;
}

// reload --restart restarted OpenSM in place: on the MASTER the subnet had
// no master until it was back. The restart now goes through the failover
// policy (hand over first); after it, this node is a STANDBY, so a
// mismatch is drift, not a reason to roll back.
TEST_F(ConfigApplierTest, ARestartForAStartupOnlyChangeGoesThroughTheFailoverPolicy) {
  WriteConfig("", "  opensm:\n    options:\n      routing_engine: updn\n");
  seen_.local_sm->state = SmState::kStandby;  // what the hook leaves behind
  auto* reply = Send("reload", {{"restart", true}, {"wait", true}});
  ASSERT_TRUE(RunAdvancing([&] { return reply->has_value(); }));
  EXPECT_EQ(restarts_, std::vector<bool>{false});
  EXPECT_EQ((*reply)->result, ResultCode::kSuccess) << (*reply)->text;
  EXPECT_NE((*reply)->text.find("OpenSM restarted for routing_engine"), std::string::npos)
      << (*reply)->text;
  EXPECT_EQ(opensm_.hangups, 0) << "a restart needs no SIGHUP";
}

TEST_F(ConfigApplierTest, ARefusedRestartIsAFailureTheCallerSees) {
  restart_refused_ = "no healthy STANDBY SM to hand over to";
  WriteConfig("", "  opensm:\n    options:\n      routing_engine: updn\n");
  auto* reply = Send("reload", {{"restart", true}, {"wait", true}});
  ASSERT_TRUE(RunAdvancing([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kError) << (*reply)->text;
  EXPECT_NE((*reply)->text.find("not restarted"), std::string::npos) << (*reply)->text;
  EXPECT_TRUE(reporter_.HasProblem(kProblemRestartNeeded));
  auto* forced = Send("reload", {{"restart", true}, {"force", true}});
  ASSERT_TRUE(RunAdvancing([&] { return forced->has_value(); }));
  ASSERT_EQ(restarts_.size(), 2u);
  EXPECT_TRUE(restarts_[1]) << "--force reaches the failover policy";
}

// ---- The twin gate (docs/twin.md "The twin as a gate") ------------------

TwinVerdict Verdict(TwinVerdict::Kind kind, const std::string& reason = "") {
  TwinVerdict verdict;
  verdict.kind = kind;
  if (!reason.empty()) verdict.reasons = {reason};
  if (kind == TwinVerdict::Kind::kFailed) verdict.failure_kind = "not-up";
  verdict.summary = "Twin plan: 1 port's P_Key table changes";
  return verdict;
}

// Nothing is saved, installed or signalled while the twin runs; other
// commands get "in progress", and the verdict "agrees" lets the apply go on.
TEST_F(ConfigApplierTest, AReloadWithTwinWaitsForTheTwinThenApplies) {
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}, {"twin", true}});
  ASSERT_EQ(gated_.size(), 1u);
  EXPECT_NE(gated_[0].find("tenant"), std::string::npos);
  EXPECT_FALSE(reply->has_value());
  EXPECT_TRUE(applier_->busy());
  EXPECT_EQ(opensm_.installed.size(), 1u) << "nothing installed while the twin runs";
  EXPECT_FALSE(fs::exists(dir_ + "/state/generations/2")) << "no generation saved while the twin runs";
  auto* second = Send("reload", nlohmann::json::object());
  ASSERT_TRUE(second->has_value());
  EXPECT_EQ((*second)->result, ResultCode::kApplyInProgress);
  EXPECT_NE((*second)->text.find("twin"), std::string::npos) << (*second)->text;
  gate_done_(Verdict(TwinVerdict::Kind::kAgrees));
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kSuccess) << (*reply)->text;
  EXPECT_EQ((*reply)->arguments["twin"]["verdict"], "agrees");
  EXPECT_EQ((*reply)->arguments["twin"]["mode"], "required");
  EXPECT_NE((*reply)->text.find("the twin agrees"), std::string::npos) << (*reply)->text;
  EXPECT_EQ(running_.generation.number, 2u);
  EXPECT_EQ(opensm_.hangups, 1);
  EXPECT_TRUE(reporter_.Saw("twin-gate"));
  EXPECT_EQ(notices_, (std::vector<std::string>{"RELOADING=1", "READY=1"}));
}

TEST_F(ConfigApplierTest, RequiredRefusesWhatTheTwinDisagreesWithAndChangesNothing) {
  WriteConfig("apply:\n  twin: required\n");
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto read_conf = [&] {
    Result<std::string> text = ReadWholeFile(dir_ + "/state/opensm.conf");
    return text.ok() ? *text : std::string("(none)");
  };
  const std::string conf_before = read_conf();
  for (TwinVerdict::Kind kind : {TwinVerdict::Kind::kDisagrees, TwinVerdict::Kind::kFailed}) {
    auto* reply = Send("reload", {{"wait", true}});
    ASSERT_EQ(static_cast<bool>(gate_done_), true);
    gate_done_(Verdict(kind, "routing: ftree asked, minhop used (fallback)"));
    ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
    EXPECT_EQ((*reply)->result, ResultCode::kTwinRefused) << (*reply)->text;
    EXPECT_NE((*reply)->text.find("ftree asked, minhop used"), std::string::npos) << (*reply)->text;
    EXPECT_NE((*reply)->text.find("nothing changed"), std::string::npos) << (*reply)->text;
    EXPECT_EQ((*reply)->arguments["twin"]["verdict"], TwinVerdictName(kind));
    EXPECT_EQ(opensm_.installed.size(), 1u);
    EXPECT_EQ(opensm_.hangups, 0);
    EXPECT_EQ(running_.generation.number, 1u);
    EXPECT_FALSE(fs::exists(dir_ + "/state/generations/2"));
    EXPECT_EQ(read_conf(), conf_before);
    EXPECT_FALSE(applier_->busy());
  }
  EXPECT_TRUE(reporter_.Saw("twin-gate"));
}

TEST_F(ConfigApplierTest, AdvisoryAppliesWhatTheTwinDisagreesWithAndWarns) {
  WriteConfig("apply:\n  twin: advisory\n");
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  applier_->Reload();  // a SIGHUP is gated too
  ASSERT_EQ(gated_.size(), 1u);
  gate_done_(Verdict(TwinVerdict::Kind::kDisagrees, "OpenSM complained about opensm.conf: lmc = 9"));
  ASSERT_TRUE(RunUntil([&] { return running_.generation.number == 2u; }));
  EXPECT_EQ(opensm_.hangups, 1);
  EXPECT_TRUE(reporter_.Saw("twin-gate"));
}

TEST_F(ConfigApplierTest, TheSameYamlAndARollbackAreNotRunOnTheTwin) {
  WriteConfig("apply:\n  twin: required\n");
  auto* first = Send("reload", {{"wait", true}});
  ASSERT_EQ(gated_.size(), 1u) << "turning the gate on is gated";
  gate_done_(Verdict(TwinVerdict::Kind::kAgrees));
  ASSERT_TRUE(RunUntil([&] { return first->has_value(); }));
  ASSERT_EQ((*first)->result, ResultCode::kSuccess) << (*first)->text;
  auto* same = Send("reload", {{"wait", true}});
  ASSERT_TRUE(RunUntil([&] { return same->has_value(); }));
  EXPECT_EQ((*same)->result, ResultCode::kSuccess) << (*same)->text;
  EXPECT_EQ(gated_.size(), 1u) << "the same YAML changes nothing";
  auto* rollback = Send("rollback", {{"generation", 1}, {"wait", true}});
  ASSERT_TRUE(RunUntil([&] { return rollback->has_value(); }));
  EXPECT_EQ(gated_.size(), 1u) << "a rollback is never gated: " << (*rollback)->text;
}

TEST_F(ConfigApplierTest, StoppingWhileTheTwinRunsAppliesNothing) {
  std::ofstream(ConfigPath(), std::ios::app) << kTenant;
  auto* reply = Send("reload", {{"wait", true}, {"twin", true}});
  ASSERT_TRUE(gate_done_);
  applier_->Stop();
  ASSERT_TRUE(RunUntil([&] { return reply->has_value(); }));
  EXPECT_EQ((*reply)->result, ResultCode::kError);
  EXPECT_NE((*reply)->text.find("nothing changed"), std::string::npos) << (*reply)->text;
  gate_done_(Verdict(TwinVerdict::Kind::kAgrees));
  io_.restart();
  io_.poll();
  EXPECT_EQ(opensm_.installed.size(), 1u);
  EXPECT_EQ(running_.generation.number, 1u);
}

}  // namespace
}  // namespace smsupd
