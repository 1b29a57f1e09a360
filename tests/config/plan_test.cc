// PlanConfigChange(): what an operator is told a config change would do.
#include "config/plan.h"

#include <gtest/gtest.h>

#include "config/key_file.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;

constexpr Guid kH1 = 0x0002c90300000001;
constexpr Guid kPlanH2a = 0x0002c90300000002;
constexpr Guid kPlanH2b = 0x0002c90300000003;
constexpr Guid kH3 = 0x0002c90300000004;
constexpr Guid kPlanSm = 0x0002c903000000aa;  // the local SM's port, not in the inventory

const char* const kDefault =
    "  - name: Default\n"
    "    pkey: 0x7fff\n"
    "    members:\n"
    "      - { ports: ALL, membership: full }\n";
const char* const kCompute =
    "  - name: compute\n"
    "    pkey: 0x0001\n"
    "    mtu: 2048\n"
    "    members:\n"
    "      - { host: h1 }\n"
    "      - { host: h2 }\n";
const char* const kStorage =
    "  - name: storage\n"
    "    pkey: 0x0002\n"
    "    members:\n"
    "      - { host: h3 }\n";

// A config with hosts h1 (1 port), h2 (2 ports), h3 (1 port) and group g.
std::string Yaml(const std::string& partitions, const std::string& sm_extra = "",
                 const std::string& top_extra = "") {
  return "version: 1\nnode: mgmt-a\nsm:\n  role: master\n" + sm_extra + top_extra +
         "hosts:\n"
         "  h1: 0x0002c90300000001\n"
         "  h2: [0x0002c90300000002, 0x0002c90300000003]\n"
         "  h3: 0x0002c90300000004\n"
         "groups:\n"
         "  g: [h1, h2]\n"
         "partitions:\n" +
         partitions;
}

Config LoadPlanConfig(const std::string& yaml) {
  ValidationOutcome outcome = testing::Validate(yaml);
  EXPECT_TRUE(outcome.ok()) << AllDiagnostics(outcome) << yaml;
  return outcome.ok() ? *outcome.config : Config{};
}

ConfigPlan Plan(const std::string& before, const std::string& after,
                const std::vector<FabricPort>& ports = {}) {
  return PlanConfigChange(LoadPlanConfig(before), LoadPlanConfig(after), ports, kPlanSm);
}

const PartitionPlan* Find(const ConfigPlan& plan, const std::string& name) {
  for (const PartitionPlan& partition : plan.partitions)
    if (partition.name == name) return &partition;
  return nullptr;
}

// "host guid before->after" per member, for compact assertions.
std::vector<std::string> Members(const PartitionPlan& partition) {
  std::vector<std::string> rows;
  for (const MemberChange& member : partition.members)
    rows.push_back(member.host + " " + FormatGuid(member.guid) + " " + member.before + "->" +
                   member.after);
  return rows;
}

using Strings = std::vector<std::string>;

TEST(Plan, SameConfigIsNoChange) {
  ConfigPlan plan =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + kCompute));
  EXPECT_FALSE(plan.changed);
  EXPECT_TRUE(plan.partitions.empty());
  EXPECT_TRUE(plan.options.empty());
  EXPECT_TRUE(plan.other.empty());
  EXPECT_EQ(plan.ports_changed, 0);
  EXPECT_EQ(plan.Summary(), "no changes");
  EXPECT_EQ(plan.Format(), "no changes\n");
  EXPECT_EQ(plan.ToJson()["changed"], false);
}

TEST(Plan, ReorderedMembersAndEquivalentSelectorsAreNoChange) {
  std::string reordered =
      "  - name: compute\n    pkey: 0x1\n    mtu: 2048\n"
      "    members:\n      - { group: g }\n      - { host: h1 }\n";
  ConfigPlan plan =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + reordered));
  EXPECT_FALSE(plan.changed) << plan.Format();
}

