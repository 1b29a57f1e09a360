// The `cabling` command on the fake fabric: differences answered and turned
// into the MISCABLED problem and CABLING_DIFFERENCES event (cleared when
// fixed), the export in the reply, concurrent requests sharing one walk
// with the in-flight bound, and the periodic check raising the problem
// without a request.
#include "daemon/cabling/cabling_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <set>

#include "common/problems.h"
#include "config/cabling_csv.h"
#include "tests/daemon/cabling/model_fabric.h"
#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

using nlohmann::json;
using testing_cabling::ModelFabric;
using namespace std::chrono_literals;

using testing_cabling::kGpu01;
using testing_cabling::kGpu02;
using testing_cabling::kLeaf;

class RecordingReporter : public Reporter {
 public:
  void AddEvent(std::string_view kind, nlohmann::json) override { events.emplace_back(kind); }
  void Announce(const std::string& log_id, const std::string& text) override {
    events.push_back(log_id);
    texts.push_back(text);
  }
  void RaiseProblem(const std::string& id, const std::string& text) override { problems[id] = text; }
  void ClearProblem(const std::string& id) override { problems.erase(id); }
  bool HasProblem(const std::string& id) const override { return problems.count(id) != 0; }
  std::vector<std::string> events, texts;
  std::map<std::string, std::string> problems;
};

ModelFabric Crossed(bool crossed) {
  ModelFabric fabric;
  fabric.Switch(kLeaf, "leaf01", 4);
  fabric.Host(kGpu01, "gpu01");
  fabric.Host(kGpu02, "gpu02");
  fabric.Cable(kLeaf, 1, crossed ? kGpu02 : kGpu01, 1);
  fabric.Cable(kLeaf, 2, crossed ? kGpu01 : kGpu02, 1);
  return fabric;
}

class CablingCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    running_.config.source_path = "/etc/smsupd/smsupd.yaml";
    fabric_->SetTopology(Crossed(false).Build());
    worker_ = std::make_unique<MadWorker>(io_, fabric_);
  }
  void TearDown() override {
    if (command_) command_->Stop();
    fabric_->ReleaseCalls();
    worker_->Stop();
  }
  void Declare() {
    auto parsed = config::ParseCablingCsv("switch,switch_port,peer,peer_port\nleaf01,1,gpu01,1\nleaf01,2,gpu02,1\n",
                                          "cabling.csv");
    ASSERT_TRUE(parsed.ok());
    running_.config.cabling = {true, "", "", parsed.cables};
  }
  void Build(std::chrono::milliseconds interval = CablingCommand::kCheckInterval) {
    command_ = std::make_unique<CablingCommand>(io_, running_, *worker_, reporter_, interval);
    command_->RegisterCommands(router_);
    router_.Open();
  }
  // Sends a request; the reply lands in *out.
  void Send(std::optional<control::Response>* out, json arguments = json::object(),
            control::AccessLevel access = control::AccessLevel::kFull, uid_t uid = 0) {
    control::Caller caller;
    caller.uid = uid;
    caller.access = access;
    router_.Handle({control::kProtocolVersion, "cabling", std::move(arguments)}, caller,
                   [out](control::Response response) { *out = std::move(response); });
  }
  control::Response Call(json arguments = json::object()) {
    std::optional<control::Response> reply;
    Send(&reply, std::move(arguments));
    RunUntil([&] { return reply.has_value(); });
    return reply.value_or(control::MakeResponse(control::ResultCode::kError, "no reply"));
  }
  void RunUntil(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
      io_.restart();
      io_.run_for(5ms);
    }
  }

  boost::asio::io_context io_;
  std::shared_ptr<FakeFabric> fabric_ = std::make_shared<FakeFabric>();
  std::unique_ptr<MadWorker> worker_;
  RunningConfig running_;
  RecordingReporter reporter_;
  control::CommandRouter router_;
  std::unique_ptr<CablingCommand> command_;
};

TEST_F(CablingCommandTest, DifferencesAreAnsweredRaisedAndAnnouncedThenCleared) {
  Declare();
  Build();
  fabric_->SetTopology(Crossed(true).Build());
  control::Response crossed = Call();
  ASSERT_EQ(crossed.result, control::ResultCode::kSuccess) << crossed.text;
  ASSERT_EQ(crossed.arguments["differences"].size(), 1u) << crossed.text;
  EXPECT_EQ(crossed.arguments["differences"][0]["kind"], "swapped");
  EXPECT_EQ(crossed.arguments["declared"], true);
  EXPECT_EQ(crossed.arguments["cables"], 2);
  EXPECT_EQ(crossed.arguments["links"], 2);
  ASSERT_TRUE(reporter_.HasProblem(kProblemMiscabled));
  EXPECT_NE(reporter_.problems[kProblemMiscabled].find("swapped: gpu01 port 1 and gpu02 port 1 are crossed"), std::string::npos)
      << reporter_.problems[kProblemMiscabled];
  EXPECT_EQ(reporter_.events, std::vector<std::string>{"CABLING_DIFFERENCES"});

  Call();  // the same differences: no new event
  EXPECT_EQ(reporter_.events.size(), 1u);

  fabric_->SetTopology(Crossed(false).Build());
  control::Response fixed = Call();
  EXPECT_EQ(fixed.text, "cabling matches: 2 cables");
  EXPECT_TRUE(fixed.arguments["differences"].empty());
  EXPECT_FALSE(reporter_.HasProblem(kProblemMiscabled));
  ASSERT_EQ(reporter_.events.size(), 2u);
  EXPECT_EQ(reporter_.texts.back(), "cabling matches: 2 cables");
}

