// The whole daemon on a fake fabric: `metrics` over the socket and /metrics
// over HTTP serve the same registry, the status and events reach it, and the
// hooks of hooks.directory run for its events.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <boost/asio/ip/tcp.hpp>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "daemon/daemon.h"
#include "smctl/control_client.h"
#include "tests/daemon/fabric/fake_fabric.h"
#include "tests/daemon/in_process_daemon.h"
#include "tests/daemon/metrics/exposition_reader.h"
#include "tests/daemon/metrics/http_get.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr Guid kPortGuid = 0x0002c903000000a1;

class QuietNotifier : public Notifier {
 public:
  void Notify(std::string_view message) override {
    std::lock_guard lock(mutex_);
    if (message.rfind("READY=1", 0) == 0) ready_ = true;
    changed_.notify_all();
  }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override { return std::nullopt; }
  bool StopIsARestart() const override { return false; }
  bool WaitReady() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 20s, [&] { return ready_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool ready_ = false;
};

bool Eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline = 20s) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return condition();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class MetricsDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "hooks must be root's: run the daemon's hook test as root";
    char pattern[] = "/tmp/metrics-daemon-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    in_process::WriteIdleOpenSm(dir_);
    fs::create_directory(dir_ + "/hooks.d");
    ::chmod((dir_ + "/hooks.d").c_str(), 0755);
    std::ofstream(dir_ + "/hooks.d/10-record")
        << "#!/bin/sh\necho \"$1 gen=$SMSUPD_GENERATION new=$SMSUPD_NEW_MASTER_GUID\" >> " << dir_ << "/hook.log\n";
    ::chmod((dir_ + "/hooks.d/10-record").c_str(), 0755);
    port_ = FreeLoopbackPort();
    std::ofstream(dir_ + "/smsupd.yaml")
        << "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
        << "  opensm:\n    binary: " << dir_ << "/fake-opensm\n"
        << "state_dir: " << dir_ << "/state\ncontrol:\n  socket: " << dir_ << "/run/sock\n"
        << "metrics:\n  listen: 127.0.0.1:" << port_ << "\n  subnet: fabric-a\n"
        << "hooks:\n  directory: " << dir_ << "/hooks.d\n  timeout_ms: 2000\n"
        << "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
        << "      - { ports: ALL, membership: full }\n";
    fabric_ = std::make_shared<FakeFabric>();
    fabric_->SetLocalPort({"fake0", 1, kPortGuid, kPortStateActive, 1, 1});
    fabric_->AddSm(1, {kPortGuid, 0, 0, 15, SmState::kMaster});
    fabric_->SetPortInfo(1, PortInfo{1, 1, kPortStateActive, 5, 0, kCapabilityIsSm, 1, kPortGuid});
    options_.config_path = dir_ + "/smsupd.yaml";
    options_.make_fabric = [this](std::optional<Guid>) { return fabric_; };
  }
  void TearDown() override {
    std::ifstream pid_file(dir_ + "/state/opensm.pid");
    std::string line;
    if (std::getline(pid_file, line) && line.rfind("pid=", 0) == 0) ::kill(std::stoi(line.substr(4)), SIGKILL);
    fs::remove_all(dir_);
  }
  std::string SocketMetrics() {
    smctl::ControlClient client(dir_ + "/run/sock", 10s);
    auto response = client.Call({control::kProtocolVersion, "metrics", nlohmann::json::object()});
    if (!response) return "";
    return response->arguments.value("exposition", std::string());
  }

  std::string dir_;
  int port_ = 0;
  std::shared_ptr<FakeFabric> fabric_;
  DaemonOptions options_;
  QuietNotifier notifier_;
};

