// partitions: rules of the validator (P_Keys, names, flags, P_Key counts).
#include <gtest/gtest.h>

#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::Validate;

std::string Partition(const std::string& name, const std::string& pkey,
                      const std::string& extra = "",
                      const std::string& members = "      - { ports: ALL }\n") {
  return "  - name: " + name + "\n    pkey: " + pkey + "\n" + extra + "    members:\n" + members;
}

std::string WithDefault(const std::string& partitions) {
  return Partition("Default", "0x7fff") + partitions;
}

TEST(ValidatorPartitions, PKeyRange) {
  EXPECT_TRUE(Validate(BaseYaml("", WithDefault(Partition("a", "0x0001")))).ok());
  EXPECT_TRUE(Validate(BaseYaml("", WithDefault(Partition("a", "17")))).ok());
  for (const char* bad : {"0x0000", "0x8000", "0xffff", "-1", "pk", "0x10000"}) {
    ValidationOutcome outcome = Validate(BaseYaml("", WithDefault(Partition("a", bad))));
    ASSERT_FALSE(outcome.ok()) << bad;
    EXPECT_NE(FindDiagnostic(outcome, "partitions[1].pkey"), nullptr) << bad;
  }
  ValidationOutcome full_bit = Validate(BaseYaml("", WithDefault(Partition("a", "0x8001"))));
  EXPECT_EQ(FindDiagnostic(full_bit, "partitions[1].pkey")->Format(),
            "test.yaml:15:11: error: partitions[1].pkey: '0x8001' is not a P_Key in "
            "0x0001..0x7fff; the full-member bit 0x8000 comes from membership; give the 15-bit "
            "P_Key");
}

TEST(ValidatorPartitions, DuplicatePKeysAndNames) {
  ValidationOutcome pkeys =
      Validate(BaseYaml("", WithDefault(Partition("a", "0x0001") + Partition("b", "0x1"))));
  ASSERT_FALSE(pkeys.ok());
  EXPECT_EQ(FindDiagnostic(pkeys, "partitions[2].pkey")->what,
            "duplicate P_Key 0x0001 (also partitions[1])");
  ValidationOutcome names =
      Validate(BaseYaml("", WithDefault(Partition("a", "0x0001") + Partition("a", "0x0002"))));
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(FindDiagnostic(names, "partitions[2].name")->what,
            "duplicate partition name 'a' (also partitions[1])");
}

TEST(ValidatorPartitions, Names) {
  EXPECT_TRUE(Validate(BaseYaml("", WithDefault(Partition("a_b.c-1", "0x1")))).ok());
  EXPECT_TRUE(Validate(BaseYaml("", WithDefault(Partition(std::string(31, 'n'), "0x1")))).ok());
  for (const std::string& bad : {std::string(32, 'n'), std::string("'a b'"),
                                 std::string("'a=b'"), std::string("'a#b'"), std::string("''")}) {
    ValidationOutcome outcome = Validate(BaseYaml("", WithDefault(Partition(bad, "0x1"))));
    EXPECT_NE(FindDiagnostic(outcome, "partitions[1].name"), nullptr) << bad;
  }
  std::string missing = BaseYaml("", WithDefault("  - pkey: 0x2\n    members: []\n"));
  EXPECT_EQ(FindDiagnostic(Validate(missing), "partitions[1]")->what, "missing key 'name'");
}

struct FlagCase {
  const char* extra;
  const char* path;  // empty: valid
};

class PartitionFlagTest : public ::testing::TestWithParam<FlagCase> {};

