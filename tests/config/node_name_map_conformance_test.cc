// The rendered node-name map read by its real readers on the test fabric:
// OpenSM starts with node_name_map_name pointing at it, and ibnetdiscover
// given --node-name-map shows the cabling's names, hostile ones included.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/guid.h"
#include "config/node_name_map.h"
#include "tests/config/conformance_fixture.h"

namespace smsupd::config::testing {
namespace {

constexpr auto kToolDeadline = std::chrono::seconds(60);

class NodeNameMapConformance : public ConformanceTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartTestFabric()); }

  // ibnetdiscover on H2 with the installed map; its output.
  std::string Discover() {
    auto process = fabric().RunOnNode("H2", {"ibnetdiscover", "--node-name-map", NodeNameMapFile()}, "ibnetdiscover");
    EXPECT_TRUE(process.ok()) << process.error().message;
    if (!process.ok()) return "";
    EXPECT_TRUE((*process)->process->Wait(kToolDeadline).ok()) << "ibnetdiscover did not finish";
    std::ifstream output((*process)->output_path);
    std::stringstream text;
    text << output.rdbuf();
    return text.str();
  }
};

TEST_F(NodeNameMapConformance, OpenSmAndIbnetdiscoverReadTheCablingsNames) {
  Guid sw1 = 0, h3 = 0;
  for (const TestNode& node : TestFabricNodes()) {
    if (node.name == "sw1") sw1 = node.node_guid;
    if (node.name == "H3") h3 = node.node_guid;
  }
  ASSERT_NE(sw1, 0u);
  ASSERT_NE(h3, 0u);
  ASSERT_NO_FATAL_FAILURE(Apply(AllHostsYaml() +
                                "partitions:\n"
                                "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                "      - { ports: ALL, membership: full }\n"
                                "cabling:\n  cables:\n"
                                "    - {switch: leaf-a01, switch_guid: " + FormatGuid(sw1) +
                                ", switch_port: 3, peer: 'stor \"01\" # rack 4', peer_guid: " + FormatGuid(h3) +
                                ", peer_port: 1}\n"));
  ExpectTablesMatch();
  EXPECT_EQ(OpenSmOutput().find("failed to open"), std::string::npos) << OpenSmOutput();
  std::string map = RenderNodeNameMap(NodeNamesFromConfig(config()));
  std::ifstream installed(NodeNameMapFile());
  std::stringstream installed_text;
  installed_text << installed.rdbuf();
  EXPECT_EQ(installed_text.str(), map);
  std::string discovered = Discover();
  EXPECT_NE(discovered.find("\"leaf-a01\""), std::string::npos) << discovered;
  EXPECT_NE(discovered.find("\"stor \\x2201\\x22 \\x23 rack 4\""), std::string::npos) << discovered;
  EXPECT_EQ(discovered.find("WARNING failed"), std::string::npos) << discovered;
}

}  // namespace
}  // namespace smsupd::config::testing
