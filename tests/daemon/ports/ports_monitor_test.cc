// PortsMonitor on a scripted fabric: requests share a read-out only when they
// arrived before it began, a read-out sends nothing more once the local port
// reads Down and ends as failed, the evaluation and each reply's building
// run off the event loop, a periodic read-out waits while held,
// the waiting line is bounded, bad arguments and
// unknown names are refused, and each problem kind is a health problem that
// clears with the fix.
#include "daemon/ports/ports_monitor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/problems.h"
#include "tests/daemon/ports/active_port_info.h"
#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

using control::ResultCode;
using nlohmann::json;

class RecordingReporter : public Reporter {
 public:
  void AddEvent(std::string_view kind, json details) override { events.emplace_back(kind, std::move(details)); }
  void Announce(const std::string&, const std::string&) override {}
  void RaiseProblem(const std::string& id, const std::string& text) override { problems[id] = text; }
  void ClearProblem(const std::string& id) override { problems.erase(id); }
  bool HasProblem(const std::string& id) const override { return problems.count(id) != 0; }
  std::map<std::string, std::string> problems;
  std::vector<std::pair<std::string, json>> events;
};

// A switch (LID 10) with host gpu01 (this node, LID 1) on port 1 and gpu02
// (LID 2) on port 2; counts walks and counter reads.
class ScriptedFabric : public FakeFabric {
 public:
  Result<FabricTopology> DiscoverTopology() override {
    ++walks;
    FabricTopology t;
    t.nodes = {{0x100, NodeType::kSwitch, 4, "sw", 1}, {0x200, NodeType::kCa, 1, "gpu01 HCA", 0},
               {0x300, NodeType::kCa, 1, "gpu02 HCA", 2}};
    t.ports = {{0x100, 0, 10, ActivePortInfo(10), 0, 0}, {0x100, 1, 10, ActivePortInfo(), 0x200, 1}, {0x200, 1, 1, ActivePortInfo(1), 0x100, 1}};
    PortInfo port2 = ActivePortInfo();
    if (gpu02_down) {
      port2.port_state = kPortStateDown;
      port2.phys_state = 2;
    }
    t.ports.push_back({0x100, 2, 10, port2, gpu02_down ? Guid{0} : Guid{0x300}, gpu02_down ? 0 : 1});
    if (!gpu02_down) t.ports.push_back({0x300, 1, 2, ActivePortInfo(2), 0x100, 2});
    for (int i = 0; i < extra_switch_ports; ++i)  // cabled to switches nobody walked
      t.ports.push_back({0x100, 5 + i, 10, ActivePortInfo(), Guid{0x1000} + static_cast<Guid>(i), 1});
    t.end_ports = {{0x201, 0x200, NodeType::kCa, 1, 1, "gpu01 HCA", false, 0}};
    if (!gpu02_down) t.end_ports.push_back({0x301, 0x300, NodeType::kCa, 1, 2, "gpu02 HCA", false, 2});
    return t;
  }
  std::vector<Result<PortCounters>> ReadPortCounters(const std::vector<CounterTarget>& targets) override {
    counter_reads += static_cast<int>(targets.size());
    if (local_port_goes_down) *local_port_goes_down = true;
    return std::vector<Result<PortCounters>>(targets.size(), PortCounters{});
  }
  int walks = 0;
  int counter_reads = 0;
  bool gpu02_down = false;
  int extra_switch_ports = 0;
  std::atomic<bool>* local_port_goes_down = nullptr;  // set at the first counter read
};

class PortsMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    running_.config.hosts["gpu01"] = {0x201};
    running_.config.hosts["gpu02"] = {0x301};
    running_.port_guid = 0x201;
    monitor_.RegisterCommands(router_);
    router_.Open();
  }

  // Sends `ports` with `arguments`; the reply lands in `replies`.
  void Send(json arguments, uid_t uid = 0) {
    control::Request request{control::kProtocolVersion, "ports", std::move(arguments)};
    control::Caller caller;
    caller.uid = uid;
    caller.access = control::AccessLevel::kReadOnly;
    // As the control server does: a reply may come from any thread and is
    // handled on the loop.
    router_.Handle(request, caller, [this](control::Response response) {
      boost::asio::post(io_, [this, response = std::move(response)] { replies.push_back(response); });
    });
  }

  // Runs the loop until `done`, for up to 20 s. Replies built on the
  // evaluator come back by a post: the loop waits for them even while it
  // has nothing else to do.
  void RunLoopUntil(const std::function<bool()>& done) {
    auto busy = boost::asio::make_work_guard(io_);
    for (int i = 0; i < 2000 && !done(); ++i) {
      if (io_.stopped()) io_.restart();
      io_.run_for(std::chrono::milliseconds(10));
    }
  }

  void RunUntil(std::size_t replies_wanted) {
    RunLoopUntil([&] { return replies.size() >= replies_wanted; });
    ASSERT_GE(replies.size(), replies_wanted) << "no answer in time";
  }

  // Runs the loop until `held` (a test's offload) holds `jobs` jobs.
  void RunHeld(const std::vector<std::function<void()>>& held, std::size_t jobs) {
    RunLoopUntil([&] { return held.size() >= jobs; });
    ASSERT_EQ(held.size(), jobs) << "not handed off in time";
  }

  boost::asio::io_context io_;
  std::shared_ptr<ScriptedFabric> fabric_ = std::make_shared<ScriptedFabric>();
  MadWorker worker_{io_, fabric_};
  RunningConfig running_;
  RecordingReporter reporter_;
  control::CommandRouter router_;
  PortsMonitor monitor_{io_, running_, worker_, reporter_};
  std::vector<control::Response> replies;
};

