// The whole daemon with a fake fabric and a shell script for OpenSM: what it
// tells the service manager, in which order, on start, reload and stop.
#include "daemon/daemon.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>

#include "common/control_protocol.h"
#include "smctl/control_client.h"
#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr Guid kPortGuid = 0x0002c903000000a1;

constexpr char kFakeOpenSm[] = R"(#!/bin/sh
trap 'exit 0' TERM
trap '' HUP
while :; do sleep 1 & wait $!; done
)";

class FakeNotifier : public Notifier {
 public:
  void Notify(std::string_view message) override {
    std::lock_guard lock(mutex_);
    messages_.emplace_back(message);
    changed_.notify_all();
  }
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override { return 20ms; }
  bool StopIsARestart() const override { return restarting; }
  std::atomic<bool> restarting{false};  // as systemd says for `systemctl restart`

  // Waits until `count` messages start with `prefix`.
  bool WaitFor(const std::string& prefix, int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 20s, [&] { return Count(prefix) >= count; });
  }
  std::vector<std::string> messages() {
    std::lock_guard lock(mutex_);
    return messages_;
  }

 private:
  int Count(const std::string& prefix) const {
    return static_cast<int>(std::count_if(messages_.begin(), messages_.end(), [&](const std::string& m) {
      return m.rfind(prefix, 0) == 0;
    }));
  }
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> messages_;
};

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/daemon-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    std::ofstream(dir_ + "/fake-opensm") << kFakeOpenSm;
    ::chmod((dir_ + "/fake-opensm").c_str(), 0755);
    WriteConfig("");
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
  void WriteConfig(const std::string& extra) {
    std::ofstream(dir_ + "/smsupd.yaml")
        << "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
        << "  opensm:\n    binary: " << dir_ << "/fake-opensm\n"
        << "state_dir: " << dir_ << "/state\ncontrol:\n  socket: " << dir_ << "/run/sock\n"
        << "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
        << "      - { ports: ALL, membership: full }\n"
        << extra;
  }

  std::string dir_;
  std::shared_ptr<FakeFabric> fabric_;
  DaemonOptions options_;
  FakeNotifier notifier_;
};

TEST_F(DaemonTest, ReadyReloadingAndStoppingInOrder) {
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  ASSERT_TRUE(notifier_.WaitFor("STATUS=MASTER, priority 15", 1));
  ASSERT_TRUE(notifier_.WaitFor("WATCHDOG=1", 2));
  daemon.RequestReload();
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 2));
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);

  std::vector<std::string> seen;
  for (const auto& m : notifier_.messages())
    if (m.rfind("WATCHDOG", 0) != 0 && m.rfind("STATUS", 0) != 0) seen.push_back(m.substr(0, m.find('\n')));
  std::vector<std::string> expected = {"READY=1", "RELOADING=1", "READY=1", "STOPPING=1"};
  ASSERT_GE(seen.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.begin() + 3),
            std::vector<std::string>(expected.begin(), expected.begin() + 3));
  EXPECT_EQ(seen.back(), "STOPPING=1");
  EXPECT_FALSE(fs::exists(dir_ + "/state/opensm.pid")) << "OpenSM was not stopped";
}

TEST_F(DaemonTest, InvalidConfigNeverSaysReadyButSaysStopping) {
  WriteConfig("no_such_key: 1\n");
  Daemon daemon(options_, notifier_);
  // Its own exit status, which the unit does not restart.
  EXPECT_EQ(daemon.Run(), kExitConfigInvalid);
  auto messages = notifier_.messages();
  for (const auto& m : messages) EXPECT_EQ(m.find("READY=1"), std::string::npos) << m;
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.back(), "STOPPING=1");
  EXPECT_FALSE(fs::exists(dir_ + "/state/opensm.conf"));
}

