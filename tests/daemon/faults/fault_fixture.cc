#include "tests/daemon/faults/fault_fixture.h"

#include <sys/stat.h>

#include <sstream>

#include "common/atomic_file.h"
#include "tests/daemon/pkey_apply/expected_tables.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {

using nlohmann::json;
using std::chrono::milliseconds;

void FaultTest::TearDown() {
  if (HasFailure())
    for (auto& node : nodes_) std::cerr << node->LogTail();
  // Standbys first, so that none takes over while the master stops.
  while (!nodes_.empty()) nodes_.pop_back();
  FabricTest::TearDown();
}

void FaultTest::StartSmallFabric() {
  Result<Topology> topology = MakeFatTree(2, 4, 2);
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  ASSERT_TRUE(StartFabric(*topology));
}

SmsupdConfig FaultTest::TenantConfig(const std::string& node, const std::string& role) {
  SmsupdConfig config = EveryHcaConfig(fabric().topology(), node, role);
  config.partitions.push_back({"tenant-a", 0x0010, true, std::nullopt,
                               {HostMember("H1_3", "full"), HostMember("H1_4", "full"),
                                HostMember("H2_1", "limited")}});
  config.partitions.push_back(
      {"tenant-b", 0x0020, false, std::nullopt, {HostMember("H2_2", "full"), HostMember("H2_3", "full")}});
  return config;
}

void FaultTest::AddTenantC(SmsupdConfig& config) {
  config.partitions.push_back(
      {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full"), HostMember("H1_3", "limited")}});
}

ManagementNode* FaultTest::AddNode(SmsupdConfig config) {
  Result<std::unique_ptr<ManagementNode>> created = ManagementNode::Create(fabric(), std::move(config));
  EXPECT_TRUE(created.ok()) << created.error().message;
  if (!created.ok()) return nullptr;
  nodes_.push_back(std::move(*created));
  return nodes_.back().get();
}

void FaultTest::StartAndWait(ManagementNode& node, const std::string& state,
                             const std::map<std::string, std::string>& environment) {
  Status started = node.Start(environment);
  ASSERT_TRUE(started.ok()) << started.message();
  Status reached = node.WaitForSmState(state, kStartDeadline);
  ASSERT_TRUE(reached.ok()) << reached.message();
}

FabricPKeyTables FaultTest::Tables() {
  Result<FabricPKeyTables> tables = ReadFabricPKeyTables(probe());
  EXPECT_TRUE(tables.ok()) << tables.error().message;
  return tables.ok() ? *tables : FabricPKeyTables{};
}

std::string FaultTest::MismatchesWith(const std::string& config_path, Guid sm_port) {
  Result<config::Config> config = pkey::LoadConfig(config_path);
  if (!config) return config.error().message;
  Result<FabricPKeyTables> tables = ReadFabricPKeyTables(probe());
  if (!tables) return tables.error().message;
  return pkey::DescribeMismatches(*tables, *config, sm_port);
}

Status FaultTest::WaitForFabricToMatch(const std::string& config_path, Guid sm_port, milliseconds deadline) {
  return WaitFor(
      "every port's P_Key table as " + config_path + " says",
      [&](std::string& why) {
        why = MismatchesWith(config_path, sm_port);
        return why.empty();
      },
      deadline, milliseconds(250));
}

std::size_t OutputSize(const ManagementNode& node) {
  struct stat info {};
  return ::stat(node.smsupd_log().c_str(), &info) == 0 ? static_cast<std::size_t>(info.st_size) : 0;
}

std::vector<std::string> ErrorLines(const ManagementNode& node, std::size_t from) {
  Result<std::string> text = ReadWholeFile(node.smsupd_log());
  std::vector<std::string> lines;
  if (!text || from >= text->size()) return lines;
  std::istringstream in(text->substr(from));
  for (std::string line; std::getline(in, line);)
    if (line.find("] error ") != std::string::npos || line.find("] critical ") != std::string::npos)
      lines.push_back(line);
  return lines;
}

std::vector<std::string> ProblemIds(const ManagementNode& node) {
  std::vector<std::string> ids;
  Result<json> status = node.StatusJson();
  if (!status) return {"(no status: " + status.error().message + ")"};
  for (const json& problem : status->value("health", json::object()).value("problems", json::array()))
    ids.push_back(problem.value("id", std::string("?")));
  return ids;
}

std::vector<json> EventsOfKind(const ManagementNode& node, const std::string& kind) {
  std::vector<json> matching;
  Result<std::vector<json>> events = node.Events();
  if (!events) return matching;
  for (const json& event : *events)
    if (SameEventKind(event.value("kind", std::string()), kind)) matching.push_back(event);
  return matching;
}

}  // namespace smsupd::testbed::faults