TEST(Plan, AddedPartitionListsItsSettingsAndMembers) {
  std::string storage =
      "  - name: storage\n    pkey: 0x0002\n    ipoib: true\n    mtu: 4096\n"
      "    members:\n      - { host: h3 }\n      - { host: h1, membership: limited }\n";
  ConfigPlan plan = Plan(Yaml(std::string(kDefault) + kCompute),
                         Yaml(std::string(kDefault) + kCompute + storage));
  ASSERT_EQ(plan.partitions.size(), 1u);
  const PartitionPlan& added = plan.partitions[0];
  EXPECT_EQ(added.kind, PartitionPlan::Kind::kAdded);
  EXPECT_EQ(added.pkey, 0x0002);
  EXPECT_EQ(added.changes, (Strings{"ipoib", "mtu 4096"}));
  EXPECT_EQ(Members(added),
            (Strings{"h1 0x0002c90300000001 ->limited", "h3 0x0002c90300000004 ->full"}));
  EXPECT_EQ(plan.ports_changed, 2);
  EXPECT_FALSE(plan.needs_restart);
  EXPECT_TRUE(plan.opensm_affected);
  EXPECT_EQ(plan.Summary(), "+1 partition, -0, 0 changed; 2 ports' P_Key tables change; SIGHUP");
  EXPECT_EQ(plan.Format(),
            "Plan: +1 partition, -0, 0 changed; 2 ports' P_Key tables change; SIGHUP\n"
            "\n"
            "Partitions\n"
            "  CHANGE  NAME     PKEY    DETAILS\n"
            "  added   storage  0x0002  ipoib, mtu 4096\n"
            "\n"
            "Members\n"
            "  PARTITION  HOST  GUID                BEFORE  AFTER\n"
            "  storage    h1    0x0002c90300000001  -       limited\n"
            "  storage    h3    0x0002c90300000004  -       full\n");
}

TEST(Plan, RemovedPartitionListsThePortsLeavingIt) {
  ConfigPlan plan = Plan(Yaml(std::string(kDefault) + kCompute + kStorage),
                         Yaml(std::string(kDefault) + kCompute));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(plan.partitions[0].kind, PartitionPlan::Kind::kRemoved);
  EXPECT_EQ(plan.partitions[0].name, "storage");
  EXPECT_TRUE(plan.partitions[0].changes.empty());
  EXPECT_EQ(Members(plan.partitions[0]), (Strings{"h3 0x0002c90300000004 full->"}));
  EXPECT_EQ(plan.ports_changed, 1);
  EXPECT_EQ(plan.Summary(), "+0 partitions, -1, 0 changed; 1 port's P_Key table changes; SIGHUP");
}

TEST(Plan, MovingAHostShowsItLeavingOnePartitionAndJoiningTheOther) {
  std::string compute_without_h1 =
      "  - name: compute\n    pkey: 0x0001\n    mtu: 2048\n    members:\n      - { host: h2 }\n";
  std::string storage_with_h1 =
      "  - name: storage\n    pkey: 0x0002\n    members:\n      - { host: h3 }\n      - { host: h1 "
      "}\n";
  ConfigPlan plan = Plan(Yaml(std::string(kDefault) + kCompute + kStorage),
                         Yaml(std::string(kDefault) + compute_without_h1 + storage_with_h1));
  ASSERT_EQ(plan.partitions.size(), 2u) << plan.Format();
  EXPECT_EQ(Members(*Find(plan, "compute")), (Strings{"h1 0x0002c90300000001 full->"}));
  EXPECT_EQ(Members(*Find(plan, "storage")), (Strings{"h1 0x0002c90300000001 ->full"}));
  EXPECT_TRUE(Find(plan, "compute")->changes.empty());
  EXPECT_EQ(plan.ports_changed, 1);
  EXPECT_TRUE(plan.other.empty());
  EXPECT_EQ(plan.Summary(), "+0 partitions, -0, 2 changed; 1 port's P_Key table changes; SIGHUP");
  EXPECT_NE(plan.Format().find("  changed  compute  0x0001  members only\n"), std::string::npos)
      << plan.Format();
}

