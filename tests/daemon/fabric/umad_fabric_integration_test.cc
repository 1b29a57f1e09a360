// UmadFabric and MadWorker against a real ibsim with two real OpenSMs
// (priorities 15 and 5). fabric_probe runs smsupd's own Fabric calls on an
// HCA of the simulated fabric; every answer is compared with the test bed's
// ground-truth MAD queries and with the topology.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;

// Generous: CI machines are slow and shared; a healthy run takes seconds.
constexpr milliseconds kSweepDeadline(60000);
constexpr milliseconds kProbeDeadline(30000);
// The HCA the fabric_probe runs on: neither SM node nor the test bed's probe.
constexpr char kProbeNode[] = "H2_1";

class UmadFabricIntegrationTest : public FabricTest {
 protected:
  // The master's OpenSM (15) starts first and the standby's (5) once the
  // master is MASTER, as the daemon will run them (docs/opensm-behaviour.md "Start-up races: dual
  // master and no master": the reverse order leaves a new master that never finishes its sweep).
  void StartTwoSms() {
    FabricOptions options;
    options.name = std::string("f-") + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    auto started = SimulatedFabric::Start(MakeTwoSwitchTopology(), options);
    ASSERT_TRUE(started.ok()) << started.error().message;
    fabric_ = std::move(*started);
    const auto& names = fabric_->topology().management_nodes();
    master_node_ = names[0];
    standby_node_ = names[1];
    ASSERT_NO_FATAL_FAILURE(StartSm(master_node_, 15, master_, master_lid_));
    ASSERT_TRUE(WaitForSmState(probe(), master_lid_, SmStateValue::kMaster, kSweepDeadline).ok());
    ASSERT_NO_FATAL_FAILURE(StartSm(standby_node_, 5, standby_, standby_lid_));
    auto standby = WaitForSmState(probe(), standby_lid_, SmStateValue::kStandby, kSweepDeadline);
    ASSERT_TRUE(standby.ok()) << standby.error().message;
    ASSERT_TRUE(WaitForEveryCaSmLid(probe(), fabric().topology(), master_lid_, kSweepDeadline).ok());
  }

  // OpenSM 3.3.23's SA lists a remote SM only if the master saw it in a
  // sweep that completed; on ibsim a standby that starts after the master is
  // missing from SMInfoRecord tables for minutes. A master (re)started while
  // the standby runs finds it in its first sweep. The standby keeps polling
  // the same master GUID, so it stays STANDBY.
  void RestartMaster() {
    ASSERT_TRUE(master_->process->Signal(SIGKILL).ok());
    ASSERT_TRUE(master_->process->Wait(milliseconds(5000)).ok());
    // ibsim keeps a killed client attached until a packet for it cannot be
    // delivered, and then clears its port's IsSM bit, even when a newer SM
    // on that port has set it since (ibsim.c, disconnect_client). An SMInfo
    // Get to the dead SM's LID, before the new one starts, has ibsim drop
    // the dead client now; it is not answered.
    EXPECT_FALSE(probe().SmInfo(master_lid_).ok()) << "the killed SM answered";
    ASSERT_NO_FATAL_FAILURE(StartSm(master_node_, 15, master_, master_lid_));
    auto master = WaitForSmState(probe(), master_lid_, SmStateValue::kMaster, kSweepDeadline);
    ASSERT_TRUE(master.ok()) << master.error().message;
    ASSERT_TRUE(WaitForSmState(probe(), standby_lid_, SmStateValue::kStandby, kSweepDeadline).ok());
    ASSERT_TRUE(WaitForEveryCaSmLid(probe(), fabric().topology(), master_lid_, kSweepDeadline).ok());
  }

  void StartSm(const std::string& node, int priority, NodeProcess*& process, uint16_t& lid) {
    OpenSmSpec spec;
    spec.node = node;
    spec.priority = priority;
    auto started = StartOpenSm(fabric(), spec);
    ASSERT_TRUE(started.ok()) << started.error().message;
    process = *started;
    auto assigned = WaitForCaLid(probe(), fabric().topology(), node, kSweepDeadline);
    ASSERT_TRUE(assigned.ok()) << assigned.error().message;
    lid = *assigned;
  }

