// The product rule (most specific selector wins, then the stronger
// membership, whatever the YAML order), checked through the rendered file
// read the way OpenSM reads it, and against ExpectedPKeyEntries().
#include <gtest/gtest.h>

#include "config/pkey_tables.h"
#include "config/renderer.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/config/random_config.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::ApplyPartitionsConf;
using testing::OpenSmConfValue;

constexpr Guid kSm = 0x0002c90300000001;  // h1
constexpr Guid kH2a = 0x0002c90300000002;
constexpr Guid kH2b = 0x0002c90300000003;
constexpr Guid kOther = 0x0002c90300000009;  // in the fabric, in no host
constexpr Guid kSwitch = 0x0008f10400000100;

const std::vector<FabricPort> kPorts = {{kSm, PortKind::kCa, true},
                                        {kH2a, PortKind::kCa, false},
                                        {kH2b, PortKind::kCa, false},
                                        {kOther, PortKind::kCa, false},
                                        {kSwitch, PortKind::kSwitch, false}};

// Validates `members` as the only list of partition 0x0010 (plus Default
// ALL=full), renders, and returns what OpenSM would program, after checking
// it equals the product-rule model.
std::map<Guid, std::set<std::uint16_t>> Apply(const std::string& members) {
  std::string yaml = testing::BaseYaml("  port_guid: 0x0002c90300000001\n",
                                       "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                       "      - { ports: ALL, membership: full }\n"
                                       "  - name: p\n    pkey: 0x0010\n    members:\n" + members);
  ValidationOutcome outcome = testing::Validate(yaml);
  EXPECT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  if (!outcome.ok()) return {};
  RenderedFiles files = Render(*outcome.config, RenderInputs{});
  bool allow_both = OpenSmConfValue(files.opensm_conf, "allow_both_pkeys") == "TRUE";
  auto opensm = ApplyPartitionsConf(files.partitions_conf, allow_both, kPorts);
  EXPECT_TRUE(opensm.ok()) << (opensm.ok() ? "" : opensm.error().message);
  if (!opensm.ok()) return {};
  EXPECT_EQ(*opensm, ExpectedPKeyEntries(*outcome.config, kPorts)) << files.partitions_conf;
  return *opensm;
}

bool Has(const std::map<Guid, std::set<std::uint16_t>>& tables, Guid guid, std::uint16_t entry) {
  return tables.count(guid) != 0 && tables.at(guid).count(entry) != 0;
}

const std::uint16_t kLimited = 0x0010;
const std::uint16_t kFull = 0x8010;

TEST(PartitionRule, SpecificSelectorBeatsBroaderOneInEitherOrder) {
  for (const std::string& members :
       {std::string("      - { host: h2, membership: limited }\n      - { ports: ALL, membership: full }\n"),
        std::string("      - { ports: ALL, membership: full }\n      - { host: h2, membership: limited }\n")}) {
    auto tables = Apply(members);
    EXPECT_TRUE(Has(tables, kH2a, kLimited) && !Has(tables, kH2a, kFull)) << members;
    EXPECT_TRUE(Has(tables, kOther, kFull)) << members;
  }
}

TEST(PartitionRule, GroupBeatsKeywordAndHostBeatsGroup) {
  auto tables = Apply(
      "      - { host: h1, membership: limited }\n"
      "      - { group: g, membership: full }\n"
      "      - { ports: ALL_CAS, membership: both }\n"
      "      - { ports: ALL, membership: full }\n");
  EXPECT_TRUE(Has(tables, kSm, kLimited) && !Has(tables, kSm, kFull));  // host > group
  EXPECT_TRUE(Has(tables, kH2a, kLimited) && Has(tables, kH2a, kFull));  // ALL_CAS both > ALL
  EXPECT_TRUE(Has(tables, kSwitch, kFull) && !Has(tables, kSwitch, kLimited));  // ALL only
}

TEST(PartitionRule, GroupOverKeywordLimited) {
  auto tables = Apply("      - { ports: ALL, membership: limited }\n      - { group: g, membership: full }\n");
  EXPECT_TRUE(Has(tables, kSm, kFull));
  EXPECT_TRUE(Has(tables, kOther, kLimited));
}