TEST(Plan, FullToLimitedAndToBoth) {
  std::string limited = kCompute;
  limited.replace(limited.find("{ host: h2 }"), 12, "{ host: h2, membership: limited }");
  ConfigPlan plan =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + limited));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(Members(plan.partitions[0]), (Strings{"h2 0x0002c90300000002 full->limited",
                                                  "h2 0x0002c90300000003 full->limited"}));
  EXPECT_EQ(plan.ports_changed, 2);
  EXPECT_FALSE(plan.needs_restart);

  // `both` turns on allow_both_pkeys, which OpenSM reads only at start.
  std::string both = kCompute;
  both.replace(both.find("{ host: h1 }"), 12, "{ host: h1, membership: both }");
  ConfigPlan to_both =
      Plan(Yaml(std::string(kDefault) + limited), Yaml(std::string(kDefault) + both));
  EXPECT_EQ(Members(to_both.partitions[0]),
            (Strings{"h1 0x0002c90300000001 full->both", "h2 0x0002c90300000002 limited->full",
                     "h2 0x0002c90300000003 limited->full"}));
  ASSERT_EQ(to_both.options.size(), 1u);
  EXPECT_EQ(to_both.options[0].name, "allow_both_pkeys");
  EXPECT_EQ(to_both.options[0].before, "FALSE");
  EXPECT_EQ(to_both.options[0].after, "TRUE");
  EXPECT_TRUE(to_both.needs_restart);
  EXPECT_EQ(to_both.Summary(),
            "+0 partitions, -0, 1 changed; 3 ports' P_Key tables change; 1 option; OpenSM restart");
}

TEST(Plan, FlagChangesAreListedWithoutMembers) {
  std::string tuned = kCompute;
  tuned.replace(tuned.find("    mtu: 2048\n"), 14,
                "    mtu: 4096\n    ipoib: true\n    rate: 2.5\n    sl: 3\n    scope: 5\n"
                "    qkey: 0xb1b\n    tclass: 32\n    indx0: true\n    defmember: full\n");
  ConfigPlan plan =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + tuned));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(plan.partitions[0].kind, PartitionPlan::Kind::kChanged);
  EXPECT_EQ(plan.partitions[0].changes,
            (Strings{"ipoib false -> true", "mtu 2048 -> 4096", "rate none -> 2.5", "sl none -> 3",
                     "scope none -> 5", "qkey none -> 0x00000b1b", "tclass none -> 32",
                     "indx0 false -> true", "defmember none -> full"}));
  EXPECT_TRUE(plan.partitions[0].members.empty());
  EXPECT_EQ(plan.ports_changed, 0);
  EXPECT_EQ(plan.Summary(), "+0 partitions, -0, 1 changed; 0 ports' P_Key tables change; SIGHUP");
}

TEST(Plan, PKeyChangeAndRename) {
  std::string new_pkey = kCompute;
  new_pkey.replace(new_pkey.find("0x0001"), 6, "0x0011");
  ConfigPlan plan =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + new_pkey));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(plan.partitions[0].changes, (Strings{"pkey 0x0001 -> 0x0011"}));
  EXPECT_EQ(plan.ports_changed, 3);  // h1 and both ports of h2

  std::string renamed = kCompute;
  renamed.replace(renamed.find("compute"), 7, "gpu");
  ConfigPlan rename =
      Plan(Yaml(std::string(kDefault) + kCompute), Yaml(std::string(kDefault) + renamed));
  ASSERT_EQ(rename.partitions.size(), 1u);
  EXPECT_EQ(rename.partitions[0].name, "gpu");
  EXPECT_EQ(rename.partitions[0].changes, (Strings{"name compute -> gpu"}));
  EXPECT_EQ(rename.ports_changed, 0);
}

