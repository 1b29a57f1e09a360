// partitions[].members rules of the validator.
#include <gtest/gtest.h>

#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::Validate;

ValidationOutcome WithMembers(const std::string& members) {
  return Validate(BaseYaml("", "  - name: Default\n    pkey: 0x7fff\n    members:\n" + members));
}

TEST(ValidatorMembers, EachSelectorKindIsAccepted) {
  ValidationOutcome outcome = WithMembers(
      "      - { ports: ALL, membership: limited }\n"
      "      - { ports: ALL_CAS }\n"
      "      - { ports: ALL_SWITCHES, membership: full }\n"
      "      - { ports: ALL_ROUTERS }\n"
      "      - { ports: SELF, membership: both }\n"
      "      - { group: g }\n"
      "      - { host: h2, membership: limited }\n"
      "      - { guid: 0x0002c90300a1b2e5 }\n");
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const std::vector<Member>& members = outcome.config->partitions[0].members;
  ASSERT_EQ(members.size(), 8u);
  EXPECT_EQ(members[0].membership, Membership::kLimited);
  EXPECT_EQ(members[1].membership, Membership::kFull);  // the default
  EXPECT_EQ(members[4].ports, PortsKeyword::kSelf);
  EXPECT_EQ(members[4].membership, Membership::kBoth);
  EXPECT_EQ(members[5].kind, Member::Kind::kGroup);
  EXPECT_EQ(members[6].kind, Member::Kind::kHost);
  EXPECT_EQ(members[7].guid, 0x0002c90300a1b2e5u);
}

TEST(ValidatorMembers, DefmemberIsTheMembersDefault) {
  ValidationOutcome outcome = Validate(BaseYaml(
      "", "  - name: Default\n    pkey: 0x7fff\n    defmember: limited\n    members:\n"
          "      - { ports: ALL }\n      - { host: h1, membership: full }\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->partitions[0].members[0].membership, Membership::kLimited);
  EXPECT_EQ(outcome.config->partitions[0].members[1].membership, Membership::kFull);
}

TEST(ValidatorMembers, ZeroOrSeveralSelectorsAreRefused) {
  ValidationOutcome none = WithMembers("      - { membership: full }\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(FindDiagnostic(none, "partitions[0].members[0]")->Format(),
            "test.yaml:13:9: error: partitions[0].members[0]: member has no selector; give "
            "exactly one of ports, group, host, guid");
  ValidationOutcome two = WithMembers("      - { host: h1, group: g }\n");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(FindDiagnostic(two, "partitions[0].members[0]")->what,
            "member has several selectors (group, host)");
}

TEST(ValidatorMembers, UnknownHostAndGroupSuggestKnownOnes) {
  ValidationOutcome outcome = WithMembers("      - { host: h22 }\n      - { group: gg }\n");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "partitions[0].members[0].host")->Format(),
            "test.yaml:13:17: error: partitions[0].members[0].host: unknown host 'h22'; did you "
            "mean 'h2'?");
  EXPECT_EQ(FindDiagnostic(outcome, "partitions[0].members[1].group")->what, "unknown group 'gg'");
}

TEST(ValidatorMembers, InvalidMembershipKeywordAndGuid) {
  ValidationOutcome outcome = WithMembers(
      "      - { ports: ALL, membership: partial }\n"
      "      - { ports: EVERYONE }\n"
      "      - { guid: 1234 }\n"
      "      - { guid: 0x0 }\n"
      "      - { host: h1, membership: Full }\n");
  EXPECT_EQ(outcome.ErrorCount(), 5) << AllDiagnostics(outcome);
  EXPECT_NE(FindDiagnostic(outcome, "partitions[0].members[0].membership"), nullptr);
  EXPECT_NE(FindDiagnostic(outcome, "partitions[0].members[1].ports"), nullptr);
  EXPECT_NE(FindDiagnostic(outcome, "partitions[0].members[2].guid"), nullptr);
  EXPECT_NE(FindDiagnostic(outcome, "partitions[0].members[3].guid"), nullptr);
  EXPECT_NE(FindDiagnostic(outcome, "partitions[0].members[4].membership"), nullptr);
}

TEST(ValidatorMembers, UnknownMemberKeySuggestsNearest) {
  ValidationOutcome outcome = WithMembers("      - { host: h1, membrship: full }\n");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "partitions[0].members[0].membrship")->valid,
            "did you mean 'membership'?");
}

TEST(ValidatorMembers, DuplicateMemberIsAWarning) {
  ValidationOutcome outcome =
      WithMembers("      - { host: h1 }\n      - { host: h1, membership: limited }\n");
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  ASSERT_EQ(outcome.WarningCount(), 1);
  EXPECT_EQ(outcome.diagnostics[0].yaml_path, "partitions[0].members[1]");
  EXPECT_EQ(WithMembers("      - { host: h1 }\n      - { host: h2 }\n").WarningCount(), 0);
}

}  // namespace
}  // namespace smsupd::config
