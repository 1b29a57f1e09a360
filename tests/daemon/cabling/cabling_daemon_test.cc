// `cabling` in the whole daemon on the fake fabric, through smctl's code:
// registered and answered over the socket, the "nothing declared" answer
// (exit 0), the export on stdout and in a file smctl writes, and the
// arguments checked before anything is walked. The simulated-fabric test is
// cabling_integration_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <sstream>
#include <thread>

#include "common/atomic_file.h"
#include "config/cabling_csv.h"
#include "daemon/daemon.h"
#include "smctl/commands.h"
#include "smctl/control_client.h"
#include "tests/daemon/cabling/model_fabric.h"
#include "tests/daemon/fabric/fake_fabric.h"
#include "tests/daemon/in_process_daemon.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using testing_cabling::kLeaf;
using testing_cabling::ModelFabric;

constexpr Guid kSmPort = 0x0002c903000000a1;
constexpr Guid kSmNode = 0x0002c903000000a0, kGpu = testing_cabling::kGpu01;

class CablingDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cabling-daemon-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    in_process::WriteIdleOpenSm(dir_);
    std::string text = "version: 1\nnode: test\nsm:\n  role: master\n  port_guid: 0x0002c903000000a1\n"
                       "  opensm:\n    binary: " + dir_ + "/fake-opensm\n"
                       "state_dir: " + dir_ + "/state\ncontrol:\n  socket: " + dir_ + "/run/sock\n"
                       "hosts:\n  gpu01: [0x0002c903000000b1]\n"
                       "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n"
                       "      - { ports: ALL, membership: full }\n";
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/smsupd.yaml", text));
    ModelFabric model;
    model.Switch(kLeaf, "leaf01", 4);
    model.Host(kSmNode, "sm01");
    model.Host(kGpu, "gpu01 mlx5_0");
    model.Cable(kLeaf, 1, kSmNode, 1);
    model.Cable(kLeaf, 2, kGpu, 1);
    fabric_ = std::make_shared<FakeFabric>();
    fabric_->SetLocalPort({"fake0", 1, kSmPort, kPortStateActive, 1, 1});
    fabric_->AddSm(1, {kSmPort, 0, 0, 15, SmState::kMaster});
    fabric_->SetPortInfo(1, PortInfo{1, 1, kPortStateActive, 5, 0, kCapabilityIsSm, 1, kSmPort});
    fabric_->SetDiscoveredPorts({{kSmPort, kSmNode, NodeType::kCa, 1, 1, "sm01", true}});
    fabric_->SetPKeyTable(1, 1, {0xffff});
    fabric_->SetTopology(model.Build());
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
  int Smctl(bool json_output, bool export_csv, const std::string& output, std::string* out, std::string* err) {
    smctl::GlobalOptions options;
    options.socket = dir_ + "/run/sock";
    options.json = json_output;
    std::ostringstream out_stream, err_stream;
    control::CablingArguments args;
    args.export_csv = export_csv;
    int code = smctl::RunCabling(options, args, output, out_stream, err_stream);
    *out = out_stream.str();
    *err = err_stream.str();
    return code;
  }

  std::string dir_;
  std::shared_ptr<FakeFabric> fabric_;
  DaemonOptions options_;
  in_process::QuietNotifier notifier_;
  std::unique_ptr<Daemon> daemon_;
  std::future<int> exit_code_;
};

TEST_F(CablingDaemonTest, NothingDeclaredIsAnAnswerExit0) {
  std::string out, err;
  EXPECT_EQ(Smctl(false, false, "", &out, &err), 0) << err;
  EXPECT_EQ(out, "no cabling declared in " + dir_ +
                     "/smsupd.yaml; `smctl cabling --export` writes today's links as a start\n");
  EXPECT_EQ(Smctl(true, false, "", &out, &err), 0) << err;
  json envelope = json::parse(out);
  EXPECT_EQ(envelope["declared"], false);
  EXPECT_EQ(envelope["links"], 2);
  EXPECT_TRUE(envelope["differences"].empty());
}

TEST_F(CablingDaemonTest, TheExportGoesToStdoutOrToAFileSmctlWrites) {
  std::string out, err;
  ASSERT_EQ(Smctl(false, true, "", &out, &err), 0) << err;
  config::CablingParse parsed = config::ParseCablingCsv(out, "stdout");
  ASSERT_TRUE(parsed.ok()) << out;
  ASSERT_EQ(parsed.cables.size(), 2u);
  EXPECT_EQ(parsed.cables[0].a.device, "leaf01");
  EXPECT_EQ(parsed.cables[0].b.device, "sm01");
  EXPECT_EQ(parsed.cables[1].b.device, "gpu01") << "the inventory's name before the NodeDescription";
  EXPECT_EQ(parsed.cables[1].b.node_guid, kGpu);
  EXPECT_EQ(err, "smctl: cabling: 2 links exported\n");

  const std::string file = dir_ + "/export.csv";
  ASSERT_EQ(Smctl(true, true, file, &out, &err), 0) << err;
  json envelope = json::parse(out);
  EXPECT_EQ(envelope["output"], file);
  EXPECT_FALSE(envelope.contains("csv")) << "the CSV is in the file";
  Result<std::string> written = ReadWholeFile(file);
  ASSERT_TRUE(written.ok());
  EXPECT_EQ(config::ParseCablingCsv(*written, file).cables.size(), 2u);

  EXPECT_EQ(Smctl(false, true, dir_ + "/no-such-dir/export.csv", &out, &err), 1);
  EXPECT_NE(err.find("smctl: cabling:"), std::string::npos) << err;
}

TEST_F(CablingDaemonTest, ArgumentsAreCheckedBeforeAnyWalk) {
  EXPECT_EQ(Call("cabling", {{"file", "/etc/shadow"}}).result, control::ResultCode::kBadRequest);
  EXPECT_EQ(Call("cabling", {{"export", "yes"}}).result, control::ResultCode::kBadRequest);
  EXPECT_EQ(fabric_->topology_walks(), 0);
}

}  // namespace
}  // namespace smsupd