// A port that is not there yet at start-up is waited for, and systemd is
// told why and asked for the time; the start then goes on as usual.
TEST_F(DaemonTest, APortThatAppearsLateIsWaitedFor) {
  fabric_->HideLocalPort(3);
  options_.port_retry = 10ms;
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  std::vector<std::string> messages = notifier_.messages();
  auto waiting = std::find_if(messages.begin(), messages.end(), [](const std::string& m) {
    return m.rfind("STATUS=waiting for port 0x0002c903000000a1 to appear", 0) == 0;
  });
  ASSERT_NE(waiting, messages.end());
  EXPECT_NE(waiting->find("EXTEND_TIMEOUT_USEC="), std::string::npos) << *waiting;
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
}

// A port that never appears ends the start with its own exit status (the
// unit starts smsupd again), and nothing was written or started.
TEST_F(DaemonTest, APortThatNeverAppearsEndsTheStartWithItsOwnStatus) {
  fabric_->HideLocalPort(-1);
  options_.port_retry = 10ms;
  options_.port_deadline = 100ms;
  Daemon daemon(options_, notifier_);
  EXPECT_EQ(daemon.Run(), kExitPortMissing);
  for (const auto& m : notifier_.messages()) EXPECT_EQ(m.find("READY=1"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dir_ + "/state/opensm.pid"));
}

// SIGTERM while the port is waited for ends the wait and the process, as a
// stop (exit 0), not as a failure systemd would restart.
TEST_F(DaemonTest, AStopWhileWaitingForThePortIsNotAFailure) {
  fabric_->HideLocalPort(-1);
  options_.port_retry = 10ms;
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("STATUS=waiting for port", 1));
  ::kill(::getpid(), SIGTERM);
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
}

TEST_F(DaemonTest, InvalidReloadChangesNothing) {
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  std::ifstream before_file(dir_ + "/state/opensm.conf");
  std::string before((std::istreambuf_iterator<char>(before_file)), {});
  WriteConfig("no_such_key: 1\n");
  daemon.RequestReload();
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 2));
  std::ifstream after_file(dir_ + "/state/opensm.conf");
  std::string after((std::istreambuf_iterator<char>(after_file)), {});
  EXPECT_EQ(before, after);
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
}

// The protocol header and the daemon agree: every command the header lists
// as implemented is answered (render was listed and answered "not
// implemented"), and a reserved one is refused as unsupported.
TEST_F(DaemonTest, EveryCommandTheProtocolListsIsImplemented) {
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  for (const control::CommandInfo& command : control::kCommands) {
    smctl::ControlClient client(dir_ + "/run/sock", 30s);
    auto response =
        client.Call({control::kProtocolVersion, std::string(command.name), nlohmann::json::object()});
    ASSERT_TRUE(response) << command.name << ": " << client.error().message;
    if (command.reserved)
      EXPECT_EQ(response->result, control::ResultCode::kUnsupported) << command.name;
    else
      EXPECT_NE(response->result, control::ResultCode::kUnsupported)
          << command.name << " is listed as implemented: " << response->text;
  }
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
}

// A stop can take longer than the watchdog interval (a handover, an
// OpenSM slow to exit): the pings went silent at STOPPING=1, and systemd was
// never told to wait longer than its own TimeoutStopSec.
TEST_F(DaemonTest, AStopKeepsTheWatchdogFedAndAsksSystemdToWait) {
  std::ofstream(dir_ + "/fake-opensm") << "#!/bin/sh\ntrap '' TERM HUP\ntouch " << dir_
                                       << "/ignoring\nwhile :; do sleep 1 & wait $!; done\n";
  options_.opensm_tuning.stop_deadline = 600ms;  // SIGKILL after that
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!fs::exists(dir_ + "/ignoring") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);  // polling a condition, not synchronising on time
  ASSERT_TRUE(fs::exists(dir_ + "/ignoring")) << "the fake OpenSM never started";
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  EXPECT_EQ(exit_code.get(), 0);
  std::vector<std::string> messages = notifier_.messages();
  auto stopping = std::find_if(messages.begin(), messages.end(), [](const std::string& m) {
    return m.rfind("STOPPING=1", 0) == 0;
  });
  ASSERT_NE(stopping, messages.end());
  EXPECT_NE(stopping->find("EXTEND_TIMEOUT_USEC="), std::string::npos) << *stopping;
  const auto pings_while_stopping = std::count(stopping, messages.end(), std::string("WATCHDOG=1"));
  // OpenSM ignores SIGTERM for 600 ms; the watchdog interval is 20 ms.
  EXPECT_GE(pings_while_stopping, 5) << "the watchdog went silent while stopping";
}

