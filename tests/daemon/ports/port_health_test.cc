// The checks behind `smctl ports --problems` on model read-outs: what needs
// a person is reported by name, worst first, and clears when fixed.
#include "daemon/ports/port_health.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

using namespace std::chrono_literals;

constexpr Guid kSwitch = 0x100;
constexpr Guid kGpu01 = 0x200, kGpu02 = 0x300, kGpu03 = 0x400;
constexpr Guid kLocalPort = kGpu01 + 1;

PortInfo Up(int width = 2, int speed = 4) {
  PortInfo info;
  info.port_state = kPortStateActive;
  info.phys_state = 5;
  info.sm_lid = 1;
  info.link_width_active = width;
  info.link_width_enabled = width;
  info.link_width_supported = 1 | 2 | 8;  // 1x, 4x, 12x
  info.link_speed_active = speed;
  info.link_speed_enabled = speed;
  info.link_speed_supported = 7;  // SDR, DDR, QDR
  return info;
}

// One switch (LID 10) with gpu01..03 on ports 1..3; gpu01 (LID 1) is this node.
class PortHealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.hosts["gpu01"] = {kGpu01 + 1};
    config_.hosts["gpu02"] = {kGpu02 + 1};
    config_.hosts["gpu03"] = {kGpu03 + 1};
    config::DeclaredCable cable;
    cable.a = {"leaf01", kSwitch, 1};
    cable.b = {"gpu01", std::nullopt, 1};
    config_.cabling.cables.push_back(cable);
    Build();
  }

  void Build(int gpu03_width = 2) {
    FabricTopology& t = readout_.topology;
    t = {};
    t.nodes = {{kSwitch, NodeType::kSwitch, 8, "MF0;switch", 1},
               {kGpu01, NodeType::kCa, 1, "gpu01 mlx5_0", 0},
               {kGpu02, NodeType::kCa, 1, "gpu02 mlx5_0", 2},
               {kGpu03, NodeType::kCa, 1, "gpu03 mlx5_0", 2}};
    Guid cas[] = {kGpu01, kGpu02, kGpu03};
    t.ports.push_back({kSwitch, 0, 10, Up(), 0, 0});
    for (int i = 0; i < 3; ++i) {
      PortInfo info = Up(i == 2 ? gpu03_width : 2);
      t.ports.push_back({kSwitch, i + 1, 10, info, cas[i], 1});
      PortInfo ca = info;
      ca.lid = static_cast<uint16_t>(i + 1);
      t.ports.push_back({cas[i], 1, static_cast<uint16_t>(i + 1), ca, kSwitch, i + 1});
      t.end_ports.push_back({cas[i] + 1, cas[i], NodeType::kCa, 1, static_cast<uint16_t>(i + 1), "", false, 2});
    }
    PortInfo free_port;
    free_port.port_state = kPortStateDown;
    free_port.phys_state = 2;
    t.ports.push_back({kSwitch, 4, 10, free_port, 0, 0});
    readout_.local_port_guid = kLocalPort;
  }

  TopologyPort& At(Guid node, int port) {
    for (TopologyPort& p : readout_.topology.ports)
      if (p.node_guid == node && p.port_num == port) return p;
    throw std::runtime_error("no such port");
  }

  PortsReport Evaluate(std::chrono::seconds at = 0s) {
    readout_.at = SteadyTime{} + 1h + at;
    PortNames names(config_, readout_.topology);
    return EvaluatePorts(readout_, names, memory_, rules_);
  }

  static std::vector<std::string> Kinds(const PortsReport& report) {
    std::vector<std::string> kinds;
    for (const PortProblem& p : report.problems) kinds.push_back(PortProblemName(p.kind));
    return kinds;
  }

  config::Config config_;
  PortsReadout readout_;
  PortsMemory memory_;
  PortsRules rules_;
};

TEST_F(PortHealthTest, AHealthyFabricHasNoProblemAndEveryPortByName) {
  PortsReport report = Evaluate();
  EXPECT_TRUE(report.problems.empty()) << report.problems.front().text;
  EXPECT_EQ(report.master_lid, 1);
  ASSERT_EQ(report.ports.size(), 8u);
  EXPECT_EQ(report.ports[0]["name"], "leaf01") << "the cabling names the switch";
  EXPECT_EQ(report.ports[1]["name"], "leaf01 port 1");
  EXPECT_EQ(report.ports[1]["peer"]["name"], "gpu01");
  EXPECT_EQ(report.ports[1]["rate"], "4xQDR");
  EXPECT_EQ(report.ports[1]["expected_rate"], "4xQDR") << "12x-capable ends, but the fabric runs 4x links";
  EXPECT_EQ(report.ports[2]["name"], "gpu01");
  EXPECT_EQ(report.ports[2]["node_description"], "gpu01 mlx5_0");
  EXPECT_EQ(report.ports[7]["state"], "Down");
  EXPECT_TRUE(report.ports[7]["problems"].empty()) << "a port never linked is not a problem";
}

TEST_F(PortHealthTest, ALinkBelowTheRateBothEndsSupportIsOneProblemByName) {
  Build(/*gpu03_width=*/1);
  PortsReport report = Evaluate();
  ASSERT_EQ(Kinds(report), std::vector<std::string>{"below-rate"});
  EXPECT_EQ(report.problems[0].text,
            "link leaf01 port 3 - gpu03 runs at 1xQDR (8.0 Gb/s); its kind of link runs at 4xQDR (32.0 Gb/s) in "
            "this fabric, and both ends support 12xQDR");
  // Ends that support no more than 4x: the rate both support is the bar.
  for (TopologyPort& port : readout_.topology.ports) port.info.link_width_supported = 1 | 2;
  PortsReport capped = Evaluate(1s);
  ASSERT_EQ(Kinds(capped), std::vector<std::string>{"below-rate"});
  EXPECT_EQ(capped.problems[0].text,
            "link leaf01 port 3 - gpu03 runs at 1xQDR (8.0 Gb/s); both ends support 4xQDR (32.0 Gb/s)");
  EXPECT_NE(report.problems[0].advice.find("cable"), std::string::npos);
}

