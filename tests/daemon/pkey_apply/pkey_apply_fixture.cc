#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"

#include <signal.h>

#include <fstream>
#include <future>

#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {

using nlohmann::json;
using std::chrono::milliseconds;

void PKeyApplyTest::SetUp() {
  Result<Topology> topology = MakeFatTree(2, 4, 2);
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  ShapeTopology(*topology);
  ASSERT_TRUE(StartFabric(*topology));
  StartNode(fabric().topology().management_nodes()[0], "master", "MASTER");
  ASSERT_FALSE(HasFailure());
  // Every test here needs the generation history: a daemon or smctl that
  // answers it "unsupported" fails them all at once, with the reply.
  SmctlResult history = master().Smctl({"--json", "history"});
  json answer = history.Json();
  ASSERT_FALSE(history.exit_code == 2 || (answer.is_object() && answer.value("result", 0) == 2))
      << "`smctl history` is unsupported: " << history.Describe();
  ASSERT_NO_FATAL_FAILURE(WaitForFabricToMatchMaster(kStartDeadline));
}

void PKeyApplyTest::TearDown() {
  // Standbys first, so that none takes over while the master stops.
  while (!nodes_.empty()) nodes_.pop_back();
  FabricTest::TearDown();
}

void PKeyApplyTest::AddTenants(SmsupdConfig& config) {
  config.partitions.push_back({"tenant-a", 0x0010, true, std::nullopt,
                               {HostMember("H1_3", "full"), HostMember("H1_4", "full"),
                                HostMember("H2_1", "limited")}});
  config.partitions.push_back(
      {"tenant-b", 0x0020, false, std::nullopt, {HostMember("H2_2", "full"), HostMember("H2_3", "full")}});
}

ManagementNode* PKeyApplyTest::StartNode(const std::string& node, const std::string& role,
                                         const std::string& state) {
  SmsupdConfig config = EveryHcaConfig(fabric().topology(), node, role);
  AddTenants(config);
  ConfigureNode(config);
  Result<std::unique_ptr<ManagementNode>> created = ManagementNode::Create(fabric(), std::move(config));
  EXPECT_TRUE(created.ok()) << created.error().message;
  if (!created.ok()) return nullptr;
  nodes_.push_back(std::move(*created));
  ManagementNode& added = *nodes_.back();
  Status started = added.Start();
  EXPECT_TRUE(started.ok()) << started.message();
  Status reached = added.WaitForSmState(state, kStartDeadline);
  EXPECT_TRUE(reached.ok()) << reached.message();
  return &added;
}

FabricPKeyTables PKeyApplyTest::Tables() {
  Result<FabricPKeyTables> tables = ReadFabricPKeyTables(probe());
  EXPECT_TRUE(tables.ok()) << tables.error().message;
  return tables.ok() ? *tables : FabricPKeyTables{};
}

std::string PKeyApplyTest::MismatchesWith(ManagementNode& node) {
  Result<config::Config> config = LoadConfig(node.config_path());
  if (!config) return config.error().message;
  Result<FabricPKeyTables> tables = ReadFabricPKeyTables(probe());
  if (!tables) return tables.error().message;
  return DescribeMismatches(*tables, *config, master().port_guid());
}

void PKeyApplyTest::WaitForFabricToMatchMaster(milliseconds deadline) {
  Status matched = WaitFor(
      "every port's P_Key table as " + master().config_path() + " says",
      [&](std::string& why) {
        why = MismatchesWith(master());
        return why.empty();
      },
      deadline, milliseconds(250));
  ASSERT_TRUE(matched.ok()) << matched.message();
}

SmctlResult PKeyApplyTest::ApplyWithWait(ManagementNode& node, const std::vector<std::string>& command) {
  std::vector<std::string> args = {"--json"};
  args.insert(args.end(), command.begin(), command.end());
  args.insert(args.end(), {"--wait", "--timeout", std::to_string(kWaitTimeoutS)});
  return node.Smctl(args, kWaitingSmctlDeadline);
}

json PKeyApplyTest::ApplyAndExpectVerified() {
  std::uint64_t before = Generation(master());
  std::optional<pid_t> opensm = master().OpenSmPid();
  EXPECT_TRUE(opensm.has_value()) << "no OpenSM runs for " << master().node();
  EXPECT_TRUE(master().WriteConfig().ok());
  SmctlResult reply = ApplyWithWait(master(), {"reload"});
  EXPECT_EQ(reply.exit_code, 0) << reply.Describe();
  json args = reply.Arguments();
  EXPECT_TRUE(args.is_object()) << reply.Describe();
  if (!args.is_object()) return args;
  EXPECT_EQ(reply.VerificationState(), "verified") << reply.Describe();
  EXPECT_EQ(args.value("generation", 0ull), before + 1) << reply.Describe();
  EXPECT_FALSE(args.value("rolled_back", false)) << reply.Describe();
  // Verified means OpenSM finished the sweep: no waiting from here on.
  EXPECT_EQ(MismatchesWith(master()), "") << "after: " << reply.Describe();
  EXPECT_EQ(master().OpenSmPid(), opensm) << "OpenSM was restarted";
  EXPECT_EQ(Generation(master()), before + 1);
  return args;
}

SmctlResult PKeyApplyTest::ReloadThatOpenSmReadsCorrupted() {
  const std::string conf_before = master().PartitionsConf();
  std::optional<pid_t> opensm = master().OpenSmPid();
  EXPECT_TRUE(opensm.has_value()) << "no OpenSM runs for " << master().node();
  EXPECT_TRUE(master().WriteConfig().ok());
  if (!opensm || ::kill(*opensm, SIGSTOP) != 0) {
    ADD_FAILURE() << "cannot stop OpenSM";
    return {};
  }
  std::future<SmctlResult> reload =
      std::async(std::launch::async, [&] { return ApplyWithWait(master(), {"reload"}); });
  Status installed = WaitFor("smsupd installs the new partitions.conf",
                             [&] { return master().PartitionsConf() != conf_before; }, milliseconds(20000),
                             milliseconds(2));
  if (installed.ok()) {
    std::ofstream corrupt(master().StatePath("partitions.conf"), std::ios::trunc);
    corrupt << "# corrupted after validation\n";
  }
  ::kill(*opensm, SIGCONT);
  EXPECT_TRUE(installed.ok()) << installed.message();
  return reload.get();
}

std::uint64_t PKeyApplyTest::Generation(ManagementNode& node) {
  SmctlResult status = node.Smctl({"--json", "status"});
  json parsed = status.Json();
  EXPECT_EQ(status.exit_code, 0) << status.Describe();
  if (!parsed.is_object() || !parsed.contains("config")) return 0;
  return parsed["config"].value("generation", 0ull);
}

json PKeyApplyTest::History(ManagementNode& node) {
  SmctlResult history = node.Smctl({"--json", "history"});
  EXPECT_EQ(history.exit_code, 0) << history.Describe();
  json args = history.Arguments();
  EXPECT_TRUE(args.is_object() && args.contains("generations")) << history.Describe();
  return args.is_object() && args.contains("generations") && args["generations"].is_array() ? args
                                                                                           : json::object();
}

json PKeyApplyTest::HistoryEntry(const json& history, std::uint64_t number) {
  for (const json& entry : history.value("generations", json::array()))
    if (entry.is_object() && entry.value("generation", 0ull) == number) return entry;
  return json::object();
}

std::string Text(const json& value, const std::string& key) {
  if (!value.is_object() || !value.contains(key) || value[key].is_null()) return "";
  return value[key].is_string() ? value[key].get<std::string>() : value[key].dump();
}

}  // namespace smsupd::testbed::pkey