// An existing state_dir was used whatever its owner and mode, though it
// holds the SM_Key and every generation.
TEST_F(DaemonTest, AStateDirOthersCanWriteIsRefusedOneOthersCanReadIsMadePrivate) {
  const std::string state = dir_ + "/state";
  ASSERT_EQ(::mkdir(state.c_str(), 0777), 0);
  ASSERT_EQ(::chmod(state.c_str(), 0777), 0);
  {
    Daemon daemon(options_, notifier_);
    EXPECT_EQ(daemon.Run(), 1);
  }
  EXPECT_FALSE(fs::exists(state + "/opensm.conf")) << "wrote into a directory others can write";
  ASSERT_EQ(::chmod(state.c_str(), 0755), 0);
  Daemon daemon(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return daemon.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
  struct stat info {};
  ASSERT_EQ(::stat(state.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  ASSERT_EQ(::stat((state + "/opensm.conf").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u) << "opensm.conf may hold m_key and sa_key";
  daemon.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
}

// `systemctl restart smsupd` stopped OpenSM like a stop (the MASTER handed
// over, or the subnet lost its master): the next smsupd found nothing to
// adopt. A restart leaves OpenSM running and the next smsupd adopts it.
TEST_F(DaemonTest, ARestartOfSmsupdLeavesOpenSmRunningForTheNext) {
  pid_t opensm = 0;
  {
    Daemon first(options_, notifier_);
    auto exit_code = std::async(std::launch::async, [&] { return first.Run(); });
    ASSERT_TRUE(notifier_.WaitFor("READY=1", 1));
    std::ifstream pid_file(dir_ + "/state/opensm.pid");
    std::string line;
    ASSERT_TRUE(std::getline(pid_file, line) && line.rfind("pid=", 0) == 0);
    opensm = std::stoi(line.substr(4));
    notifier_.restarting = true;
    first.RequestStop();
    ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
    EXPECT_EQ(exit_code.get(), 0);
  }
  EXPECT_EQ(::kill(opensm, 0), 0) << "OpenSM was stopped by a restart of smsupd";
  notifier_.restarting = false;
  Daemon second(options_, notifier_);
  auto exit_code = std::async(std::launch::async, [&] { return second.Run(); });
  ASSERT_TRUE(notifier_.WaitFor("READY=1", 2));
  std::ifstream pid_file(dir_ + "/state/opensm.pid");
  std::string line;
  ASSERT_TRUE(std::getline(pid_file, line));
  EXPECT_EQ(line, "pid=" + std::to_string(opensm)) << "the next smsupd did not adopt OpenSM";
  second.RequestStop();
  ASSERT_EQ(exit_code.wait_for(20s), std::future_status::ready);
  // Not running: gone, or a zombie of this test process (the first daemon
  // started it here and no longer waits for it).
  std::ifstream stat("/proc/" + std::to_string(opensm) + "/stat");
  std::string fields;
  std::getline(stat, fields);
  const auto state = fields.find(") ");
  EXPECT_TRUE(fields.empty() || (state != std::string::npos && fields[state + 2] == 'Z'))
      << "a stop (not a restart) leaves no OpenSM: " << fields;
}

}  // namespace
}  // namespace smsupd