  // Runs fabric_probe on kProbeNode; returns its answers by command.
  std::map<std::string, Json> RunProbe(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {FABRIC_PROBE_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    auto process = fabric().RunOnNode(kProbeNode, argv, "fabric-probe");
    EXPECT_TRUE(process.ok()) << process.error().message;
    if (!process.ok()) return {};
    auto exited = (*process)->process->Wait(kProbeDeadline);
    EXPECT_TRUE(exited.ok()) << "fabric_probe did not finish";
    std::map<std::string, Json> answers;
    std::ifstream output((*process)->output_path);
    std::string text;
    for (std::string line; std::getline(output, line);) {
      text += line + "\n";
      if (line.empty() || line[0] != '{') continue;  // umad2sim's own chatter
      Json answer = Json::parse(line);
      answers[answer.at("command").get<std::string>()] = answer;
    }
    // Every TARGET:ARGS command answers, ok or not: one missing is the
    // probe's own end (its exit status and output say how).
    for (const std::string& arg : args)
      if (arg.find(':') != std::string::npos && !answers.contains(arg))
        ADD_FAILURE() << "fabric_probe gave no answer to " << arg << " ("
                      << (exited.ok() ? exited->Describe() : exited.error().message)
                      << "), output:\n"
                      << text;
    return answers;
  }

  // A stopped OpenSM answers the SMInfo Gets it was sent once it runs
  // again: late. ibsim hands those answers to whichever process is on the
  // sender's node by then, and umad2sim's receiver thread crashes a process
  // that gets a MAD while it starts (before any agent is registered: a
  // simulator fault; the kernel drops such an answer). Two answers in a row
  // to the test bed's own Gets come after the late ones: OpenSM dispatches
  // what it reads in order, and ibsim routes in order.
  void WaitOutLateAnswers(uint16_t lid) {
    int answered = 0;
    Status s = WaitFor(
        "two SMInfo answers in a row from LID " + Lid(lid),
        [&] {
          answered = probe().SmInfo(lid).ok() ? answered + 1 : 0;
          return answered >= 2;
        },
        kSweepDeadline, milliseconds(10));
    ASSERT_TRUE(s.ok()) << s.message();
  }

  std::string Guid(const std::string& node) { return FormatGuid(fabric().topology().Find(node)->PortGuid(1)); }
  std::string Lid(uint16_t lid) { return std::to_string(lid); }

  std::string master_node_, standby_node_;
  NodeProcess* master_ = nullptr;
  NodeProcess* standby_ = nullptr;
  uint16_t master_lid_ = 0;
  uint16_t standby_lid_ = 0;
};

void ExpectSmInfo(const Json& answer, const std::string& guid, int priority, const char* state) {
  if (answer.contains("ok")) {
    ASSERT_TRUE(answer["ok"].get<bool>()) << answer.dump();
  }
  const Json& info = answer.contains("sminfo") ? answer.at("sminfo") : answer;
  EXPECT_EQ(info.at("guid"), guid);
  EXPECT_EQ(info.at("priority"), priority);
  EXPECT_EQ(info.at("state"), state);
}

TEST_F(UmadFabricIntegrationTest, QueriesAgreeWithTheFabric) {
  ASSERT_NO_FATAL_FAILURE(StartTwoSms());
  ASSERT_NO_FATAL_FAILURE(RestartMaster());
  auto own_lid = WaitForCaLid(probe(), fabric().topology(), kProbeNode, kSweepDeadline);
  ASSERT_TRUE(own_lid.ok());
  std::string m = Lid(master_lid_), s = Lid(standby_lid_);
  auto answers =
      RunProbe({"local", "active-ports", "sminfo:" + m, "sminfo:" + s, "portinfo:" + m + ":0",
                "nodeinfo:" + m, "smrecords", "saprobe:" + m, "pkeys:" + m + ":1"});

  const Json& local = answers["local"];
  ASSERT_TRUE(local.value("ok", false)) << local.dump();
  EXPECT_EQ(local["portinfo"]["lid"], *own_lid);
  EXPECT_EQ(local["portinfo"]["sm_lid"], master_lid_);
  EXPECT_EQ(local["portinfo"]["port_state"], 4);
  EXPECT_EQ(local["portinfo"]["port_guid"], Guid(kProbeNode));
  ASSERT_EQ(answers["active-ports"]["ports"].size(), 1u) << answers["active-ports"].dump();
  EXPECT_EQ(answers["active-ports"]["ports"][0]["port_guid"], Guid(kProbeNode));

  ExpectSmInfo(answers["sminfo:" + m], Guid(master_node_), 15, "MASTER");
  ExpectSmInfo(answers["sminfo:" + s], Guid(standby_node_), 5, "STANDBY");

  auto truth = probe().PortInfo(master_lid_, 1);
  ASSERT_TRUE(truth.ok()) << truth.error().message;
  const Json& port = answers["portinfo:" + m + ":0"]["portinfo"];
  EXPECT_EQ(port["lid"], truth->lid);
  EXPECT_EQ(port["capability_mask"], truth->capability_mask);
  EXPECT_EQ(port["is_sm"], true);
  EXPECT_EQ(answers["nodeinfo:" + m]["nodeinfo"]["port_guid"], Guid(master_node_));

  // The master's SA answers once its first sweep is over.
  EXPECT_TRUE(answers["saprobe:" + m].value("ok", false)) << answers["saprobe:" + m].dump();

  const Json& records = answers["smrecords"]["records"];
  ASSERT_EQ(records.size(), 2u) << answers["smrecords"].dump();
  for (const Json& record : records) {
    bool is_master = record["lid"] == master_lid_;
    EXPECT_EQ(record["lid"], is_master ? master_lid_ : standby_lid_);
    ExpectSmInfo(record["sminfo"], Guid(is_master ? master_node_ : standby_node_), is_master ? 15 : 5,
                 is_master ? "MASTER" : "STANDBY");
  }

  // The whole table up to the port's partition capacity, empty slots
  // included; the same P_Keys and memberships as the test bed reads.
  auto pkeys = probe().PKeys(master_lid_, 1);
  ASSERT_TRUE(pkeys.ok()) << pkeys.error().message;
  auto raw = answers["pkeys:" + m + ":1"]["pkeys"].get<std::vector<uint16_t>>();
  EXPECT_EQ(raw.size(), answers["nodeinfo:" + m]["nodeinfo"]["partition_cap"].get<size_t>());
  std::vector<uint16_t> used;
  std::copy_if(raw.begin(), raw.end(), std::back_inserter(used), [](uint16_t key) { return key != 0; });
  EXPECT_EQ(ToPKeyTable(used), *pkeys);
}

TEST_F(UmadFabricIntegrationTest, SilentTargetsFailByTheMadTimeoutNotTheWatchdog) {
  ASSERT_NO_FATAL_FAILURE(StartTwoSms());
  // A stopped OpenSM gets its SMInfo MADs and never answers: the dropped-MAD
  // case. A LID nobody has is dropped by the simulator.
  ASSERT_TRUE(standby_->process->Signal(SIGSTOP).ok());
  auto answers = RunProbe({"--timeout-ms", "100", "--attempts", "2", "--deadline-ms", "5000",
                           "sminfo:" + Lid(standby_lid_), "sminfo:999", "sminfo:" + Lid(master_lid_)});
  ASSERT_TRUE(standby_->process->Signal(SIGCONT).ok());
  ASSERT_NO_FATAL_FAILURE(WaitOutLateAnswers(standby_lid_));  // before the next probe starts
  for (const std::string& silent : {"sminfo:" + Lid(standby_lid_), std::string("sminfo:999")}) {
    const Json& answer = answers[silent];
    EXPECT_FALSE(answer.value("ok", true)) << answer.dump();
    EXPECT_NE(answer.value("error", "").find("no response"), std::string::npos) << answer.dump();
  }
  // The late answers of the stopped SM do not confuse the next call.
  ExpectSmInfo(answers["sminfo:" + Lid(master_lid_)], Guid(master_node_), 15, "MASTER");

  // An SA that ignores the request (as OpenSM's does until its first sweep
  // as master is over): the probe fails within its one short try.
  ASSERT_TRUE(master_->process->Signal(SIGSTOP).ok());
  const std::string probe_sa = "saprobe:" + Lid(master_lid_);
  auto probe_answers = RunProbe({"--deadline-ms", "5000", probe_sa});
  ASSERT_TRUE(master_->process->Signal(SIGCONT).ok());
  const Json& silent_sa = probe_answers[probe_sa];
  EXPECT_FALSE(silent_sa.value("ok", true)) << silent_sa.dump();
  EXPECT_NE(silent_sa.value("error", "").find("no response"), std::string::npos)
      << silent_sa.dump();
}

TEST_F(UmadFabricIntegrationTest, HandoverAfterMasterKillMakesTheStandbyMaster) {
  ASSERT_NO_FATAL_FAILURE(StartTwoSms());
  ASSERT_TRUE(master_->process->Signal(SIGKILL).ok());
  ASSERT_TRUE(master_->process->Wait(milliseconds(5000)).ok());
  std::string s = Lid(standby_lid_);
  // GUID 0 is refused before anything is sent; then the real handover.
  auto answers = RunProbe({"handover:" + s + ":0x0:15", "sminfo:" + s,
                           "handover:" + s + ":" + Guid(master_node_) + ":15", "wait-master:" + s + ":20000",
                           "wait-smlid:" + s + ":20000"});
  EXPECT_FALSE(answers["handover:" + s + ":0x0:15"].value("ok", true));
  ExpectSmInfo(answers["sminfo:" + s], Guid(standby_node_), 5, "STANDBY");
  const Json& sent = answers["handover:" + s + ":" + Guid(master_node_) + ":15"];
  ASSERT_TRUE(sent.value("ok", false)) << sent.dump();
  const Json& became = answers["wait-master:" + s + ":20000"];
  ExpectSmInfo(became, Guid(standby_node_), 5, "MASTER");
  RecordProperty("handover_to_master_us", std::to_string(became.value("waited_us", 0)));
  // This HCA is told the new SM LID once the new master has swept it.
  const Json& swept = answers["wait-smlid:" + s + ":20000"];
  EXPECT_TRUE(swept.value("ok", false)) << swept.dump();
  RecordProperty("handover_to_hca_sm_lid_us", std::to_string(swept.value("waited_us", 0)));
  // Completion is asserted on the fabric: every HCA points at the new master.
  Status all = WaitForEveryCaSmLid(probe(), fabric().topology(), standby_lid_, kSweepDeadline);
  EXPECT_TRUE(all.ok()) << all.message();
}

// umad2sim blocks a process's first umad call while no simulator listens on
// its socket: the MAD thread's watchdog must still answer every call by its
// deadline, and the program must still exit.
TEST(UmadFabricWithoutSimulatorTest, WatchdogAnswersEveryCall) {
  char dir[] = "/tmp/smsupd-f-nosim-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  struct RemoveDir {
    const char* path;
    ~RemoveDir() { std::filesystem::remove_all(path); }
  } remove_dir{dir};
  ChildSpec spec;
  spec.argv = {FABRIC_PROBE_PATH, "--deadline-ms", "500", "local", "sminfo:1"};
  // ASAN_OPTIONS as the test bed sets them for sanitizer builds: umad2sim
  // is preloaded ahead of the ASan runtime.
  const char* asan = std::getenv("ASAN_OPTIONS");
  spec.env = {{"LD_PRELOAD", kUmad2SimLibrary}, {"SIM_HOST", "H1_1"},
              {"IBSIM_SOCKNAME", "f-nobody-" + std::filesystem::path(dir).filename().string()},
              {"ASAN_OPTIONS", std::string(asan ? asan : "") + ":verify_asan_link_order=0:detect_leaks=0"}};
  spec.cwd = dir;  // umad2sim writes ./sys-<pid> here
  spec.output_path = std::string(dir) + "/output.log";
  auto child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto exited = (*child)->Wait(kProbeDeadline);
  ASSERT_TRUE(exited.ok()) << "fabric_probe hung";
  EXPECT_FALSE(exited->signaled);
  EXPECT_EQ(exited->code, 1);
  std::ifstream output(spec.output_path);
  int deadline_errors = 0;
  for (std::string line; std::getline(output, line);) {
    if (line.empty() || line[0] != '{') continue;
    Json answer = Json::parse(line);
    EXPECT_FALSE(answer.value("ok", true));
    if (answer.value("error", "").find("deadline") != std::string::npos) ++deadline_errors;
  }
  EXPECT_EQ(deadline_errors, 2);
}

}  // namespace
}  // namespace smsupd::testbed