TEST_F(PortsMonitorTest, ConcurrentRequestsShareOneReadOut) {
  Send(json::object());
  Send({{"problems", true}});
  Send(json::object());
  RunUntil(3);
  ASSERT_EQ(replies.size(), 3u);
  for (const auto& reply : replies) EXPECT_EQ(reply.result, ResultCode::kSuccess) << reply.text;
  // The first began its own read-out; the two that came during it share the next.
  EXPECT_EQ(fabric_->walks, 2);
  EXPECT_EQ(replies[0].arguments["ports"].size(), 5u);
  EXPECT_EQ(replies[0].arguments["ports"][2]["name"], "gpu01");
  EXPECT_TRUE(replies[1].arguments["ports"].empty()) << "--problems lists problems only";
  EXPECT_EQ(fabric_->counter_reads, 2 * 4) << "every linked port with a LID, switch port 0 left out";
}

TEST_F(PortsMonitorTest, AReadOutSendsNoMoreChunksOnceTheLocalPortIsDown) {
  fabric_->extra_switch_ports = 100;  // 104 ports to read: four chunks
  std::atomic<bool> down{false};
  fabric_->local_port_goes_down = &down;
  monitor_.SetLocalPortDown([&down] { return down.load(); });
  Send(json::object());
  RunUntil(1);
  EXPECT_EQ(fabric_->counter_reads, static_cast<int>(PortsMonitor::kCounterChunk))
      << "only the chunk sent before the port read Down";
  // Dropped, not evaluated: a node cut off has no current view of the fabric.
  EXPECT_EQ(replies[0].result, ResultCode::kError) << replies[0].text;
  EXPECT_NE(replies[0].text.find("port went Down during the read-out (32 of 104"), std::string::npos)
      << replies[0].text;

  // The port back: the next read-out reads every port again.
  down = false;
  fabric_->local_port_goes_down = nullptr;
  Send(json::object());
  RunUntil(2);
  EXPECT_EQ(fabric_->counter_reads, static_cast<int>(PortsMonitor::kCounterChunk) + 104);
  EXPECT_EQ(replies[1].arguments["unread_total"], 0) << replies[1].text;
}

// On 10,000 HCAs the evaluation costs over a second of CPU: it is handed to
// another thread, the event loop goes on meanwhile, and the reply waits for
// the evaluation.
TEST_F(PortsMonitorTest, TheEvaluationRunsOffTheEventLoop) {
  std::vector<std::function<void()>> held;
  monitor_.SetOffload([&held](std::function<void()> job) { held.push_back(std::move(job)); });
  Send(json::object());
  RunHeld(held, 1);  // the read-out's evaluation was handed off
  EXPECT_EQ(fabric_->counter_reads, 4) << "after every counter was read";
  bool ran = false;
  boost::asio::post(io_, [&ran] { ran = true; });
  if (io_.stopped()) io_.restart();
  io_.run_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(ran) << "the event loop runs during the evaluation";
  EXPECT_TRUE(replies.empty()) << "no reply before the evaluation";

  std::thread evaluator(held[0]);
  evaluator.join();
  RunHeld(held, 2);
  std::thread(held[1]).join();  // the reply's building
  RunUntil(1);
  EXPECT_EQ(replies[0].result, ResultCode::kSuccess) << replies[0].text;
  EXPECT_EQ(replies[0].arguments["ports"].size(), 5u);
}

// On 10,000 HCAs a reply listing every port is ~28,000 rows: matching the
// names, copying the rows and serializing them took ~2 s of CPU, which the
// event loop (the failover watch, every other request) waited for. Each
// request's reply is built off the loop, after the evaluation, and a reply
// to names is matched there too.
TEST_F(PortsMonitorTest, EachReplyIsBuiltOffTheEventLoop) {
  std::vector<std::function<void()>> held;
  monitor_.SetOffload([&held](std::function<void()> job) { held.push_back(std::move(job)); });
  Send(json::object());
  RunHeld(held, 1);
  std::thread(held[0]).join();  // the evaluation
  RunHeld(held, 2);
  bool ran = false;
  boost::asio::post(io_, [&ran] { ran = true; });
  io_.restart();
  io_.run_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(ran);
  EXPECT_TRUE(replies.empty()) << "the reply is not built on the event loop";

  std::thread(held[1]).join();  // the reply: built, and handed over from that thread
  RunUntil(1);
  EXPECT_EQ(replies[0].result, ResultCode::kSuccess) << replies[0].text;
  EXPECT_EQ(replies[0].arguments["ports"].size(), 5u);

  // Names are matched on the same thread: an unknown one is refused from there.
  Send({{"names", json::array({"gpu01", "gpu9"})}});
  RunHeld(held, 3);
  std::thread(held[2]).join();
  RunHeld(held, 4);
  EXPECT_EQ(replies.size(), 1u);
  std::thread(held[3]).join();
  RunUntil(2);
  EXPECT_EQ(replies[1].result, ResultCode::kError);
  EXPECT_EQ(replies[1].arguments["error_code"], "unknown-name") << replies[1].text;
}

