// ExpectedPKeyTables(): OpenSM's base plus the product rule, per end port.
#include <gtest/gtest.h>

#include "config/pkey_tables.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;

constexpr Guid kTableSm = 0x0002c90300000001;
constexpr Guid kTableH2a = 0x0002c90300000002;
constexpr Guid kTableStranger = 0x0002c90300000077;
constexpr Guid kTableSwitch = 0x0008f10400000100;

const std::vector<FabricPort> kTablePorts = {{kTableSm, PortKind::kCa, true},
                                             {kTableH2a, PortKind::kCa, false},
                                             {kTableStranger, PortKind::kCa, false},
                                             {kTableSwitch, PortKind::kSwitch, false}};

Config LoadPartitions(const std::string& partitions) {
  ValidationOutcome outcome = testing::Validate(BaseYaml("", partitions));
  EXPECT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  return outcome.ok() ? *outcome.config : Config{};
}

TEST(PKeyTables, WithoutDefaultEveryPortIsFullInDefault) {
  auto tables = ExpectedPKeyTables(
      LoadPartitions("  - name: a\n    pkey: 0x1\n    members: [ { host: h2 } ]\n"), kTablePorts);
  for (const FabricPort& port : kTablePorts)
    EXPECT_TRUE(tables[port.guid].at(0x7fff)) << FormatGuid(port.guid);
  EXPECT_TRUE(tables[kTableH2a].at(0x1));
  EXPECT_EQ(tables[kTableStranger].count(0x1), 0u);
}

TEST(PKeyTables, LimitedDefaultKeepsTheSmPortFullOnlyWhenNotNamed) {
  auto tables = ExpectedPKeyTables(
      LoadPartitions(
          "  - name: Default\n    pkey: 0x7fff\n    members: [ { host: h2, membership: full } ]\n"),
      kTablePorts);
  EXPECT_TRUE(tables[kTableSm].at(0x7fff));         // OpenSM's base: SM port full
  EXPECT_TRUE(tables[kTableH2a].at(0x7fff));        // named full
  EXPECT_FALSE(tables[kTableStranger].at(0x7fff));  // base: limited
  EXPECT_FALSE(tables[kTableSwitch].at(0x7fff));

  auto all_limited =
      ExpectedPKeyTables(LoadPartitions("  - name: Default\n    pkey: 0x7fff\n    members: [ { "
                                        "ports: ALL, membership: limited } ]\n"),
                         kTablePorts);
  EXPECT_FALSE(all_limited[kTableSm].at(0x7fff));  // ALL=limited names the SM port too
}

TEST(PKeyTables, BothGivesTwoEntries) {
  Config config = LoadPartitions(
      "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
      "  - name: b\n    pkey: 0x22\n    members: [ { host: h2, membership: both } ]\n");
  EXPECT_EQ(ExpectedPKeyEntries(config, kTablePorts)[kTableH2a],
            (std::set<std::uint16_t>{0x0022, 0x8022, 0xffff}));
  EXPECT_TRUE(ExpectedPKeyTables(config, kTablePorts)[kTableH2a].at(0x22));
}

TEST(PKeyTables, SwitchAndSelfKeywords) {
  Config config = LoadPartitions(
      "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
      "  - name: s\n    pkey: 0x30\n    members:\n"
      "      - { ports: ALL_SWITCHES, membership: limited }\n"
      "      - { ports: SELF }\n");
  auto tables = ExpectedPKeyTables(config, kTablePorts);
  EXPECT_FALSE(tables[kTableSwitch].at(0x30));
  EXPECT_TRUE(tables[kTableSm].at(0x30));
  EXPECT_EQ(tables[kTableH2a].count(0x30), 0u);
}

TEST(PKeyTables, GuidsOutsideTheFabricAreIgnored) {
  Config config = LoadPartitions(
      "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
      "  - name: x\n    pkey: 0x31\n    members: [ { guid: 0x0002c903ffffffff } ]\n");
  auto tables = ExpectedPKeyTables(config, kTablePorts);
  EXPECT_EQ(tables.size(), kTablePorts.size());
  for (const auto& [guid, table] : tables) EXPECT_EQ(table.count(0x31), 0u);
}

}  // namespace
}  // namespace smsupd::config