TEST_F(CablingCommandTest, NothingDeclaredIsAnAnswerAndRaisesNothing) {
  Build();
  control::Response reply = Call();
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess);
  EXPECT_EQ(reply.text,
            "no cabling declared in /etc/smsupd/smsupd.yaml; `smctl cabling --export` writes today's links as a start");
  EXPECT_TRUE(reporter_.problems.empty());
  EXPECT_TRUE(reporter_.events.empty());
}

TEST_F(CablingCommandTest, TheExportIsInTheReplyAndReadsBackAsNoDifference) {
  Build();
  control::Response reply = Call({{"export", true}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.text, "2 links exported");
  EXPECT_EQ(reply.arguments["links"], 2);
  auto parsed = config::ParseCablingCsv(reply.arguments["csv"].get<std::string>(), "export.csv");
  ASSERT_TRUE(parsed.ok());
  running_.config.cabling = {true, "", "", parsed.cables};
  control::Response compared = Call();
  EXPECT_EQ(compared.text, "cabling matches: 2 cables");
}

TEST_F(CablingCommandTest, UnknownArgumentsAreRefused) {
  Build();
  control::Response reply = Call({{"exprot", true}});
  EXPECT_EQ(reply.result, control::ResultCode::kBadRequest);
  EXPECT_EQ(fabric_->topology_walks(), 0);
}

TEST_F(CablingCommandTest, AFailedWalkIsAnErrorNotAMatch) {
  Declare();
  Build();
  fabric_->DropNext(1);
  control::Response reply = Call();
  EXPECT_EQ(reply.result, control::ResultCode::kError);
  EXPECT_NE(reply.text.find("the subnet walk failed"), std::string::npos) << reply.text;
  EXPECT_FALSE(reporter_.HasProblem(kProblemMiscabled));
}

TEST_F(CablingCommandTest, ConcurrentRequestsShareOneWalkAndExtraOnesAreRefused) {
  Declare();
  Build();
  fabric_->BlockCalls();
  std::vector<std::optional<control::Response>> replies(CablingCommand::kMaxInFlight + 1);
  for (int i = 0; i < CablingCommand::kMaxInFlight; ++i) Send(&replies[i], json::object(), control::AccessLevel::kFull, 0);
  Send(&replies.back());
  RunUntil([&] { return replies.back().has_value() && fabric_->blocked_calls() == 1; });
  ASSERT_TRUE(replies.back());
  EXPECT_EQ(replies.back()->result, control::ResultCode::kError);
  EXPECT_NE(replies.back()->text.find("too many `cabling` requests"), std::string::npos);
  fabric_->ReleaseCalls();
  RunUntil([&] { return std::all_of(replies.begin(), replies.end() - 1, [](auto& r) { return r.has_value(); }); });
  for (int i = 0; i < CablingCommand::kMaxInFlight; ++i) {
    ASSERT_TRUE(replies[i]) << i;
    EXPECT_EQ(replies[i]->text, "cabling matches: 2 cables");
  }
  EXPECT_EQ(fabric_->topology_walks(), 1) << "one walk for every request that arrived while it ran";
  // The slots are free again.
  control::Response again = Call();
  EXPECT_EQ(again.result, control::ResultCode::kSuccess) << again.text;
  EXPECT_EQ(fabric_->topology_walks(), 2);
}

TEST_F(CablingCommandTest, AGroupMemberHasOneRequestInFlight) {
  Declare();
  Build();
  fabric_->BlockCalls();
  std::optional<control::Response> first, second, other;
  Send(&first, json::object(), control::AccessLevel::kReadOnly, 1000);
  Send(&second, json::object(), control::AccessLevel::kReadOnly, 1000);
  Send(&other, json::object(), control::AccessLevel::kReadOnly, 1001);
  RunUntil([&] { return second.has_value(); });
  ASSERT_TRUE(second);
  EXPECT_EQ(second->result, control::ResultCode::kError);
  fabric_->ReleaseCalls();
  RunUntil([&] { return first.has_value() && other.has_value(); });
  ASSERT_TRUE(first && other);
  EXPECT_EQ(first->result, control::ResultCode::kSuccess);
  EXPECT_EQ(other->result, control::ResultCode::kSuccess);
}

TEST_F(CablingCommandTest, ThePeriodicCheckRaisesTheProblemWithoutARequest) {
  Declare();
  fabric_->SetTopology(Crossed(true).Build());
  Build(10ms);
  command_->Start();
  RunUntil([&] { return reporter_.HasProblem(kProblemMiscabled); });
  EXPECT_TRUE(reporter_.HasProblem(kProblemMiscabled));
  fabric_->SetTopology(Crossed(false).Build());
  RunUntil([&] { return !reporter_.HasProblem(kProblemMiscabled); });
  EXPECT_FALSE(reporter_.HasProblem(kProblemMiscabled));
  EXPECT_EQ(reporter_.events, (std::vector<std::string>{"CABLING_DIFFERENCES", "CABLING_DIFFERENCES"}));
}

TEST_F(CablingCommandTest, ThePeriodicCheckDoesNotWalkWithNothingDeclared) {
  Build(1ms);
  command_->Start();
  // Let the timer fire several times.
  int fired = 0;
  RunUntil([&] { return ++fired > 20; });
  EXPECT_EQ(fabric_->topology_walks(), 0);
}

}  // namespace
}  // namespace smsupd