TEST(Plan, KeywordMembersResolveThroughTheFabricPorts) {
  constexpr Guid kStranger = 0x0002c90300000077;  // on the fabric, not in the inventory
  constexpr Guid kSwitch = 0x0008f10400000100;
  std::vector<FabricPort> ports = {
      {kH1, PortKind::kCa, false},         {kPlanH2a, PortKind::kCa, false},
      {kPlanH2b, PortKind::kCa, false},    {kStranger, PortKind::kCa, false},
      {kSwitch, PortKind::kSwitch, false}, {kPlanSm, PortKind::kCa, true}};
  std::string all_limited =
      "  - name: shared\n    pkey: 0x0003\n    members:\n      - { ports: ALL, membership: limited "
      "}\n"
      "      - { host: h1 }\n";
  std::string cas_limited = all_limited;
  cas_limited.replace(cas_limited.find("ports: ALL"), 10, "ports: ALL_CAS");
  ConfigPlan plan = Plan(Yaml(std::string(kDefault) + all_limited),
                         Yaml(std::string(kDefault) + cas_limited), ports);
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(Members(plan.partitions[0]), (Strings{" 0x0008f10400000100 limited->"}));
  EXPECT_EQ(plan.ports_changed, 1);

  // An added ALL partition names every end port, the host down right now (h3,
  // not discovered) and the local SM's port included.
  ConfigPlan added = Plan(Yaml(kDefault), Yaml(std::string(kDefault) + all_limited), ports);
  ASSERT_EQ(added.partitions.size(), 1u);
  EXPECT_EQ(Members(added.partitions[0]),
            (Strings{"h1 0x0002c90300000001 ->full", "h2 0x0002c90300000002 ->limited",
                     "h2 0x0002c90300000003 ->limited", "h3 0x0002c90300000004 ->limited",
                     " 0x0002c90300000077 ->limited", " 0x0002c903000000aa ->limited",
                     " 0x0008f10400000100 ->limited"}));
  EXPECT_EQ(added.ports_changed, 7);
}

TEST(Plan, SelfMeansTheLocalSmPort) {
  std::string self = "  - name: mgmt\n    pkey: 0x0004\n    members:\n      - { ports: SELF }\n";
  ConfigPlan plan = Plan(Yaml(kDefault), Yaml(std::string(kDefault) + self));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(Members(plan.partitions[0]), (Strings{" 0x0002c903000000aa ->full"}));
}

TEST(Plan, DefaultPartitionBaseKeepsTheSmPortFull) {
  // Default from ALL=full to only h1: OpenSM's base leaves the others limited,
  // the SM's own port full.
  std::string narrow = "  - name: Default\n    pkey: 0x7fff\n    members:\n      - { host: h1 }\n";
  ConfigPlan plan = Plan(Yaml(kDefault), Yaml(narrow));
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(Members(plan.partitions[0]),
            (Strings{"h2 0x0002c90300000002 full->limited", "h2 0x0002c90300000003 full->limited",
                     "h3 0x0002c90300000004 full->limited"}));
}

