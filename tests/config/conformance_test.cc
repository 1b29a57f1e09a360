// Rendered configs on a real OpenSM: every end port's P_Key table (full bit
// included) must be what the YAML says under the product rule, and OpenSM
// must not complain about the partitions file.
#include <gtest/gtest.h>

#include "tests/config/conformance_fixture.h"

namespace smsupd::config::testing {
namespace {

class PartitionConformance : public ConformanceTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartTestFabric()); }
};

TEST_F(PartitionConformance, LimitedDefaultGroupsAndMultiPortHostsWithFlags) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "groups:\n  gpu: [H5, H6]\n"
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    ipoib: true\n    members:\n"
                                "      - { ports: ALL, membership: limited }\n"
                                "      - { ports: SELF, membership: full }\n"
                                "  - name: compute\n    pkey: 0x0001\n    ipoib: true\n    mtu: 4096\n"
                                "    rate: 200\n    sl: 1\n    members:\n"
                                "      - { group: gpu }\n"
                                "      - { host: H7, membership: limited }\n"
                                "      - { guid: 0x0002c90300001082, membership: full }\n"
                                "  - name: storage.net-2\n    pkey: 0x0002\n    ipoib: true\n    mtu: 2048\n"
                                "    rate: 100\n    members:\n"
                                "      - { host: H3, membership: full }\n"
                                "      - { group: gpu, membership: limited }\n"));
  ExpectTablesMatch();
}

TEST_F(PartitionConformance, BothMembershipSelfAndLimitedKeyword) {
  // allow_both_pkeys TRUE: OpenSM's own "ALL=limited wipes earlier full
  // entries" must not leak into the result.
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "groups:\n  pair: [H5, H6]\n"
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { ports: ALL, membership: full }\n"
                                "  - name: mixed\n    pkey: 0x0010\n    members:\n"
                                "      - { group: pair, membership: both }\n"
                                "      - { host: H3, membership: full }\n"
                                "      - { ports: SELF, membership: both }\n"
                                "      - { ports: ALL, membership: limited }\n"));
  ExpectTablesMatch();
}

TEST_F(PartitionConformance, NoDefaultPartitionMakesEveryPortFull) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: only\n    pkey: 0x0100\n    members:\n"
                                "      - { host: H4, membership: limited }\n"));
  ExpectTablesMatch();
}

TEST_F(PartitionConformance, SwitchAndCaKeywordsWithOverrides) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    defmember: limited\n    members:\n"
                                "      - { ports: ALL_CAS }\n"
                                "      - { ports: ALL_SWITCHES, membership: full }\n"
                                "      - { host: H1, membership: full }\n"
                                "  - name: mgmt\n    pkey: 0x0200\n    members:\n"
                                "      - { ports: ALL_SWITCHES, membership: full }\n"
                                "      - { ports: ALL_CAS, membership: limited }\n"
                                "      - { host: H8, membership: full }\n"));
  ExpectTablesMatch();
}

TEST_F(PartitionConformance, YamlOrderDoesNotMatter) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "groups:\n  inner: [H5]\n  outer: [inner, H6, H7]\n"
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { host: H4, membership: full }\n"
                                "      - { ports: ALL, membership: limited }\n"
                                "      - { ports: SELF, membership: full }\n"
                                "  - name: order\n    pkey: 0x0042\n    members:\n"
                                "      - { guid: 0x0002c90300001061, membership: limited }\n"
                                "      - { group: outer, membership: full }\n"
                                "      - { ports: ALL_CAS, membership: both }\n"
                                "      - { ports: ALL, membership: limited }\n"
                                "      - { host: H7, membership: limited }\n"));
  ExpectTablesMatch();
}

TEST_F(PartitionConformance, ReloadWithSighupAppliesTheNewFile) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
                                "  - name: a\n    pkey: 0x0003\n    members: [ { host: H3 } ]\n"));
  ExpectTablesMatch();
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
                                "  - name: b\n    pkey: 0x0004\n    members: [ { host: H4, membership: limited } ]\n"));
  ExpectTablesMatch();
  EXPECT_EQ(opensm_starts(), 1);  // applied by SIGHUP, no restart
}

}  // namespace
}  // namespace smsupd::config::testing

namespace smsupd::config::testing {
namespace {

TEST_F(PartitionConformance, FullToBothAcrossARestart) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"));
  ExpectTablesMatch();
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { ports: ALL }\n      - { host: H8, membership: both }\n"));
  ExpectTablesMatch();
  EXPECT_EQ(opensm_starts(), 2);
}

}  // namespace
}  // namespace smsupd::config::testing

namespace smsupd::config::testing {
namespace {

// OpenSM 3.3.23 started with allow_both_pkeys TRUE over a port that holds
// the limited P_Key programs only the full one (keep_pkey_indexes TRUE: the
// old limited slot is matched by base and rewritten). A second heavy sweep
// adds the limited entry: the fixture's restart procedure does one.
TEST_F(PartitionConformance, LimitedToBothAcrossARestart) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members: [ { host: H3 } ]\n"));
  ExpectTablesMatch();
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { host: H3 }\n      - { host: H8, membership: both }\n"));
  ExpectTablesMatch();
  EXPECT_EQ(opensm_starts(), 2);
}

TEST_F(PartitionConformance, LimitedToBothWithSighup) {
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members: [ { host: H3, membership: both } ]\n"));
  ExpectTablesMatch();
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { host: H3, membership: both }\n      - { host: H8, membership: both }\n"));
  ExpectTablesMatch();
  EXPECT_EQ(opensm_starts(), 1);
}

}  // namespace
}  // namespace smsupd::config::testing