// A periodic read-out due while the hold says so (the daemon: its OpenSM
// in its first sweep as a new master) waits, and starts within kHoldRetry
// once the hold ends; the node's port problems stay meanwhile.
TEST_F(PortsMonitorTest, APeriodicReadOutWaitsWhileHeld) {
  reporter_.problems[kProblemPortDown] = "sw port 2 is Down";
  bool held = true;
  monitor_.SetPeriodicGate([] { return true; });
  monitor_.SetPeriodicHold([&held] { return held; });
  monitor_.Start(std::chrono::milliseconds(0));
  auto busy = boost::asio::make_work_guard(io_);
  io_.run_for(PortsMonitor::kHoldRetry * 2 + std::chrono::milliseconds(500));
  EXPECT_EQ(fabric_->walks, 0) << "no walk while held";
  EXPECT_TRUE(reporter_.HasProblem(kProblemPortDown)) << "a hold is not a loss of mastership";
  held = false;
  RunLoopUntil([&] { return fabric_->counter_reads > 0; });
  EXPECT_EQ(fabric_->walks, 1) << "the read-out once the hold ended";
  EXPECT_GT(fabric_->counter_reads, 0);
}

TEST_F(PortsMonitorTest, TheWaitingLineIsBounded) {
  for (std::size_t i = 0; i <= PortsMonitor::kMaxWaiting; ++i) Send(json::object());
  RunUntil(1);
  ASSERT_EQ(replies.size(), 1u) << "refused at once, not queued";
  EXPECT_EQ(replies[0].result, ResultCode::kError);
  EXPECT_NE(replies[0].text.find("too many"), std::string::npos);
  RunUntil(PortsMonitor::kMaxWaiting + 1);
  EXPECT_EQ(replies.size(), PortsMonitor::kMaxWaiting + 1);
}

TEST_F(PortsMonitorTest, BadArgumentsAndUnknownNamesAreRefused) {
  Send({{"problems", "yes"}});
  Send({{"colour", true}});
  Send({{"names", json::array({std::string(300, 'x')})}});
  Send({{"names", json(std::vector<std::string>(PortsMonitor::kMaxNames + 1, "gpu01"))}});
  RunUntil(4);
  ASSERT_EQ(replies.size(), 4u);
  for (const auto& reply : replies) EXPECT_EQ(reply.result, ResultCode::kBadRequest) << reply.text;
  EXPECT_EQ(fabric_->walks, 0) << "nothing read for a bad request";
  Send({{"names", {"gpu0l"}}});
  RunUntil(5);
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[4].result, ResultCode::kError);
  EXPECT_EQ(replies[4].arguments["error_code"], "unknown-name");
  EXPECT_NE(replies[4].text.find("closest: gpu01"), std::string::npos) << replies[4].text;
  Send({{"names", {"gpu02", "0x0000000000000201"}}});
  RunUntil(6);
  ASSERT_EQ(replies.size(), 6u);
  ASSERT_EQ(replies[5].arguments["ports"].size(), 2u) << replies[5].text << replies[5].arguments.dump();
}

TEST_F(PortsMonitorTest, APortDownIsAHealthProblemAndAnEventUntilItIsBack) {
  Send(json::object());
  RunUntil(1);
  fabric_->gpu02_down = true;
  Send({{"problems", true}});
  RunUntil(2);
  ASSERT_EQ(replies.size(), 2u);
  ASSERT_TRUE(reporter_.HasProblem(kProblemPortDown)) << replies[1].text << replies[1].arguments.dump();
  EXPECT_EQ(reporter_.problems[kProblemPortDown],
            "sw port 2 (0x0000000000000100) is Down (Polling); it was linked to gpu02");
  ASSERT_FALSE(reporter_.events.empty());
  EXPECT_EQ(reporter_.events.back().first, "port-problem");
  EXPECT_EQ(reporter_.events.back().second["port"], "sw port 2");
  EXPECT_EQ(replies[1].arguments["problems"][0]["kind"], "port-down");
  fabric_->gpu02_down = false;
  Send(json::object());
  RunUntil(3);
  ASSERT_EQ(replies.size(), 3u);
  EXPECT_FALSE(reporter_.HasProblem(kProblemPortDown));
  EXPECT_EQ(reporter_.events.back().first, "port-problem-cleared");
}

}  // namespace
}  // namespace smsupd