TEST(Plan, OptionChangeAppliedBySighupOrRestart) {
  std::string sweep = "  opensm:\n    options:\n      sweep_interval: 20\n";
  ConfigPlan sighup = Plan(Yaml(kDefault), Yaml(kDefault, sweep));
  ASSERT_EQ(sighup.options.size(), 1u);
  EXPECT_EQ(sighup.options[0].name, "sweep_interval");
  EXPECT_EQ(sighup.options[0].before, "10");  // OpenSM's default
  EXPECT_EQ(sighup.options[0].after, "20");
  EXPECT_FALSE(sighup.options[0].needs_restart);
  EXPECT_FALSE(sighup.needs_restart);
  EXPECT_EQ(sighup.Summary(), "1 option; SIGHUP");

  std::string engine =
      "  opensm:\n    options:\n      sweep_interval: 20\n      routing_engine: ftree\n";
  ConfigPlan restart = Plan(Yaml(kDefault, sweep), Yaml(kDefault, engine));
  ASSERT_EQ(restart.options.size(), 1u);
  EXPECT_EQ(restart.options[0].name, "routing_engine");
  EXPECT_EQ(restart.options[0].after, "ftree");
  EXPECT_TRUE(restart.options[0].needs_restart);
  EXPECT_TRUE(restart.needs_restart);
  EXPECT_EQ(restart.Summary(), "1 option; OpenSM restart");
  EXPECT_NE(restart.Format().find("routing_engine  (null)  ftree  OpenSM restart"),
            std::string::npos)
      << restart.Format();

  // Removing the option writes OpenSM's default back: a change too.
  ConfigPlan back = Plan(Yaml(kDefault, sweep), Yaml(kDefault));
  ASSERT_EQ(back.options.size(), 1u);
  EXPECT_EQ(back.options[0].after, "10");
}

TEST(Plan, StateDirMovesTheFilesOpenSmReadsAtStart) {
  ConfigPlan plan = Plan(Yaml(kDefault), Yaml(kDefault, "", "state_dir: /srv/smsupd\n"));
  EXPECT_EQ(plan.other, (Strings{"state_dir /var/lib/smsupd -> /srv/smsupd"}));
  ASSERT_EQ(plan.options.size(), 3u);
  EXPECT_EQ(plan.options[0].name, "partition_config_file");
  EXPECT_EQ(plan.options[1].name, "node_name_map_name");
  EXPECT_EQ(plan.options[2].name, "log_file");
  EXPECT_TRUE(plan.needs_restart);
}

TEST(Plan, CablingAndTheNamesItGivesAreListed) {
  const std::string one =
      "cabling:\n  cables:\n"
      "    - {switch: leaf01, switch_guid: 0x1000, switch_port: 1, peer: h1, peer_port: 1}\n";
  const std::string renamed =
      "cabling:\n  cables:\n"
      "    - {switch: leaf-a, switch_guid: 0x1000, switch_port: 1, peer: h1, peer_port: 1}\n";
  ConfigPlan added = Plan(Yaml(kDefault), Yaml(kDefault, "", one));
  EXPECT_TRUE(added.changed);
  EXPECT_EQ(added.other, (Strings{"cabling: 0 -> 1 cables",
                                  "node-name map: 0 -> 1 names (OpenSM reads it when it next starts; the "
                                  "diagnostic tools at once)"}));
  EXPECT_TRUE(added.options.empty()) << "node_name_map_name names the same file with or without a cabling";
  ConfigPlan changed = Plan(Yaml(kDefault, "", one), Yaml(kDefault, "", renamed));
  EXPECT_EQ(changed.other.size(), 2u);
  EXPECT_EQ(changed.other[0], "cabling: cables changed");
  EXPECT_FALSE(Plan(Yaml(kDefault, "", one), Yaml(kDefault, "", one)).changed);
}

// smctl plan sends a text the daemon validates without opening the files it
// names: a CSV it did not read is not "every cable removed".
TEST(Plan, ACablingFileThePlanDidNotReadIsNotAChangeOfCables) {
  testing::TempDir dir;
  std::string csv = dir.Write("cabling.csv", "switch,switch_guid,switch_port,peer,peer_port\nleaf01,0x1000,1,h1,1\n");
  std::string yaml = Yaml(kDefault, "", "cabling:\n  file: " + csv + "\n");
  ValidationOutcome text = ValidateText(yaml, "<plan>", KeyFile::kNameOnly);
  ASSERT_TRUE(text.ok()) << AllDiagnostics(text);
  ConfigPlan plan = PlanConfigChange(LoadPlanConfig(yaml), *text.config, {}, kPlanSm);
  EXPECT_TRUE(plan.other.empty()) << plan.Format();
}

