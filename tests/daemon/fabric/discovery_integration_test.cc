// UmadFabric::DiscoverPorts() on ibsim under a real OpenSM: run by
// fabric_probe on an HCA, compared port by port with the test bed's own
// directed-route walk (FabricProbe::Discover) and with the topology.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kWalkSweepDeadline(60000);
constexpr milliseconds kWalkProbeDeadline(30000);

class DiscoveryIntegrationTest : public FabricTest {
 protected:
  // Starts `topology` with OpenSM (priority 15) on the first management
  // node and waits until every HCA has its LID and SM LID.
  void StartWithOpenSm(Result<Topology> topology) {
    ASSERT_TRUE(topology.ok()) << topology.error().message;
    ASSERT_TRUE(StartFabric(std::move(*topology)));
    const std::string& sm_node = fabric().topology().management_nodes()[0];
    auto sm = StartOpenSm(fabric(), OpenSmOn(sm_node, 15));
    ASSERT_TRUE(sm.ok()) << sm.error().message;
    auto sm_lid = WaitForCaLid(probe(), fabric().topology(), sm_node, kWalkSweepDeadline);
    ASSERT_TRUE(sm_lid.ok()) << sm_lid.error().message;
    Status all = WaitForEveryCaSmLid(probe(), fabric().topology(), *sm_lid, kWalkSweepDeadline);
    ASSERT_TRUE(all.ok()) << all.message();
  }

  // fabric_probe's `discover` answer, run on `node`.
  Json DiscoverOn(const std::string& node) {
    auto process = fabric().RunOnNode(node, {FABRIC_PROBE_PATH, "--deadline-ms", "20000", "discover"},
                                      "discover-" + node);
    EXPECT_TRUE(process.ok()) << process.error().message;
    if (!process.ok()) return Json::object();
    auto exited = (*process)->process->Wait(kWalkProbeDeadline);
    EXPECT_TRUE(exited.ok()) << "fabric_probe did not finish";
    std::ifstream output((*process)->output_path);
    for (std::string line; std::getline(output, line);) {
      if (!line.empty() && line[0] == '{') return Json::parse(line);  // skip umad2sim's chatter
    }
    ADD_FAILURE() << "no answer from fabric_probe";
    return Json::object();
  }
};

TEST_F(DiscoveryIntegrationTest, FindsTheSamePortsAsTheTestBedWalk) {
  ASSERT_NO_FATAL_FAILURE(StartWithOpenSm(MakeFatTree(3, 4, 2)));
  Json answer = DiscoverOn("H3_4");  // a far HCA, not the SM's
  ASSERT_TRUE(answer.value("ok", false)) << answer.dump();
  auto truth = probe().Discover();
  ASSERT_TRUE(truth.ok()) << truth.error().message;

  std::map<std::string, Json> found;
  for (const Json& port : answer.at("ports")) found[port.at("port_guid").get<std::string>()] = port;
  EXPECT_EQ(found.size(), answer.at("ports").size()) << "a port listed twice";
  ASSERT_EQ(found.size(), truth->size());
  ASSERT_EQ(found.size(), fabric().topology().Cas().size() + fabric().topology().Switches().size());
  const std::string sm_guid = FormatGuid(fabric().topology().Find("H1_1")->PortGuid(1));
  // ibsim's NodeDescription is the node's name in the net file.
  std::map<std::string, std::string> names;
  for (const TopoNode* node : fabric().topology().Cas()) names[FormatGuid(node->PortGuid(1))] = node->name;
  for (const TopoNode* node : fabric().topology().Switches()) names[FormatGuid(node->node_guid)] = node->name;
  for (const WalkedPort& walked : *truth) {
    const std::string guid = FormatGuid(walked.node.port_guid);
    ASSERT_EQ(found.count(guid), 1u) << guid << " (" << walked.node.description << ") not discovered";
    const Json& port = found[guid];
    EXPECT_EQ(port["node_guid"], FormatGuid(walked.node.node_guid)) << guid;
    EXPECT_EQ(port["node_type"], walked.node.type) << guid;
    EXPECT_EQ(port["port_num"], walked.port) << guid;
    EXPECT_EQ(port["lid"], walked.port_info.lid) << guid;
    EXPECT_NE(port["lid"], 0) << guid;
    EXPECT_EQ(port["node_description"], names[guid]) << guid;
    EXPECT_EQ(port["is_sm"], guid == sm_guid) << guid;
  }
  std::printf("discovered %zu end ports in %.1f ms\n", found.size(), answer.value("walk_us", 0) / 1000.0);
  RecordProperty("walk_us", std::to_string(answer.value("walk_us", 0)));
}

// A cable pulled between a leaf and a spine: the fat tree stays connected
// and every port is still found; a host whose only link is down is not.
TEST_F(DiscoveryIntegrationTest, DownLinksAreWalkedAround) {
  ASSERT_NO_FATAL_FAILURE(StartWithOpenSm(MakeFatTree(3, 4, 2)));
  ASSERT_TRUE(fabric().UnlinkPort("H2_3", 1).ok());
  ASSERT_TRUE(fabric().UnlinkPort("L2", 5).ok());  // leaf 2's first spine link
  const std::string gone = FormatGuid(fabric().topology().Find("H2_3")->PortGuid(1));
  const size_t all = fabric().topology().Cas().size() + fabric().topology().Switches().size();
  Json answer;
  Status settled = WaitFor(
      "the unplugged HCA to drop out of the walk",
      [&] {
        answer = DiscoverOn("H3_4");
        if (!answer.value("ok", false)) return false;
        for (const Json& port : answer.at("ports"))
          if (port.at("port_guid") == gone) return false;
        return true;
      },
      kWalkSweepDeadline, milliseconds(200));
  ASSERT_TRUE(settled.ok()) << settled.message() << answer.dump();
  EXPECT_EQ(answer.at("ports").size(), all - 1);
}

}  // namespace
}  // namespace smsupd::testbed