TEST_P(PartitionFlagTest, IsCheckedAsOpenSmWouldNeed) {
  const FlagCase& flag = GetParam();
  ValidationOutcome outcome =
      Validate(BaseYaml("", WithDefault(Partition("a", "0x1", flag.extra))));
  if (std::string(flag.path).empty()) {
    EXPECT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  } else {
    EXPECT_FALSE(outcome.ok());
    EXPECT_NE(FindDiagnostic(outcome, flag.path), nullptr) << AllDiagnostics(outcome);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Flags, PartitionFlagTest,
    ::testing::Values(FlagCase{"    mtu: 4096\n", ""}, FlagCase{"    mtu: 256\n", ""},
                      FlagCase{"    mtu: 3000\n", "partitions[1].mtu"},
                      FlagCase{"    mtu: 5\n", "partitions[1].mtu"},
                      FlagCase{"    rate: 2.5\n", ""}, FlagCase{"    rate: 600\n", ""},
                      FlagCase{"    rate: 200\n", ""}, FlagCase{"    rate: 7\n", "partitions[1].rate"},
                      FlagCase{"    rate: fast\n", "partitions[1].rate"},
                      FlagCase{"    sl: 15\n", ""}, FlagCase{"    sl: 16\n", "partitions[1].sl"},
                      FlagCase{"    scope: 2\n", ""}, FlagCase{"    scope: 0\n", "partitions[1].scope"},
                      FlagCase{"    scope: 16\n", "partitions[1].scope"},
                      FlagCase{"    qkey: 0x0b1b\n", ""},
                      FlagCase{"    qkey: 0x100000000\n", "partitions[1].qkey"},
                      FlagCase{"    tclass: 255\n", ""},
                      FlagCase{"    tclass: 256\n", "partitions[1].tclass"},
                      FlagCase{"    ipoib: true\n", ""},
                      FlagCase{"    ipoib: yes\n", "partitions[1].ipoib"},
                      FlagCase{"    indx0: true\n", ""},
                      FlagCase{"    indx0: 1\n", "partitions[1].indx0"},
                      FlagCase{"    defmember: limited\n", ""},
                      FlagCase{"    defmember: partial\n", "partitions[1].defmember"},
                      FlagCase{"    speed: 100\n", "partitions[1].speed"}));

TEST(ValidatorPartitions, MissingDefaultIsAWarning) {
  ValidationOutcome outcome = Validate(BaseYaml("", Partition("a", "0x1")));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  ASSERT_EQ(outcome.WarningCount(), 1);
  EXPECT_NE(outcome.diagnostics[0].what.find("Default=0x7fff, ipoib : ALL=full ;"),
            std::string::npos);
}

TEST(ValidatorPartitions, NoMembersIsAWarning) {
  ValidationOutcome outcome =
      Validate(BaseYaml("", WithDefault("  - name: empty\n    pkey: 0x5\n    members: []\n")));
  ASSERT_TRUE(outcome.ok());
  ASSERT_NE(FindDiagnostic(outcome, "partitions[1].members"), nullptr);
  EXPECT_EQ(FindDiagnostic(outcome, "partitions[1].members")->severity, Severity::kWarning);
}

// 3 partitions + Default: each port of h2 ends up in 4 P_Keys; `both` takes two.
TEST(ValidatorPartitions, PKeysPerPortUsesResolvedMembership) {
  std::string partitions =
      WithDefault(Partition("a", "0x1", "", "      - { host: h2 }\n") +
                  Partition("b", "0x2", "", "      - { group: g }\n      - { host: h2 }\n") +
                  Partition("c", "0x3", "", "      - { guid: 0x0002c90300000002 }\n"));
  EXPECT_TRUE(Validate(BaseYaml("", partitions) + "limits:\n  pkeys_per_port: 4\n").ok());
  ValidationOutcome over = Validate(BaseYaml("", partitions) + "limits:\n  pkeys_per_port: 3\n");
  ASSERT_FALSE(over.ok());
  std::string text = AllDiagnostics(over);
  EXPECT_NE(text.find("port 0x0002c90300000002 would be in 4 P_Key entries"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("0x0002c90300000003"), std::string::npos) << text;  // only 3

  std::string both = WithDefault(
      Partition("a", "0x1", "", "      - { host: h1, membership: both }\n") +
      Partition("b", "0x2", "", "      - { host: h1 }\n"));
  EXPECT_FALSE(Validate(BaseYaml("", both) + "limits:\n  pkeys_per_port: 3\n").ok());
  EXPECT_TRUE(Validate(BaseYaml("", both) + "limits:\n  pkeys_per_port: 4\n").ok());
}

TEST(ValidatorPartitions, PKeysPerPortCountsAllForPortsNamedNowhere) {
  std::string partitions = WithDefault(Partition("a", "0x1") + Partition("b", "0x2"));
  ValidationOutcome outcome = Validate(BaseYaml("", partitions) + "limits:\n  pkeys_per_port: 2\n");
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(AllDiagnostics(outcome).find("every port picked by ALL or ALL_CAS would be in 3"),
            std::string::npos);
}

TEST(ValidatorPartitions, WarnsWhenTheSmPortEndsUpLimitedInDefault) {
  auto default_with = [](const std::string& members) {
    return Validate(BaseYaml("  port_guid: 0x0002c90300000001\n",
                             "  - name: Default\n    pkey: 0x7fff\n    members:\n" + members));
  };
  ValidationOutcome limited = default_with("      - { ports: ALL, membership: limited }\n");
  ASSERT_TRUE(limited.ok());
  ASSERT_NE(FindDiagnostic(limited, "partitions[0]"), nullptr);
  EXPECT_EQ(FindDiagnostic(limited, "partitions[0]")->severity, Severity::kWarning);
  EXPECT_EQ(default_with("      - { ports: ALL, membership: limited }\n"
                         "      - { ports: SELF, membership: full }\n").WarningCount(), 0);
  EXPECT_EQ(default_with("      - { ports: ALL, membership: limited }\n"
                         "      - { host: h1, membership: full }\n").WarningCount(), 0);
  EXPECT_EQ(default_with("      - { host: h2, membership: full }\n").WarningCount(), 0);  // base: full
  EXPECT_EQ(default_with("      - { group: g, membership: limited }\n").WarningCount(), 1);
}

}  // namespace
}  // namespace smsupd::config