TEST(Plan, OtherSettingsAndTheKeyIsNeverPrinted) {
  testing::TempDir dir;
  std::string key_a = dir.Write("a", "0x1111222233334444\n", 0600);
  std::string key_b = dir.Write("b", "0x5555666677778888\n", 0600);
  std::string before = Yaml(kDefault, "  sm_key_file: " + key_a + "\n");
  std::string after = Yaml(kDefault,
                           "  priority: 13\n  preempt: false\n  sm_key_file: " + key_b +
                               "\n  failover:\n    hold_time_s: 5\n",
                           "generations:\n  keep: 3\nverify:\n  sample_ports: 0\n");
  after.replace(after.find("node: mgmt-a"), 12, "node: mgmt-b");
  ConfigPlan plan = Plan(before, after);
  EXPECT_EQ(plan.other,
            (Strings{"node mgmt-a -> mgmt-b", "sm.priority 15 -> 13", "sm.preempt true -> false",
                     "sm.sm_key_file " + key_a + " -> " + key_b, "sm.sm_key changed",
                     "sm.failover.hold_time_s 60 -> 5", "generations.keep 20 -> 3",
                     "verify.sample_ports 32 -> 0"}));
  EXPECT_TRUE(plan.options.empty());
  EXPECT_TRUE(plan.opensm_affected);  // priority and key: SIGHUP
  EXPECT_EQ(plan.Summary(), "8 other changes; SIGHUP");
  std::string everything = plan.Format() + plan.ToJson().dump();
  for (const char* secret : {"1111222233334444", "5555666677778888"})
    EXPECT_EQ(everything.find(secret), std::string::npos) << secret;
}

// m_key and sa_key come from key files: the plan names the files and the
// options that change, never a key.
TEST(Plan, MKeyAndSaKeyChangesNeverShowTheirValues) {
  testing::TempDir dir;
  std::string m_a = dir.Write("m_a", "0x1111222233334444\n", 0600);
  std::string m_b = dir.Write("m_b", "0x5555666677778888\n", 0600);
  std::string sa = dir.Write("sa", "0x9999aaaabbbbcccc\n", 0600);
  ConfigPlan plan = Plan(Yaml(kDefault, "  m_key_file: " + m_a + "\n"),
                         Yaml(kDefault, "  m_key_file: " + m_b + "\n  sa_key_file: " + sa + "\n"));
  ASSERT_EQ(plan.options.size(), 2u);
  EXPECT_EQ(plan.options[0].name, "m_key");
  EXPECT_EQ(plan.options[1].name, "sa_key");
  EXPECT_EQ(plan.other, (Strings{"sm.m_key_file " + m_a + " -> " + m_b, "sm.sa_key_file none -> " + sa}));
  EXPECT_TRUE(plan.opensm_affected);
  std::string everything = plan.Format() + plan.ToJson().dump() + plan.Summary();
  for (const char* secret : {"1111222233334444", "5555666677778888", "9999aaaabbbbcccc"})
    EXPECT_EQ(everything.find(secret), std::string::npos) << secret << " in\n" << everything;
  EXPECT_NE(everything.find("<redacted>"), std::string::npos);
}

// A key file's new content alone is a change too: OpenSM must re-read it.
TEST(Plan, ANewKeyInTheSameFileIsAChange) {
  testing::TempDir dir;
  std::string file = dir.Write("m_key", "0x1111222233334444\n", 0600);
  Config before = LoadPlanConfig(Yaml(kDefault, "  m_key_file: " + file + "\n"));
  dir.Write("m_key", "0x5555666677778888\n", 0600);
  Config after = LoadPlanConfig(Yaml(kDefault, "  m_key_file: " + file + "\n"));
  ConfigPlan plan = PlanConfigChange(before, after, {}, kPlanSm);
  ASSERT_EQ(plan.options.size(), 1u);
  EXPECT_EQ(plan.options[0].name, "m_key");
  EXPECT_EQ(plan.options[0].before, "<redacted>");
  EXPECT_TRUE(plan.opensm_affected);
}

