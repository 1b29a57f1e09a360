// VerifyPKeys on the fake fabric: what an operator is told after an apply
// (verified N/N, each mismatch in words, unreachable ports, OpenSM's
// fallback to the default partition) and which ports get read.
#include "daemon/pkey/pkey_verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/validator.h"
#include "tests/daemon/fabric/fake_fabric.h"

namespace smsupd {
namespace {

constexpr Guid kSmPort = 0x0002c90300000101;
constexpr Guid kH1 = 0x0002c90300000201;
constexpr Guid kH2 = 0x0002c90300000301;
constexpr Guid kH3 = 0x0002c90300000401;
constexpr Guid kSwitch = 0x0002c90200000010;

// mgmt (the SM's port), h1, h2 named; h3 only through a guid member;
// c1..c6 and one switch reached by keywords alone.
constexpr char kYaml[] = R"(version: 1
sm:
  role: master
hosts:
  mgmt: 0x0002c90300000101
  h1: 0x0002c90300000201
  h2: 0x0002c90300000301
partitions:
  - name: Default
    pkey: 0x7fff
    members:
      - { ports: ALL, membership: limited }
      - { ports: SELF, membership: full }
  - name: storage
    pkey: 0x0001
    members:
      - { host: h1, membership: full }
      - { host: h2, membership: limited }
  - name: compute
    pkey: 0x0002
    members:
      - { guid: 0x0002c90300000401, membership: full }
      - { ports: ALL_SWITCHES, membership: limited }
)";

class PKeyVerifierTest : public ::testing::Test {
 protected:
  PKeyVerifierTest() {
    auto outcome = config::ValidateText(kYaml, "test.yaml");
    EXPECT_TRUE(outcome.config.has_value());
    if (outcome.config) config_ = *outcome.config;
    LocalPort local;
    local.port_guid = kSmPort;
    local.lid = 1;
    local.port_state = kPortStateActive;
    fabric_.SetLocalPort(local);
    Add(kSmPort, 1, NodeType::kCa, {0xffff});
    Add(kH1, 2, NodeType::kCa, {0x7fff, 0x8001});
    Add(kH2, 3, NodeType::kCa, {0x7fff, 0x0001});
    Add(kH3, 4, NodeType::kCa, {0x7fff, 0x8002});
    for (uint16_t i = 0; i < 6; ++i) Add(0x0002c90300000501 + 0x100 * i, 5 + i, NodeType::kCa, {0x7fff});
    Add(kSwitch, 20, NodeType::kSwitch, {0x7fff, 0x0002});
  }

  void Add(Guid guid, uint16_t lid, NodeType type, std::vector<uint16_t> table) {
    DiscoveredPort port;
    port.port_guid = guid;
    port.node_guid = type == NodeType::kSwitch ? guid : guid - 1;
    port.node_type = type;
    port.port_num = type == NodeType::kSwitch ? 0 : 1;
    port.lid = lid;
    port.node_description = type == NodeType::kSwitch ? "L1" : "node-" + std::to_string(lid);
    ports_.push_back(port);
    SetTable(lid, port.port_num, table);
  }

  // A table as GetPKeyTable returns it: up to the port's capacity (8 here),
  // with empty slots, in any order.
  void SetTable(uint16_t lid, int port, std::vector<uint16_t> entries) {
    entries.insert(entries.begin(), 0x0000);
    entries.resize(8, 0x0000);
    fabric_.SetPKeyTable(lid, port, entries);
  }

  PKeyVerification Verify(int sample_ports = 32) {
    VerifyOptions options;
    options.sample_ports = sample_ports;
    options.local_sm_port = kSmPort;
    return VerifyPKeys(fabric_, config_, ports_, options);
  }

