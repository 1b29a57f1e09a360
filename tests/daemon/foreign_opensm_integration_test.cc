// FOREIGN_OPENSM on a simulated fabric: a plain OpenSM started on the
// management node's own port beside smsupd's (as Debian's opensm@GUID.service
// runs it: `opensm --guid GUID --log_file ...`) is a critical problem in
// `smctl status` until it stops. The management node gets a port GUID no
// other test uses: the scan looks at every process of the machine, and
// tests running at the same time must not see this one's OpenSM on theirs.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kWaitLimit(60000);
constexpr Guid kUniqueNodeGuid = 0x0002c9030f0e0000;

// The two-switch topology with the first management node's GUID replaced.
Topology WithUniqueManagementGuid(const Topology& base) {
  Topology topology;
  for (TopoNode node : base.nodes()) {
    if (node.name == base.management_nodes()[0]) node.node_guid = kUniqueNodeGuid;
    topology.AddNode(node);
  }
  for (const TopoLink& link : base.links()) topology.AddLink(link);
  topology.SetManagementNodes(base.management_nodes()[0], base.management_nodes()[1]);
  return topology;
}

bool HasProblem(const json& status, const std::string& id) {
  for (const json& problem : status["health"].value("problems", json::array()))
    if (problem.value("id", "") == id) return true;
  return false;
}

class ForeignOpenSmTest : public FabricTest {};

TEST_F(ForeignOpenSmTest, APlainOpenSmOnOurPortIsCriticalUntilItStops) {
  ASSERT_TRUE(StartFabric(WithUniqueManagementGuid(MakeTwoSwitchTopology())));
  const std::string name = fabric().topology().management_nodes()[0];
  Result<std::unique_ptr<ManagementNode>> created =
      ManagementNode::Create(fabric(), SmNodesConfig(fabric().topology(), name, "master"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  ManagementNode& node = **created;
  Status started = node.Start();
  ASSERT_TRUE(started.ok()) << started.message();
  Result<json> master = node.WaitForStatus(
      [](const json& s) { return s["local_sm"]["state"] == "MASTER"; }, "smsupd's OpenSM MASTER", kWaitLimit);
  ASSERT_TRUE(master.ok()) << master.error().message;
  EXPECT_FALSE(HasProblem(*master, "FOREIGN_OPENSM")) << master->dump();

  Result<std::string> dir = fabric().NewProcessDir("plain-opensm");
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  const std::string guid = FormatGuid(node.port_guid());
  Result<NodeProcess*> plain = fabric().RunOnNodeIn(
      name, {"/usr/sbin/opensm", "--guid", guid, "--log_file", *dir + "/opensm.log"}, *dir, "plain-opensm",
      false, {{"OSM_TMP_DIR", *dir}, {"OSM_CACHE_DIR", *dir}});
  ASSERT_TRUE(plain.ok()) << plain.error().message;

  Result<json> raised = node.WaitForStatus(
      [](const json& s) { return HasProblem(s, "FOREIGN_OPENSM"); }, "FOREIGN_OPENSM in health.problems",
      kWaitLimit);
  ASSERT_TRUE(raised.ok()) << raised.error().message << "\n" << node.LogTail();
  for (const json& problem : (*raised)["health"]["problems"]) {
    if (problem.value("id", "") == "FOREIGN_OPENSM") {
      EXPECT_NE(problem.dump().find(guid), std::string::npos) << problem.dump();
    }
  }

  (*plain)->process->Kill();
  Result<json> cleared = node.WaitForStatus(
      [](const json& s) { return !HasProblem(s, "FOREIGN_OPENSM"); }, "FOREIGN_OPENSM cleared", kWaitLimit);
  EXPECT_TRUE(cleared.ok()) << cleared.error().message << "\n" << node.LogTail();
}

}  // namespace
}  // namespace smsupd::testbed