// A caller's text is validated without opening its key files: each file it
// names counts as holding the running key, and one it no longer names as
// the key removed.
TEST(Plan, KeyFilesOfACallersTextAreAssumedToHoldTheRunningKeys) {
  testing::TempDir dir;
  std::string m_key = dir.Write("m_key", "0x1111222233334444\n", 0600);
  std::string sa_key = dir.Write("sa_key", "0x5555666677778888\n", 0600);
  const std::string keys = "  m_key_file: " + m_key + "\n  sa_key_file: " + sa_key + "\n";
  Config running = LoadPlanConfig(Yaml(kDefault, keys));
  ValidationOutcome text = ValidateText(Yaml(kDefault, keys), "<plan>", KeyFile::kNameOnly);
  ASSERT_TRUE(text.ok()) << AllDiagnostics(text);
  Config same = *text.config;
  AssumeRunningKeys(running, same);
  EXPECT_FALSE(PlanConfigChange(running, same, {}, kPlanSm).changed);
  ValidationOutcome without = ValidateText(Yaml(kDefault, "  m_key_file: " + m_key + "\n"), "<plan>",
                                           KeyFile::kNameOnly);
  ASSERT_TRUE(without.ok()) << AllDiagnostics(without);
  Config removed = *without.config;
  AssumeRunningKeys(running, removed);
  ConfigPlan plan = PlanConfigChange(running, removed, {}, kPlanSm);
  ASSERT_EQ(plan.options.size(), 1u);
  EXPECT_EQ(plan.options[0].name, "sa_key");
  EXPECT_EQ(plan.other, (Strings{"sm.sa_key_file " + sa_key + " -> none"}));
}

TEST(Plan, DaemonOnlySettingsLeaveOpenSmUntouched) {
  ConfigPlan plan = Plan(Yaml(kDefault), Yaml(kDefault, "", "verify:\n  timeout_s: 5\n"));
  EXPECT_TRUE(plan.changed);
  EXPECT_EQ(plan.other, (Strings{"verify.timeout_s 20 -> 5"}));
  EXPECT_FALSE(plan.opensm_affected);
  EXPECT_EQ(plan.Summary(), "1 other change; OpenSM untouched");
}

TEST(Plan, InventoryChangesAreListedThenCounted) {
  std::string before = Yaml(kDefault);
  std::string after = before;
  after.replace(after.find("  h3: 0x0002c90300000004\n"), 25, "  h4: 0x0002c90300000005\n");
  ConfigPlan plan = Plan(before, after);
  EXPECT_EQ(plan.other, (Strings{"hosts: h4 added", "hosts: h3 removed"}));
  // Naming ports changes nothing on the fabric: ALL picks both before and after.
  EXPECT_TRUE(plan.partitions.empty()) << plan.Format();
  EXPECT_EQ(plan.ports_changed, 0);
  EXPECT_EQ(plan.Summary(), "2 other changes; OpenSM untouched");

  std::string many = before;
  std::string hosts;
  for (int i = 10; i < 22; ++i)
    hosts += "  n" + std::to_string(i) + ": 0x00000000000001" + std::to_string(i) + "\n";
  many.insert(many.find("groups:"), hosts);
  EXPECT_EQ(Plan(before, many).other, (Strings{"hosts: +12, -0, 0 changed"}));
}

