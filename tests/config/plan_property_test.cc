// PlanConfigChange() against an independent derivation: pairs of random
// valid configs are rendered and read through the test-side model of OpenSM
// (opensm_partition_model.h); the plan must count exactly the ports whose
// P_Key table the model changes, and each member change it reports must be
// what the model gives that port before and after.
#include <gtest/gtest.h>

#include "config/plan.h"
#include "config/renderer.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/config/random_config.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using Tables = std::map<Guid, std::set<std::uint16_t>>;

constexpr std::uint16_t kFullBit = 0x8000;

Config Load(const testing::RandomCase& random) {
  ValidationOutcome outcome = testing::Validate(random.yaml);
  EXPECT_TRUE(outcome.ok()) << "seed " << random.seed << "\n"
                            << testing::AllDiagnostics(outcome) << random.yaml;
  return outcome.ok() ? *outcome.config : Config{};
}

// The fabric's ports plus every port either config names (what the plan
// promises to consider), as CA ports.
std::vector<FabricPort> PlannedPorts(std::vector<FabricPort> ports, const Config& a,
                                     const Config& b) {
  std::set<Guid> known;
  for (const FabricPort& port : ports) known.insert(port.guid);
  for (const Config* config : {&a, &b}) {
    std::vector<Guid> named;
    for (const auto& [host, guids] : config->hosts)
      named.insert(named.end(), guids.begin(), guids.end());
    for (const Partition& partition : config->partitions)
      for (const Member& member : partition.members)
        if (member.kind == Member::Kind::kGuid) named.push_back(member.guid);
    for (Guid guid : named)
      if (known.insert(guid).second) ports.push_back({guid, PortKind::kCa, false});
  }
  return ports;
}

Tables ModelTables(const Config& config, const std::vector<FabricPort>& ports) {
  RenderedFiles files = Render(config, RenderInputs{});
  bool allow_both = testing::OpenSmConfValue(files.opensm_conf, "allow_both_pkeys") == "TRUE";
  auto tables = testing::ApplyPartitionsConf(files.partitions_conf, allow_both, ports);
  EXPECT_TRUE(tables.ok()) << (tables.ok() ? "" : tables.error().message);
  return tables.ok() ? *tables : Tables{};
}

// "", "limited", "full" or "both": the port's membership in `pkey` per model.
std::string MembershipIn(const Tables& tables, Guid guid, std::uint16_t pkey) {
  auto it = tables.find(guid);
  if (it == tables.end()) return "";
  bool full = it->second.count(pkey | kFullBit) != 0;
  bool limited = it->second.count(pkey) != 0;
  return full && limited ? "both" : full ? "full" : limited ? "limited" : "";
}

bool PKeyChanged(const PartitionPlan& partition) {
  for (const std::string& change : partition.changes)
    if (change.rfind("pkey ", 0) == 0) return true;
  return false;
}

// 0x7fff is always there: explicit or OpenSM's implicit default.
std::set<std::uint16_t> PKeysOf(const Config& config) {
  std::set<std::uint16_t> pkeys = {kDefaultPKey};
  for (const Partition& partition : config.partitions) pkeys.insert(partition.pkey);
  return pkeys;
}

void CheckPair(const testing::RandomCase& a, const testing::RandomCase& b,
               const std::vector<FabricPort>& fabric, Guid sm_port) {
  Config before = Load(a);
  Config after = Load(b);
  std::vector<FabricPort> ports = PlannedPorts(fabric, before, after);
  Tables old_tables = ModelTables(before, ports);
  Tables new_tables = ModelTables(after, ports);
  int changed = 0;
  for (const FabricPort& port : ports) changed += old_tables[port.guid] != new_tables[port.guid];

  ConfigPlan plan = PlanConfigChange(before, after, fabric, sm_port);
  std::string context =
      "seeds " + std::to_string(a.seed) + " -> " + std::to_string(b.seed) + "\n" + plan.Format();
  ASSERT_EQ(plan.ports_changed, changed) << context;
  // The model knows P_Keys, the plan partitions: compare a side only where
  // the partition's P_Key belongs to no other partition on that side.
  std::set<std::uint16_t> old_pkeys = PKeysOf(before), new_pkeys = PKeysOf(after);
  for (const PartitionPlan& partition : plan.partitions) {
    if (PKeyChanged(partition)) continue;  // before/after are two P_Keys
    using Kind = PartitionPlan::Kind;
    bool check_before = partition.kind != Kind::kAdded || old_pkeys.count(partition.pkey) == 0;
    bool check_after = partition.kind != Kind::kRemoved || new_pkeys.count(partition.pkey) == 0;
    for (const MemberChange& member : partition.members) {
      std::string where = FormatGuid(member.guid) + " in " + partition.name + ", " + context;
      if (check_before) {
        EXPECT_EQ(member.before, MembershipIn(old_tables, member.guid, partition.pkey)) << where;
      }
      if (check_after) {
        EXPECT_EQ(member.after, MembershipIn(new_tables, member.guid, partition.pkey)) << where;
      }
    }
  }
  EXPECT_FALSE(PlanConfigChange(after, after, fabric, sm_port).changed) << context;
}

TEST(PlanProperty, RandomConfigPairsMatchTheOpenSmModel) {
  std::vector<testing::TestNode> nodes = testing::TestFabricNodes();
  Guid sm_port = nodes[1].PortGuid(1);
  std::vector<FabricPort> fabric = testing::TestFabricPorts(nodes, sm_port);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    testing::RandomCase a = testing::RandomConfig(nodes, sm_port, seed);
    testing::RandomCase b = testing::RandomConfig(nodes, sm_port, seed + 1000);
    ASSERT_NO_FATAL_FAILURE(CheckPair(a, b, fabric, sm_port));
  }
}

}  // namespace
}  // namespace smsupd::config