  config::Config config_;
  FakeFabric fabric_;
  std::vector<DiscoveredPort> ports_;
};

TEST_F(PKeyVerifierTest, MatchingFabricIsVerified) {
  PKeyVerification result = Verify();
  EXPECT_TRUE(result.ok()) << result.ToJson().dump(2);
  EXPECT_EQ(result.checked, 11);
  EXPECT_EQ(result.expected, 11);
  EXPECT_EQ(result.Summary(), "verified 11/11 ports");
  EXPECT_FALSE(result.default_fallback);
  EXPECT_EQ(result.ToJson()["summary"], "verified 11/11 ports");
}

TEST_F(PKeyVerifierTest, MissingPKeyIsAMismatchNamedByHost) {
  SetTable(2, 1, {0x7fff});
  PKeyVerification result = Verify();
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(result.mismatches.size(), 1u);
  EXPECT_EQ(result.mismatches[0].host, "h1");
  EXPECT_EQ(result.mismatches[0].Describe(), "h1 0x0002c90300000201: 0x0001 missing");
  EXPECT_EQ(result.Summary(), "verification failed: 1 mismatch");
}

TEST_F(PKeyVerifierTest, FullVersusLimitedIsAMismatch) {
  SetTable(3, 1, {0x7fff, 0x8001});  // h2 should be limited
  PKeyVerification result = Verify();
  ASSERT_EQ(result.mismatches.size(), 1u);
  EXPECT_EQ(result.mismatches[0].Describe(), "h2 0x0002c90300000301: 0x0001 expected limited, is full");
  EXPECT_EQ(result.ToJson()["mismatches"][0]["actual"]["0x0001"], "full");
  EXPECT_EQ(result.ToJson()["mismatches"][0]["expected"]["0x0001"], "limited");
}

TEST_F(PKeyVerifierTest, ExtraPKeyIsAMismatch) {
  SetTable(4, 1, {0x7fff, 0x8002, 0x8005});
  PKeyVerification result = Verify();
  ASSERT_EQ(result.mismatches.size(), 1u);
  // h3 is named by a guid member only: no host name, its node description.
  EXPECT_EQ(result.mismatches[0].Describe(), "node-4 0x0002c90300000401: 0x0005 unexpected (full)");
}

TEST_F(PKeyVerifierTest, BothNeedsBothEntries) {
  SetTable(3, 1, {0x7fff, 0x0001, 0x8001});  // h2 has both, config says limited
  PKeyVerification result = Verify();
  ASSERT_EQ(result.mismatches.size(), 1u);
  EXPECT_EQ(result.ToJson()["mismatches"][0]["actual"]["0x0001"], "both");
}

TEST_F(PKeyVerifierTest, UnreachablePortFailsTheVerification) {
  fabric_.RemoveNode(3);
  PKeyVerification result = Verify();
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.checked, 10);
  ASSERT_EQ(result.unreachable.size(), 1u);
  EXPECT_EQ(result.unreachable[0].rfind("h2 0x0002c90300000301: ", 0), 0u) << result.unreachable[0];
  EXPECT_EQ(result.Summary(), "verification failed: 1 unreachable port");
}

TEST_F(PKeyVerifierTest, PortWithoutLidIsUnreachable) {
  ports_[1].lid = 0;  // h1: the SM has not given it a LID
  PKeyVerification result = Verify();
  ASSERT_EQ(result.unreachable.size(), 1u);
  EXPECT_NE(result.unreachable[0].find("no LID"), std::string::npos);
}

TEST_F(PKeyVerifierTest, NamedPortNotOnTheFabricIsReportedNotFailed) {
  ports_.erase(ports_.begin() + 1);  // h1 powered off
  PKeyVerification result = Verify();
  EXPECT_TRUE(result.ok()) << result.Summary();
  ASSERT_EQ(result.absent.size(), 1u);
  EXPECT_EQ(result.absent[0], "h1 0x0002c90300000201");
  EXPECT_EQ(result.Summary(), "verified 10/10 ports; 1 named port not on the fabric");
}

TEST_F(PKeyVerifierTest, OpenSmFallbackIsRecognised) {
  for (uint16_t lid : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) SetTable(lid, 1, {0xffff});
  SetTable(20, 0, {0xffff});
  PKeyVerification result = Verify();
  EXPECT_TRUE(result.default_fallback);
  EXPECT_FALSE(result.ok());
  EXPECT_NE(result.Summary().find("fell back to the default partition"), std::string::npos) << result.Summary();
}