TEST(PartitionRule, SameRankStrongerMembershipWins) {
  auto tables = Apply(
      "      - { guid: 0x0002c90300000002, membership: full }\n"
      "      - { host: h2, membership: limited }\n");
  EXPECT_TRUE(Has(tables, kH2a, kFull) && !Has(tables, kH2a, kLimited));
  EXPECT_TRUE(Has(tables, kH2b, kLimited));
  auto both = Apply(
      "      - { host: h2, membership: limited }\n"
      "      - { guid: 0x0002c90300000003, membership: both }\n");
  EXPECT_TRUE(Has(both, kH2b, kFull) && Has(both, kH2b, kLimited));
  EXPECT_TRUE(Has(both, kH2a, kLimited) && !Has(both, kH2a, kFull));
}

TEST(PartitionRule, SelfIsTheSmPortAtGuidRank) {
  auto tables = Apply("      - { group: g, membership: limited }\n      - { ports: SELF, membership: full }\n");
  EXPECT_TRUE(Has(tables, kSm, kFull) && !Has(tables, kSm, kLimited));
  EXPECT_FALSE(Has(tables, kH2a, kFull) || Has(tables, kH2a, kLimited));
}

TEST(PartitionRule, SwitchKeywordPicksSwitchPortZeroOnly) {
  auto tables = Apply("      - { ports: ALL_SWITCHES, membership: full }\n");
  EXPECT_TRUE(Has(tables, kSwitch, kFull));
  EXPECT_FALSE(Has(tables, kOther, kFull) || Has(tables, kOther, kLimited));
}

TEST(PartitionRule, LimitedKeywordWithBothElsewhereKeepsFullPorts) {
  // allow_both_pkeys TRUE: a keyword at limited must not wipe earlier full entries.
  auto tables = Apply(
      "      - { host: h2, membership: both }\n"
      "      - { group: g, membership: full }\n"
      "      - { ports: ALL, membership: limited }\n");
  EXPECT_TRUE(Has(tables, kSm, kFull) && !Has(tables, kSm, kLimited));
  EXPECT_TRUE(Has(tables, kH2a, kFull) && Has(tables, kH2a, kLimited));
  EXPECT_TRUE(Has(tables, kOther, kLimited) && !Has(tables, kOther, kFull));
}

TEST(PartitionRule, DefaultBaseKeepsSmPortFullUnlessNamed) {
  std::string yaml = testing::BaseYaml("  port_guid: 0x0002c90300000001\n",
                                       "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                       "      - { host: h2, membership: full }\n");
  ValidationOutcome outcome = testing::Validate(yaml);
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  auto tables = ExpectedPKeyEntries(*outcome.config, kPorts);
  EXPECT_EQ(tables[kSm], (std::set<std::uint16_t>{0xffff}));
  EXPECT_EQ(tables[kH2a], (std::set<std::uint16_t>{0xffff}));
  EXPECT_EQ(tables[kOther], (std::set<std::uint16_t>{0x7fff}));
}

// Many random valid configs: rendering + OpenSM's reading rules must give
// exactly the product rule, for every port.
TEST(PartitionRule, RandomConfigsRenderToTheProductRule) {
  std::vector<testing::TestNode> nodes = testing::TestFabricNodes();
  Guid sm_port = nodes[1].PortGuid(1);
  std::vector<FabricPort> ports = testing::TestFabricPorts(nodes, sm_port);
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    testing::RandomCase random = testing::RandomConfig(nodes, sm_port, seed);
    ValidationOutcome outcome = testing::Validate(random.yaml);
    ASSERT_TRUE(outcome.ok()) << "seed " << seed << "\n" << AllDiagnostics(outcome) << random.yaml;
    RenderedFiles files = Render(*outcome.config, RenderInputs{});
    bool allow_both = OpenSmConfValue(files.opensm_conf, "allow_both_pkeys") == "TRUE";
    auto opensm = ApplyPartitionsConf(files.partitions_conf, allow_both, ports);
    ASSERT_TRUE(opensm.ok()) << "seed " << seed << ": " << opensm.error().message;
    ASSERT_EQ(*opensm, ExpectedPKeyEntries(*outcome.config, ports))
        << "seed " << seed << "\n" << random.yaml << files.partitions_conf;
  }
}

}  // namespace
}  // namespace smsupd::config
