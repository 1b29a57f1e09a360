// `why` in the whole daemon on the fake fabric: a host with two ports, a
// port whose table does not answer (reported unread, never healthy), and
// the argument bounds. The simulated-fabric test is
// tests/daemon/pkey_apply/pkey_why_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "common/atomic_file.h"
#include "daemon/daemon.h"
#include "smctl/control_client.h"
#include "tests/daemon/fabric/fake_fabric.h"
#include "tests/daemon/in_process_daemon.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

constexpr Guid kSmPort = 0x0002c903000000a1;
constexpr Guid kGpuPort1 = 0x0002c903000000b1;
constexpr Guid kGpuPort2 = 0x0002c903000000b2;
constexpr Guid kStorPort = 0x0002c903000000c1;
constexpr Guid kDeadPort = 0x0002c903000000d1;

using in_process::QuietNotifier;

class WhyDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/why-daemon-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    in_process::WriteIdleOpenSm(dir_);
    std::string text = "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
                       "  opensm:\n    binary: " + dir_ + "/fake-opensm\n"
                       "state_dir: " + dir_ + "/state\ncontrol:\n  socket: " + dir_ + "/run/sock\n"
                       "hosts:\n  gpu01: [0x0002c903000000b1, 0x0002c903000000b2]\n"
                       "  stor01: [0x0002c903000000c1]\n"
                       "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
                       "      - { ports: ALL, membership: limited }\n"
                       "  - name: tenant\n    pkey: 0x0010\n    members:\n"
                       "      - { host: gpu01, membership: full }\n"
                       "      - { host: stor01, membership: limited }\n";
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/smsupd.yaml", text));
    fabric_ = std::make_shared<FakeFabric>();
    fabric_->SetLocalPort({"fake0", 1, kSmPort, kPortStateActive, 1, 1});
    fabric_->AddSm(1, {kSmPort, 0, 0, 15, SmState::kMaster});
    fabric_->SetPortInfo(1, PortInfo{1, 1, kPortStateActive, 5, 0, kCapabilityIsSm, 1, kSmPort});
    fabric_->SetDiscoveredPorts({{kSmPort, kSmPort - 1, NodeType::kCa, 1, 1, "sm mlx5_0", true},
                                 {kGpuPort1, 0xb0, NodeType::kCa, 1, 2, "gpu01 mlx5_0", false},
                                 {kGpuPort2, 0xb0, NodeType::kCa, 2, 3, "gpu01 mlx5_0", false},
                                 {kStorPort, 0xc0, NodeType::kCa, 1, 4, "stor01 mlx5_0", false},
                                 {kDeadPort, 0xd0, NodeType::kCa, 1, 5, "dead mlx5_0", false}});
    fabric_->SetPKeyTable(1, 1, {0xffff});
    // gpu01's first port is a full member of 0x0010; its second port was
    // left out of the partition (a table the SM has not programmed yet).
    fabric_->SetPKeyTable(2, 1, {0x7fff, 0x8010});
    fabric_->SetPKeyTable(3, 2, {0x7fff});
    fabric_->SetPKeyTable(4, 1, {0x7fff, 0x0010});
    // LID 5 answers nothing: its table read times out.
    options_.config_path = dir_ + "/smsupd.yaml";
    options_.make_fabric = [this](std::optional<Guid>) { return fabric_; };
    daemon_ = std::make_unique<Daemon>(options_, notifier_);
    exit_code_ = std::async(std::launch::async, [this] { return daemon_->Run(); });
    ASSERT_TRUE(WaitForSocket());
  }
  void TearDown() override { in_process::StopAndRemove(daemon_, exit_code_, dir_); }
  control::Response Call(const std::string& command, json arguments) {
    return in_process::Call(dir_ + "/run/sock", command, std::move(arguments));
  }
  bool WaitForSocket() { return in_process::WaitForSocket(dir_ + "/run/sock"); }

  std::string dir_;
  std::shared_ptr<FakeFabric> fabric_;
  DaemonOptions options_;
  QuietNotifier notifier_;
  std::unique_ptr<Daemon> daemon_;
  std::future<int> exit_code_;
};

