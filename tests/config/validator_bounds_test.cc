// What a YAML text from anyone (a group member's plan, smctl validate) may
// cost: every bound of config/yaml_bounds.h and of the diagnostics, each
// with the input that reaches it, and the walks over caller-written graphs
// (group chains) as deep as the text allows.
#include <gtest/gtest.h>

#include <chrono>


#include "config/partition_members.h"
#include "config/yaml_bounds.h"
#include "config/yaml_view.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::Validate;

bool Mentions(const ValidationOutcome& outcome, std::string_view text) {
  return AllDiagnostics(outcome).find(text) != std::string::npos;
}

// g0: [g1], g1: [g2], ... g<n-1>: [h1] (about 550 KB for 30,000), closed
// back to g0 when `cycle`.
std::string GroupChain(int length, bool cycle) {
  std::string yaml =
      "version: 1\nsm:\n  role: master\nhosts:\n  h1: 0x0002c90300000001\ngroups:\n";
  for (int i = 0; i < length; ++i) {
    const std::string next = i + 1 < length ? "g" + std::to_string(i + 1) : (cycle ? "g0" : "h1");
    yaml += "  g" + std::to_string(i) + ": [" + next + "]\n";
  }
  yaml += "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n      - { group: g0 }\n";
  return yaml;
}

TEST(ValidatorBounds, AGroupChain30000DeepIsWalkedWithoutRecursion) {
  ValidationOutcome chain = Validate(GroupChain(30000, false));
  ASSERT_TRUE(chain.ok()) << AllDiagnostics(chain);
  EXPECT_EQ(ExpandGroup(*chain.config, "g0"), std::vector<Guid>{0x0002c90300000001});

  ValidationOutcome cycle = Validate(GroupChain(30000, true));
  ASSERT_FALSE(cycle.ok());
  ASSERT_TRUE(Mentions(cycle, "group cycle: g0 -> g1 -> ")) << AllDiagnostics(cycle);
  for (const Diagnostic& d : cycle.diagnostics) EXPECT_LE(d.what.size(), kMaxDiagnosticPartBytes);
}

TEST(ValidatorBounds, NestingDeeperThanTheBoundIsRefusedWithItsPosition) {
  const std::string deep = "version: 1\nx: " + std::string(kMaxYamlDepth + 1, '[') +
                           std::string(kMaxYamlDepth + 1, ']') + "\n";
  ValidationOutcome outcome = Validate(deep);
  ASSERT_FALSE(outcome.ok());
  ASSERT_EQ(outcome.diagnostics.size(), 1u) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].line, 2);
  EXPECT_NE(outcome.diagnostics[0].what.find("nest deeper than 64"), std::string::npos);
  // Far past yaml-cpp's own recursion guard too.
  EXPECT_FALSE(Validate("x: " + std::string(1'000'000, '[')).ok());
  EXPECT_TRUE(Validate(BaseYaml()).ok());
}

// "Billion laughs": each level names the one before ten times.
std::string AliasBomb(int levels) {
  std::string yaml = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < levels; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", " : "") + prev;
    yaml += "]\n";
  }
  return yaml;
}

TEST(ValidatorBounds, AliasesCountAsTheNodesTheyStandForAndABombIsRefused) {
  ValidationOutcome bomb = Validate(AliasBomb(9));  // 10^9 nodes in 500 bytes
  ASSERT_FALSE(bomb.ok());
  EXPECT_TRUE(Mentions(bomb, "more than 500000 nodes")) << AllDiagnostics(bomb);

  EXPECT_FALSE(CheckYamlBounds(AliasBomb(5), Deadline::Never()));  // 111,111 nodes: fine
  auto seven = CheckYamlBounds(AliasBomb(7), Deadline::Never());  // past the bound at a5
  ASSERT_TRUE(seven);
  EXPECT_EQ(seven->line, 6);

  // An alias used where it is still open would make a cycle in the tree.
  auto loop = CheckYamlBounds("a: &a [1, *a]\n", Deadline::Never());
  ASSERT_TRUE(loop);
  EXPECT_NE(loop->what.find("contains it"), std::string::npos);
  // Plain, sensible aliases stay valid.
  ValidationOutcome shared = Validate(BaseYaml("", "  - name: Default\n    pkey: 0x7fff\n"
                                                   "    members: &all\n"
                                                   "      - { ports: ALL, membership: full }\n"
                                                   "  - name: p2\n    pkey: 0x0002\n"
                                                   "    members: *all\n"));
  EXPECT_TRUE(shared.ok()) << AllDiagnostics(shared);
}

TEST(ValidatorBounds, LongKeysAndValuesAreRefusedBeforeTheValidatorReadsThem) {
  auto key = CheckYamlBounds(std::string(kMaxYamlKeyBytes + 1, 'k') + ": 1\n", Deadline::Never());
  ASSERT_TRUE(key);
  EXPECT_NE(key->what.find("a key of 257 bytes"), std::string::npos) << key->what;
  EXPECT_FALSE(CheckYamlBounds(std::string(kMaxYamlKeyBytes, 'k') + ": 1\n", Deadline::Never()));
  auto value = CheckYamlBounds("node: " + std::string(kMaxYamlScalarBytes + 1, 'v') + "\n",
                               Deadline::Never());
  ASSERT_TRUE(value);
  EXPECT_NE(value->what.find("a value of 16385 bytes"), std::string::npos) << value->what;
  // A long name in a list is a value, not a key.
  EXPECT_FALSE(CheckYamlBounds("g: [" + std::string(1000, 'n') + "]\n", Deadline::Never()));
  auto text = CheckYamlBounds(std::string(kMaxConfigBytes + 1, '#'), Deadline::Never());
  ASSERT_TRUE(text);
  EXPECT_EQ(text->line, 0);
}