TEST_F(MetricsDaemonTest, TheSocketAndHttpServeTheSameMetricsAndHooksRun) {
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitReady());
  const std::string master = "smsupd_local_sm_state{state=\"MASTER\"}";
  std::string socket_text;
  ASSERT_TRUE(Eventually([&] {
    socket_text = SocketMetrics();
    return SampleValue(socket_text, master) == 1;
  })) << socket_text;
  EXPECT_EQ(PromtoolProblems(socket_text), "");
  EXPECT_EQ(SampleValue(socket_text, "smsupd_local_sm_priority"), 15);
  EXPECT_EQ(SampleValue(socket_text, "smsupd_master_info{guid=\"" + FormatGuid(kPortGuid) + "\",lid=\"1\",node=\"\"}"), 1);
  EXPECT_EQ(SampleValue(socket_text, "smsupd_opensm_up"), 1);
  EXPECT_GE(SampleValue(socket_text, "smsupd_mad_poll_duration_seconds_count"), 1);
  // The families dashboards and alert rules lean on: the subnet this pair
  // supervises, each health problem with its severity, start times, the
  // failover duration histogram, the process collector.
  // One subnet_info series with every label the alert rules and the
  // dashboard group by: the name metrics.subnet gives, OpenSM's default
  // prefix, the port and the node.
  const std::size_t info = socket_text.find("smsupd_subnet_info{");
  ASSERT_NE(info, std::string::npos) << socket_text;
  const std::string info_line = socket_text.substr(info, socket_text.find('\n', info) - info);
  for (const std::string& label : std::vector<std::string>{"subnet=\"fabric-a\"", "subnet_prefix=\"0xfe80000000000000\"",
                                  "port_guid=\"" + FormatGuid(kPortGuid) + "\"", "node=\"test\""})
    EXPECT_NE(info_line.find(label), std::string::npos) << label << " missing in " << info_line;
  EXPECT_EQ(socket_text.find("smsupd_subnet_info{", info + 1), std::string::npos) << "one subnet, one series";
  EXPECT_NE(socket_text.find("smsupd_health_problem{id=\"NO_STANDBY\",severity=\"warning\"}"), std::string::npos)
      << socket_text;
  EXPECT_NE(socket_text.find("severity=\"critical\""), std::string::npos) << "every catalogued problem has a series";
  EXPECT_GT(SampleValue(socket_text, "smsupd_start_time_seconds"), 1.7e9);
  EXPECT_GT(SampleValue(socket_text, "smsupd_opensm_start_time_seconds"), 1.7e9);
  const std::set<std::string> families = FamilyNames(socket_text);
  for (const char* family : {"smsupd_failover_duration_seconds", "process_cpu_seconds_total",
                             "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds"})
    EXPECT_TRUE(families.count(family)) << family << " is missing";
  EXPECT_GT(SampleValue(socket_text, "process_resident_memory_bytes"), 0);
  // The failover duration is a histogram whose series exist before the
  // first failover, so histogram_quantile has buckets to read from the start.
  for (const char* series : {"smsupd_failover_duration_seconds_bucket{cause=\"master_lost\",le=\"0.25\"}",
                             "smsupd_failover_duration_seconds_bucket{cause=\"master_lost\",le=\"+Inf\"}",
                             "smsupd_failover_duration_seconds_sum{cause=\"master_lost\"}",
                             "smsupd_failover_duration_seconds_count{cause=\"master_lost\"}"})
    EXPECT_EQ(SampleValue(socket_text, series), 0) << series;
  for (const char* family : {"process_virtual_memory_bytes", "process_max_fds"})
    EXPECT_TRUE(families.count(family)) << family << " is missing";
  // A request is counted once answered: the next exposition shows it.
  EXPECT_GE(SampleValue(SocketMetrics(), "smsupd_control_requests_total{command=\"metrics\",result=\"success\"}"), 1);

  Result<std::string> http_text = HttpGet(port_, "/metrics");
  ASSERT_TRUE(http_text) << http_text.error().message;
  EXPECT_EQ(PromtoolProblems(*http_text), "");
  for (const std::string& family : FamilyNames(socket_text))
    EXPECT_TRUE(FamilyNames(*http_text).count(family)) << family << " is missing from /metrics";
  EXPECT_EQ(SampleValue(*http_text, master), 1);

  // A new partition: the reload applies generation 2.
  std::ofstream(dir_ + "/smsupd.yaml", std::ios::app)
      << "  - name: storage\n    pkey: 0x0002\n    members:\n      - { ports: ALL, membership: limited }\n";
  daemon.RequestReload();
  ASSERT_TRUE(Eventually([&] {
    const std::string text = SocketMetrics();
    return SampleValue(text, "smsupd_config_generation") == 2 &&
           SampleValue(text, "smsupd_applies_total{result=\"verified\"}") +
                   SampleValue(text, "smsupd_applies_total{result=\"unverified\"}") >= 1;
  })) << SocketMetrics();
  const std::string hook_log = dir_ + "/hook.log";
  ASSERT_TRUE(Eventually([&] {
    const std::string text = ReadFile(hook_log);
    return text.find("master-changed gen=1 new=" + FormatGuid(kPortGuid)) != std::string::npos &&
           text.find("config-applied gen=2") != std::string::npos;
  })) << ReadFile(hook_log);
  EXPECT_GE(SampleValue(SocketMetrics(), "smsupd_hook_runs_total{result=\"ok\"}"), 2);

  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
}

TEST_F(MetricsDaemonTest, ABusyListenAddressIsLoggedNotFatal) {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor holder(
      io, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                          static_cast<unsigned short>(port_)));
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitReady());
  EXPECT_FALSE(SocketMetrics().empty());
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
}

}  // namespace
}  // namespace smsupd
