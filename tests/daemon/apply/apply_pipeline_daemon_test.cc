// The apply pipeline in the whole daemon, on the fake fabric, with a shell
// script for OpenSM that writes OpenSM's log lines on SIGHUP ("SUBNET UP";
// "Partition configuration in error" when partitions.conf names a partition
// BROKEN). Driven over the control socket as smctl does.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <future>

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

constexpr Guid kPortGuid = 0x0002c903000000a1;

using in_process::QuietNotifier;

class ConfigApplyDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/config-apply-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    std::string log = dir_ + "/state/opensm.log";
    std::ofstream(dir_ + "/fake-opensm")
        << "#!/bin/sh\nhup() {\n  if grep -q BROKEN " << dir_ << "/state/partitions.conf; then\n"
        << "    echo 'Dec 02 21:12:24 781462 [A8CE26C0] 0x01 -> osm_prtn_make_partitions: Partition "
           "configuration in error; retrying with default config' >> " << log << "\n  fi\n"
        << "  echo 'Dec 02 21:12:24 789414 [A8CE26C0] 0x02 -> SUBNET UP' >> " << log << "\n}\n"
        << "trap 'exit 0' TERM\ntrap hup HUP\nwhile :; do sleep 1 & wait $!; done\n";
    ::chmod((dir_ + "/fake-opensm").c_str(), 0755);
    WriteConfig("");
    fabric_ = std::make_shared<FakeFabric>();
    fabric_->SetLocalPort({"fake0", 1, kPortGuid, kPortStateActive, 1, 1});
    fabric_->AddSm(1, {kPortGuid, 0, 0, 15, SmState::kMaster});
    fabric_->SetPortInfo(1, PortInfo{1, 1, kPortStateActive, 5, 0, kCapabilityIsSm, 1, kPortGuid});
    // The fabric as discovery finds it: the SM's own HCA port, which holds
    // only the default partition (full: the SM port base rule).
    fabric_->SetDiscoveredPorts({{kPortGuid, kPortGuid - 1, NodeType::kCa, 1, 1, "test mlx5_0", true}});
    fabric_->SetPKeyTable(1, 1, {0xffff, 0, 0, 0});
    options_.config_path = dir_ + "/smsupd.yaml";
    options_.make_fabric = [this](std::optional<Guid>) { return fabric_; };
    daemon_ = std::make_unique<Daemon>(options_, notifier_);
    exit_code_ = std::async(std::launch::async, [this] { return daemon_->Run(); });
    ASSERT_TRUE(WaitForAnswer()) << "the daemon did not answer status";
  }
  void TearDown() override { in_process::StopAndRemove(daemon_, exit_code_, dir_); }
  void WriteConfig(const std::string& partitions) {
    std::string text = "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
                       "  opensm:\n    binary: " + dir_ + "/fake-opensm\n"
                       "state_dir: " + dir_ + "/state\ncontrol:\n  socket: " + dir_ + "/run/sock\n"
                       "verify:\n  timeout_s: 10\n"
                       "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
                       "      - { ports: ALL, membership: full }\n" + partitions;
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/smsupd.yaml", text));
  }
  control::Response Call(const std::string& command, json arguments = json::object()) {
    smctl::ControlClient client(dir_ + "/run/sock", 60s);
    auto response = client.Call({control::kProtocolVersion, command, std::move(arguments)});
    if (!response) return control::MakeResponse(control::ResultCode::kError, client.error().message);
    return *response;
  }
  // Until status answers and shows the local SM as MASTER: an apply decides
  // "verify or report drift" by what the last watch round saw.
  bool WaitForAnswer() {
    auto end = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < end) {
      if (fs::exists(dir_ + "/run/sock")) {
        control::Response status = Call("status");
        if (status.ok() && status.arguments["local_sm"].value("state", "") == "MASTER") return true;
      }
      std::this_thread::sleep_for(50ms);  // polling a condition, not synchronising on time
    }
    return false;
  }
  std::string Partitions() { return ReadWholeFile(dir_ + "/state/partitions.conf").value(); }

  std::string dir_;
  std::shared_ptr<FakeFabric> fabric_;
  DaemonOptions options_;
  QuietNotifier notifier_;
  std::unique_ptr<Daemon> daemon_;
  std::future<int> exit_code_;
};

constexpr char kTenantPartition[] =
    "  - name: tenant\n    pkey: 0x0010\n    members:\n      - { guid: 0x0002c903000000b1, membership: full }\n";