TEST_F(PortHealthTest, APortThatWasLinkedAndIsDownIsReportedUntilItComesBack) {
  Evaluate();
  At(kSwitch, 2).info.port_state = kPortStateDown;
  At(kSwitch, 2).info.phys_state = 2;
  At(kSwitch, 2).peer_node = 0;
  PortsReport down = Evaluate(10s);
  ASSERT_EQ(Kinds(down), std::vector<std::string>{"port-down"});
  EXPECT_EQ(down.problems[0].text, "leaf01 port 2 (0x0000000000000100) is Down (Polling); it was linked to gpu02");
  Build();
  EXPECT_TRUE(Evaluate(20s).problems.empty());
}

TEST_F(PortHealthTest, RisingErrorCountersAreHeldThenClearedByAResetOrTime) {
  PortCounters clean;
  readout_.counters.insert_or_assign(PortKey{kGpu02, 1}, Result<PortCounters>(clean));
  EXPECT_TRUE(Evaluate().problems.empty()) << "the first read has nothing to compare with";
  PortCounters bad = clean;
  bad.symbol_errors = 30;
  bad.link_error_recovery = 2;
  readout_.counters.insert_or_assign(PortKey{kGpu02, 1}, Result<PortCounters>(bad));
  PortsReport rising = Evaluate(60s);
  ASSERT_EQ(Kinds(rising), std::vector<std::string>{"errors"});
  EXPECT_EQ(rising.problems[0].text,
            "gpu02: error counters rising: SymbolErrorCounter +30 (30.0/min), LinkErrorRecoveryCounter +2 (2.0/min)");
  EXPECT_EQ(rising.ports[4]["rates_per_minute"]["SymbolErrorCounter"], 30.0);
  PortsReport held = Evaluate(90s);
  ASSERT_EQ(Kinds(held), std::vector<std::string>{"errors"}) << "held after the rise";
  EXPECT_NE(held.problems[0].text.find("rose recently"), std::string::npos);
  readout_.counters.insert_or_assign(PortKey{kGpu02, 1}, Result<PortCounters>(clean));
  EXPECT_TRUE(Evaluate(100s).problems.empty()) << "counters reset: cleared at once";
  readout_.counters.insert_or_assign(PortKey{kGpu02, 1}, Result<PortCounters>(bad));
  EXPECT_EQ(Kinds(Evaluate(110s)), std::vector<std::string>{"errors"});
  EXPECT_TRUE(Evaluate(110s + rules_.error_hold).problems.empty()) << "quiet for error_hold";
}

TEST_F(PortHealthTest, PortsNotReadAreListedNeverHealthy) {
  readout_.counters.insert_or_assign(PortKey{kGpu03, 1}, Result<PortCounters>(Error{"PortCounters at LID 3 port 1: no response"}));
  readout_.topology.unread = {"0x0000000000000500 port 0: the node behind it did not answer NodeInfo"};
  readout_.topology.unread_total = 1;
  PortsReport report = Evaluate();
  EXPECT_EQ(report.unread_total, 2);
  ASSERT_EQ(report.unread.size(), 2u);
  EXPECT_EQ(report.unread[1], "gpu03: PortCounters not read: PortCounters at LID 3 port 1: no response");
  EXPECT_EQ(report.ports[6]["counters"], nullptr);
  EXPECT_EQ(report.ports[6]["counters_error"], "PortCounters at LID 3 port 1: no response");
}

TEST_F(PortHealthTest, WrongSmAndStuckInitAreReportedWorstFirst) {
  At(kGpu03, 1).info.sm_lid = 7;
  At(kGpu02, 1).info.port_state = kPortStateInit;
  At(kSwitch, 2).info.port_state = kPortStateInit;
  EXPECT_EQ(Kinds(Evaluate()), std::vector<std::string>{"wrong-sm"}) << "Init is normal for a moment";
  PortsReport later = Evaluate(rules_.stuck_after);
  ASSERT_EQ(Kinds(later), (std::vector<std::string>{"wrong-sm", "not-active", "not-active"}));
  EXPECT_EQ(later.problems[0].text, "gpu03 follows the SM at LID 7, not the master at LID 1");
  EXPECT_EQ(later.problems[1].text.rfind("leaf01 port 2 has been Init for 30 s", 0), 0u) << later.problems[1].text;
}

TEST_F(PortHealthTest, TheReplyKeepsOnlyThePortsAskedFor) {
  Build(1);
  PortsReport report = Evaluate();
  std::vector<PortKey> only = {{kGpu02, 1}};
  nlohmann::json reply = PortsReply(report, &only, false);
  ASSERT_EQ(reply["ports"].size(), 1u);
  EXPECT_EQ(reply["ports"][0]["name"], "gpu02");
  EXPECT_TRUE(reply["problems"].empty());
  nlohmann::json problems = PortsReply(report, nullptr, true);
  EXPECT_TRUE(problems["ports"].empty());
  EXPECT_EQ(problems["problems_total"], 1);
  EXPECT_EQ(problems["ports_total"], 8);
}

}  // namespace
}  // namespace smsupd