TEST_F(PKeyVerifierTest, ConfigWithOnlyAFullDefaultIsNoFallback) {
  auto outcome = config::ValidateText(R"(version: 1
sm:
  role: master
partitions:
  - name: Default
    pkey: 0x7fff
    members:
      - { ports: ALL, membership: full }
)", "test.yaml");
  ASSERT_TRUE(outcome.config.has_value());
  config_ = *outcome.config;
  for (uint16_t lid : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) SetTable(lid, 1, {0xffff});
  SetTable(20, 0, {0xffff});
  PKeyVerification result = Verify();
  EXPECT_TRUE(result.ok()) << result.ToJson().dump(2);
  EXPECT_FALSE(result.default_fallback);
}

TEST_F(PKeyVerifierTest, NamedPortsFirstThenAnEvenSampleWithASwitch) {
  VerifyOptions options;
  options.local_sm_port = kSmPort;
  options.sample_ports = 2;
  std::vector<DiscoveredPort> chosen = ChoosePortsToVerify(config_, ports_, options);
  ASSERT_EQ(chosen.size(), 6u);  // mgmt, h1, h2, h3 + 2 sampled
  std::vector<Guid> named;
  for (size_t i = 0; i < 4; ++i) named.push_back(chosen[i].port_guid);
  EXPECT_EQ(named, (std::vector<Guid>{kSmPort, kH1, kH2, kH3}));
  // Candidates by GUID: switch, c1..c6. The sample spans them and keeps the switch.
  EXPECT_EQ(chosen[4].port_guid, kSwitch);
  EXPECT_EQ(chosen[5].port_guid, 0x0002c90300000501u);
  // Deterministic.
  std::vector<DiscoveredPort> again = ChoosePortsToVerify(config_, ports_, options);
  for (size_t i = 0; i < chosen.size(); ++i) EXPECT_EQ(again[i].port_guid, chosen[i].port_guid);
}

TEST_F(PKeyVerifierTest, SampleAlwaysHoldsASwitchPort) {
  // Move the switch to the far end of the GUID order so that an even
  // sample of one would miss it.
  ports_.back().port_guid = 0x0002c903ffffff00;
  VerifyOptions options;
  options.local_sm_port = kSmPort;
  options.sample_ports = 1;
  std::vector<DiscoveredPort> chosen = ChoosePortsToVerify(config_, ports_, options);
  ASSERT_EQ(chosen.size(), 5u);
  EXPECT_EQ(chosen.back().node_type, NodeType::kSwitch);
}

// The switch's table holds 2 entries and the config asks for 2: OpenSM
// may program fewer, never others.
TEST_F(PKeyVerifierTest, FullTableOnlyNeedsExpectedEntries) {
  fabric_.SetPKeyTable(20, 0, {0x7fff, 0x0000});  // capacity 2, 0x0002 left out
  EXPECT_TRUE(Verify().ok()) << Verify().Summary();
  fabric_.SetPKeyTable(20, 0, {0x7fff, 0x0005});
  EXPECT_EQ(Verify().mismatches.size(), 1u);
}

TEST_F(PKeyVerifierTest, PortsLeftAtTheDeadlineAreUnreachable) {
  VerifyOptions options;
  options.local_sm_port = kSmPort;
  options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  PKeyVerification result = VerifyPKeys(fabric_, config_, ports_, options);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.checked, 0);
  ASSERT_EQ(result.unreachable.size(), 11u);
  EXPECT_NE(result.unreachable[0].find("out of time"), std::string::npos);
}

TEST_F(PKeyVerifierTest, NoSampleReadsOnlyTheNamedPorts) {
  PKeyVerification result = Verify(0);
  EXPECT_TRUE(result.ok());
  EXPECT_EQ(result.checked, 4);
}

}  // namespace
}  // namespace smsupd