TEST_F(ConfigApplyDaemonTest, ReloadWaitAppliesANewGenerationAndHistoryListsIt) {
  WriteConfig(kTenantPartition);
  control::Response reply = Call("reload", {{"wait", true}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.arguments["generation"], 2);
  EXPECT_EQ(reply.arguments["rolled_back"], false);
  EXPECT_TRUE(reply.arguments["plan"]["changed"].get<bool>());
  EXPECT_NE(reply.arguments["verification"]["state"], "pending");
  EXPECT_TRUE(reply.arguments["verification"]["sweep_seen"].get<bool>()) << reply.text;
  EXPECT_NE(Partitions().find("tenant"), std::string::npos);

  control::Response history = Call("history");
  ASSERT_EQ(history.result, control::ResultCode::kSuccess) << history.text;
  EXPECT_EQ(history.arguments["current"], 2);
  ASSERT_EQ(history.arguments["generations"].size(), 2u);
  EXPECT_EQ(history.arguments["generations"][0]["applied_by"], "start");
  EXPECT_EQ(history.arguments["generations"][1]["applied_by"], "uid " + std::to_string(::getuid()));
  EXPECT_TRUE(history.arguments["generations"][1]["current"].get<bool>());
  EXPECT_TRUE(fs::exists(dir_ + "/state/generations/2/partitions.conf"));
}

TEST_F(ConfigApplyDaemonTest, InvalidFileChangesNothing) {
  std::string before = Partitions();
  WriteConfig("no_such_key: 1\n");
  control::Response reply = Call("reload", {{"wait", true}});
  EXPECT_EQ(reply.result, control::ResultCode::kError);
  EXPECT_EQ(Partitions(), before);
  EXPECT_EQ(Call("history").arguments["current"], 1);
}

TEST_F(ConfigApplyDaemonTest, RollbackRestoresThePreviousFilesAsANewGeneration) {
  std::string original = Partitions();
  WriteConfig(kTenantPartition);
  ASSERT_EQ(Call("reload", {{"wait", true}}).result, control::ResultCode::kSuccess);
  control::Response reply = Call("rollback", {{"wait", true}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.arguments["rolled_back_to"], 1);
  EXPECT_EQ(reply.arguments["generation"], 3);
  EXPECT_EQ(Partitions(), original);
  json history = Call("history").arguments;
  EXPECT_EQ(history["generations"][2]["applied_by"], "rollback by uid " + std::to_string(::getuid()));
  EXPECT_EQ(history["generations"][2]["hash"], history["generations"][0]["hash"]);
}

TEST_F(ConfigApplyDaemonTest, PartitionsOpenSmRefusesAreRolledBackAutomatically) {
  std::string original = Partitions();
  WriteConfig("  - name: BROKEN\n    pkey: 0x0011\n    members:\n      - { ports: ALL_CAS, membership: limited }\n");
  control::Response reply = Call("reload", {{"wait", true}});
  EXPECT_EQ(reply.result, control::ResultCode::kError) << reply.text;
  EXPECT_EQ(reply.arguments["rolled_back"], true) << reply.text;
  EXPECT_EQ(reply.arguments["rolled_back_to"], 1);
  EXPECT_EQ(reply.arguments["verification"]["state"], "failed");
  EXPECT_NE(reply.text.find("rolled back to generation 1"), std::string::npos) << reply.text;
  EXPECT_EQ(Partitions(), original);
  json history = Call("history").arguments;
  ASSERT_EQ(history["generations"].size(), 3u);
  EXPECT_EQ(history["generations"][1]["verification"], "failed");
  EXPECT_EQ(history["generations"][2]["applied_by"], "auto-rollback");
  EXPECT_EQ(history["current"], 3);
}

TEST_F(ConfigApplyDaemonTest, TablesThatStayWrongAreSweptAgainThenRolledBack) {
  // The SM's port should join 0x0010 as a full member; the fabric shows it
  // limited (what OpenSM 3.3.23 sometimes leaves until the next sweep), and
  // this fake fabric never changes.
  fabric_->SetPKeyTable(1, 1, {0xffff, 0x0010, 0, 0});
  WriteConfig("  - name: sm-net\n    pkey: 0x0010\n    members:\n"
              "      - { guid: 0x0002c903000000a1, membership: full }\n");
  control::Response reply = Call("reload", {{"wait", true}});
  EXPECT_EQ(reply.result, control::ResultCode::kError) << reply.text;
  EXPECT_EQ(reply.arguments["verification"]["state"], "failed") << reply.text;
  EXPECT_EQ(reply.arguments["verification"]["attempts"], 2) << "one more heavy sweep first";
  EXPECT_EQ(reply.arguments["rolled_back"], true);
  EXPECT_EQ(reply.arguments["rolled_back_to"], 1);
  EXPECT_NE(reply.text.find("expected full, is limited"), std::string::npos) << reply.text;
  // The rollback is verified too (and fails here, the table being stuck),
  // but never rolled back itself.
  EXPECT_EQ(reply.arguments["rollback"]["generation"], 3) << reply.text;
  EXPECT_EQ(reply.arguments["rollback"]["rolled_back"], false);
  EXPECT_EQ(Call("history").arguments["current"], 3);
}

TEST_F(ConfigApplyDaemonTest, VerifiedWhenTheFabricHoldsTheTables) {
  WriteConfig(kTenantPartition);
  control::Response reply = Call("reload", {{"wait", true}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_EQ(reply.arguments["verification"]["state"], "verified") << reply.text;
  EXPECT_EQ(reply.arguments["verification"]["checked"], 1);
  EXPECT_NE(reply.text.find("generation 2 applied; verified 1/1 ports"), std::string::npos) << reply.text;
}

TEST_F(ConfigApplyDaemonTest, PlanComparesAFileWithTheAppliedGeneration) {
  std::string yaml = ReadWholeFile(dir_ + "/smsupd.yaml").value() + kTenantPartition;
  control::Response reply = Call("plan", {{"yaml", yaml}, {"file", "new.yaml"}});
  ASSERT_EQ(reply.result, control::ResultCode::kSuccess) << reply.text;
  EXPECT_TRUE(reply.arguments["changed"].get<bool>());
  EXPECT_TRUE(reply.arguments["valid"].get<bool>());
  control::Response same = Call("plan");
  EXPECT_FALSE(same.arguments["changed"].get<bool>()) << same.text;
  control::Response invalid = Call("plan", {{"yaml", "version: 1\nbogus: 2\n"}});
  EXPECT_EQ(invalid.result, control::ResultCode::kError);
  EXPECT_EQ(invalid.arguments["valid"], false);
}

// plan is open to the control group, and the daemon runs as root: its
// "file" made the daemon open any path (a FIFO hung the event loop; the
// lines of /etc/shadow came back as "unknown key" diagnostics), and a text
// could name any key file (sm_key_file, m_key_file, sa_key_file) for it to
// read.
TEST_F(ConfigApplyDaemonTest, PlanNeverOpensAPathACallerGives) {
  control::Response by_path = Call("plan", {{"file", "/etc/shadow"}});
  EXPECT_EQ(by_path.result, control::ResultCode::kBadRequest) << by_path.text;
  EXPECT_EQ(by_path.text.find("root:"), std::string::npos) << by_path.text;

  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string yaml = ReadWholeFile(dir_ + "/smsupd.yaml").value();
  yaml.replace(yaml.find("  role: master\n"), 15,
               "  role: master\n  sm_key_file: " + fifo + "\n  m_key_file: " + fifo + "\n  sa_key_file: " + fifo + "\n");
  auto started = std::chrono::steady_clock::now();
  control::Response plan = Call("plan", {{"yaml", yaml}, {"file", "new.yaml"}});
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s) << "the daemon opened the FIFO";
  EXPECT_EQ(plan.result, control::ResultCode::kSuccess) << plan.text;
  EXPECT_TRUE(Call("status").ok()) << "the daemon stopped answering";
}

// smctl plan sends the text of a large file (it sent the path, for the
// daemon to open, above 60 KiB); validating and planning it happen off the
// event loop.
TEST_F(ConfigApplyDaemonTest, PlanOfALargeTextWorks) {
  std::string yaml = ReadWholeFile(dir_ + "/smsupd.yaml").value();
  std::string hosts = "hosts:\n";
  for (int i = 0; i < 4000; ++i) {
    char line[96];
    std::snprintf(line, sizeof line, "  node%05d: [0x0002c90301%06x, 0x0002c90302%06x]\n", i, i, i);
    hosts += line;
  }
  yaml.replace(yaml.find("partitions:"), 0, hosts);
  ASSERT_GT(yaml.size(), control::kMaxRequestBytes * 2);
  control::Response plan = Call("plan", {{"yaml", yaml}, {"file", "big.yaml"}});
  ASSERT_EQ(plan.result, control::ResultCode::kSuccess) << plan.text.substr(0, 400);
  EXPECT_TRUE(plan.arguments["changed"].get<bool>());
}

}  // namespace
}  // namespace smsupd