TEST(Plan, LongMemberListsAreCutInTheTableNotInJson) {
  std::string hosts, members;
  for (int i = 10; i < 35; ++i) {
    hosts += "  n" + std::to_string(i) + ": 0x00000000000001" + std::to_string(i) + "\n";
    members += "      - { host: n" + std::to_string(i) + " }\n";
  }
  std::string before = Yaml(kDefault);
  before.insert(before.find("groups:"), hosts);
  std::string after = before + "  - name: big\n    pkey: 0x0005\n    members:\n" + members;
  ConfigPlan plan = Plan(before, after);
  ASSERT_EQ(plan.partitions.size(), 1u);
  EXPECT_EQ(plan.partitions[0].members.size(), 25u);
  EXPECT_NE(plan.Format().find("  ... 5 more in big (--json lists up to 10000 in all)\n"),
            std::string::npos)
      << plan.Format();
  EXPECT_EQ(plan.ToJson()["partitions"][0]["members"].size(), 25u);
  EXPECT_EQ(plan.ToJson()["partitions"][0]["members_total"], 25u);
}

// 3 partitions of 6,000 new members each: 10,000 listed (the first
// partition's 6,000, the second's first 4,000), every one counted.
TEST(Plan, APlanListsAtMostTenThousandMemberChangesAndCountsTheRest) {
  std::string hosts;
  for (int i = 0; i < 6000; ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "  n%d: 0x0002c9040%07x\n", i, i + 1);
    hosts += line;
  }
  std::string before = Yaml(kDefault);
  before.insert(before.find("groups:"), hosts);
  std::string all = "[";
  for (int i = 0; i < 6000; ++i) all += (i ? ", n" : "n") + std::to_string(i);
  before.insert(before.find("groups:") + 8, "  many: " + all + "]\n");
  std::string after = before;
  for (int p = 0; p < 3; ++p)
    after += "  - { name: big" + std::to_string(p) + ", pkey: " + std::to_string(p + 5) +
             ", members: [{ group: many }] }\n";
  ConfigPlan plan = Plan(before, after);
  ASSERT_EQ(plan.partitions.size(), 3u);
  std::size_t listed = 0;
  for (const PartitionPlan& partition : plan.partitions) {
    EXPECT_EQ(partition.members_total, 6000u);
    listed += partition.members.size();
  }
  EXPECT_EQ(listed, kMaxListedMemberChanges);
  EXPECT_EQ(plan.partitions[2].members.size(), 0u);
  EXPECT_EQ(plan.ToJson()["partitions"][2]["members_total"], 6000u);
  EXPECT_NE(plan.Format().find("  ... 5980 more in big0"), std::string::npos) << plan.Format();
  EXPECT_NE(plan.Format().find("  ... 6000 more in big2"), std::string::npos) << plan.Format();
}

TEST(Plan, JsonHasTheWireKeys) {
  std::string sweep = "  opensm:\n    options:\n      lmc: 1\n";
  ConfigPlan plan = Plan(Yaml(std::string(kDefault) + kCompute),
                         Yaml(std::string(kDefault) + kCompute + kStorage, sweep));
  nlohmann::json json = plan.ToJson();
  EXPECT_EQ(json["changed"], true);
  EXPECT_EQ(json["summary"], plan.Summary());
  EXPECT_EQ(json["ports_changed"], 1);
  EXPECT_EQ(json["needs_restart"], true);
  EXPECT_EQ(json["other"], nlohmann::json::array());
  EXPECT_EQ(json["partitions"][0], (nlohmann::json{{"name", "storage"},
                                                   {"pkey", "0x0002"},
                                                   {"kind", "added"},
                                                   {"changes", nlohmann::json::array()},
                                                   {"members",
                                                    {{{"guid", "0x0002c90300000004"},
                                                      {"host", "h3"},
                                                      {"before", ""},
                                                      {"after", "full"}}}},
                                                   {"members_total", 1}}));
  EXPECT_EQ(
      json["options"][0],
      (nlohmann::json{{"name", "lmc"}, {"before", "0"}, {"after", "1"}, {"needs_restart", true}}));
}

}  // namespace
}  // namespace smsupd::config