TEST(ValidatorBounds, DiagnosticsAreCappedAndCountedAndEachPartIsCut) {
  std::string yaml = BaseYaml() + "limits:\n";
  for (int i = 0; i < 50000; ++i) yaml += "  unknown" + std::to_string(i) + ": 1\n";
  const std::string huge_name(8 * 1024 * 1024, 'f');
  ValidationOutcome outcome = ValidateText(yaml, huge_name, KeyFile::kNameOnly);
  ASSERT_FALSE(outcome.ok());
  ASSERT_EQ(outcome.diagnostics.size(), kMaxDiagnostics + 1);
  EXPECT_EQ(outcome.ErrorCount(), 50000);
  EXPECT_EQ(outcome.WarningCount(), 0);
  EXPECT_EQ(outcome.diagnostics.back().what, "49900 more error(s) and 0 more warning(s) not shown");
  for (const Diagnostic& d : outcome.diagnostics) EXPECT_LE(d.file.size(), kMaxDiagnosticPartBytes);
}

// "version: 1", an sm section, `extra` top-level lines, and `count` hosts
// named <prefix><i> with one port each.
std::string WithHosts(int count, const std::string& prefix, const std::string& extra = "") {
  std::string yaml = "version: 1\nsm:\n  role: master\n" + extra + "hosts:\n";
  for (int i = 0; i < count; ++i) {
    char guid[32];
    std::snprintf(guid, sizeof guid, "0x0002c903%06x", i + 1);
    yaml += "  " + prefix + std::to_string(i) + ": " + guid + "\n";
  }
  return yaml;
}

// 20,000 misspelt names among 10,000 hosts: a suggestion is searched for the
// 100 diagnostics kept, not for 20,000 (ctest's timeout would catch those).
TEST(ValidatorBounds, ADidYouMeanOverThousandsOfNamesIsBounded) {
  std::string yaml = WithHosts(10000, "host-number-") + "groups:\n  many: [";
  for (int i = 0; i < 20000; ++i) yaml += (i ? ", " : "") + std::string("host-nomber-") + std::to_string(i);
  yaml += "]\n";
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.ErrorCount(), 20000);
  EXPECT_TRUE(Mentions(outcome, "did you mean 'host-number-0'?")) << AllDiagnostics(outcome);
}

TEST(ValidatorBounds, ANameFarLongerThanEveryCandidateIsNotCompared) {
  std::string yaml = WithHosts(10000, "h") + "groups:\n  g: [";
  for (int i = 0; i < 200; ++i) yaml += (i ? ", " : "") + std::string(kMaxYamlScalarBytes, 'a' + i % 26);
  yaml += "]\n";
  ValidationOutcome outcome = Validate(yaml);
  EXPECT_EQ(outcome.ErrorCount(), 200);
  EXPECT_TRUE(Mentions(outcome, "define it under hosts: or groups:")) << AllDiagnostics(outcome);
}

std::string HostsAndBigGroup(int hosts) {
  std::string yaml = WithHosts(hosts, "h", "limits:\n  pkeys_per_port: 32768\n") + "groups:\n  all: [";
  for (int i = 0; i < hosts; ++i) yaml += (i ? ", " : "") + std::string("h") + std::to_string(i);
  yaml += "]\n";
  return yaml;
}

// 2,100 groups that each name one group of 2,000 hosts, each in a partition
// of its own: 1,700 lines that expand to 4.2 million port memberships, twice the bound (a
// quarter of the nodes in the same pattern stood for a terabyte).
TEST(ValidatorBounds, GroupsThatExpandPastTheMembershipBoundAreRefused) {
  std::string yaml = HostsAndBigGroup(2000);
  for (int i = 0; i < 2100; ++i) yaml += "  g" + std::to_string(i) + ": [all]\n";
  yaml += "partitions:\n";
  for (int i = 0; i < 2100; ++i)
    yaml += "  - { name: p" + std::to_string(i) + ", pkey: " + std::to_string(i + 1) +
            ", members: [{ group: g" + std::to_string(i) + " }] }\n";
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(Mentions(outcome, "stand for more than 2000000 port memberships")) << AllDiagnostics(outcome);
}

TEST(ValidatorBounds, PartitionsOfEveryPortCountEveryPortASubnetMayHave) {
  std::string yaml = HostsAndBigGroup(10) + "partitions:\n";
  for (int i = 0; i < 39; ++i)  // with the implicit Default: 40 x (10 + 49,151)
    yaml += "  - { name: p" + std::to_string(i) + ", pkey: " + std::to_string(i + 1) +
            ", members: [{ ports: ALL }] }\n";
  EXPECT_TRUE(Validate(yaml).ok());
  yaml += "  - { name: one-more, pkey: 0x100, members: [{ ports: ALL_CAS }] }\n";
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(Mentions(outcome, "stand for more than 2000000 port memberships")) << AllDiagnostics(outcome);
}

TEST(ValidatorBounds, APassedDeadlineStopsValidationWithAnError) {
  ValidationOutcome outcome =
      ValidateText(GroupChain(5000, false), "test.yaml", KeyFile::kRead,
                   Deadline(Deadline::Clock::now() - std::chrono::seconds(1)));
  ASSERT_FALSE(outcome.ok());
  EXPECT_TRUE(Mentions(outcome, "took longer than the time a request may take")) << AllDiagnostics(outcome);
}

}  // namespace
}  // namespace smsupd::config