TEST_F(WhyDaemonTest, AHostWithTwoPortsIsAnsweredPerPortAndSaysWhich) {
  control::Response reply = Call("why", {{"a", "gpu01"}, {"b", "stor01"}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.arguments["answer"], "yes");
  EXPECT_EQ(reply.text, "yes: gpu01 port 0x0002c903000000b1 and stor01 share 0x0010 (tenant): "
                        "gpu01 port 0x0002c903000000b1 full, stor01 limited");
  EXPECT_EQ(reply.arguments["a"]["guid"], "0x0002c903000000b1");
  EXPECT_EQ(reply.arguments["a"]["lid"], 2);
  EXPECT_EQ(reply.arguments["b"]["node_description"], "stor01 mlx5_0");
  ASSERT_EQ(reply.arguments["pairs"].size(), 2u);
  const json& second = reply.arguments["pairs"][1];
  EXPECT_EQ(second["a"], "0x0002c903000000b2");
  EXPECT_EQ(second["answer"], "no");
  EXPECT_NE(second["reason"].get<std::string>().find("the config differs"), std::string::npos) << second.dump();
}

TEST_F(WhyDaemonTest, ATableThatDoesNotAnswerIsReportedNotReadNeverHealthy) {
  control::Response reply = Call("why", {{"a", "stor01"}, {"b", "dead mlx5_0"}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.arguments["answer"], "no");
  EXPECT_EQ(reply.text.rfind("no: the P_Key table of dead mlx5_0 was not read (", 0), 0u) << reply.text;
  EXPECT_TRUE(reply.arguments["b"].contains("read_error"));
  for (const json& p : reply.arguments["partitions"]) {
    EXPECT_EQ(p["b"]["fact"], "unread") << p.dump();
    EXPECT_FALSE(p["usable"].get<bool>());
  }
}

TEST_F(WhyDaemonTest, NamesAreBoundedAndArgumentsChecked) {
  EXPECT_EQ(Call("why", {{"a", "gpu01"}}).result, control::ResultCode::kBadRequest);
  EXPECT_EQ(Call("why", {{"a", "gpu01"}, {"b", ""}}).result, control::ResultCode::kBadRequest);
  EXPECT_EQ(Call("why", {{"a", "gpu01"}, {"b", std::string(257, 'x')}}).result, control::ResultCode::kBadRequest);
  EXPECT_EQ(Call("why", {{"a", "gpu01"}, {"b", "stor01"}, {"file", "/etc/shadow"}}).result,
            control::ResultCode::kBadRequest);
  control::Response unknown = Call("why", {{"a", "gpu1"}, {"b", "stor01"}});
  EXPECT_EQ(unknown.result, control::ResultCode::kError);
  EXPECT_EQ(unknown.arguments["error_code"], "unknown-name");
  EXPECT_EQ(unknown.arguments["suggestions"][0], "gpu01") << unknown.text;
}

// At most WhyCommand::kMaxInFlight requests run at once; more are refused
// at once, not queued behind a fabric that is slow to answer.
TEST_F(WhyDaemonTest, RequestsBeyondTheCapAreRefusedNotQueued) {
  fabric_->BlockCalls();  // the walk every request waits for is stuck
  std::vector<std::future<control::Response>> replies;
  for (int i = 0; i < WhyCommand::kMaxInFlight + 2; ++i)
    replies.push_back(std::async(std::launch::async, [this] { return Call("why", {{"a", "gpu01"}, {"b", "stor01"}}); }));
  auto ready = [&] {
    int n = 0;
    for (auto& reply : replies) n += reply.wait_for(0s) == std::future_status::ready;
    return n;
  };
  auto end = std::chrono::steady_clock::now() + 20s;
  while (ready() < 2 && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(10ms);  // a condition
  EXPECT_EQ(ready(), 2) << "the requests past the cap are answered at once";
  fabric_->ReleaseCalls();
  int refused = 0, answered = 0;
  for (auto& future : replies) {
    control::Response reply = future.get();
    if (reply.result == control::ResultCode::kError &&
        reply.text.find("too many `why` requests") != std::string::npos)
      ++refused;
    else if (reply.ok() && reply.arguments.value("answer", "") == "yes")
      ++answered;
    else
      ADD_FAILURE() << reply.text;
  }
  EXPECT_EQ(refused, 2);
  EXPECT_EQ(answered, WhyCommand::kMaxInFlight);
  EXPECT_EQ(Call("why", {{"a", "gpu01"}, {"b", "stor01"}}).arguments["answer"], "yes") << "the slots are free again";
}

}  // namespace
}  // namespace smsupd
