// `smctl cabling` on the simulated fabric with the real smsupd and OpenSM:
// the export lists every link by name; two host cables crossed in the
// topology file against the declared cabling are a swap, by name; a cable
// unlinked at run time is missing; the 648-HCA fat tree's export, fed back
// as the declared cabling, shows no difference.
//
// The tests that declare a cabling need the config's `cabling` section;
// with a config reader that does not know it they are skipped (and say so).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "common/atomic_file.h"
#include "config/cabling_csv.h"
#include "config/validator.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// A walk of the 648-HCA fabric and the comparison, with a wide margin.
constexpr std::chrono::milliseconds kCablingDeadline(120000);

// The declared cabling of `topology`, as a site writes it: one row a link,
// switch side first, both node GUIDs.
std::string DeclaredCsv(const Topology& topology) {
  std::string csv = "switch,switch_guid,switch_port,peer,peer_guid,peer_port\n";
  for (TopoLink link : topology.links()) {
    if (topology.Find(link.a)->kind != NodeKind::kSwitch) {
      std::swap(link.a, link.b);
      std::swap(link.a_port, link.b_port);
    }
    csv += link.a + "," + FormatGuid(topology.Find(link.a)->node_guid) + "," + std::to_string(link.a_port) + "," +
           link.b + "," + FormatGuid(topology.Find(link.b)->node_guid) + "," + std::to_string(link.b_port) + "\n";
  }
  return csv;
}

// Crosses the cables of two hosts on the same leaf: L1 port 3 gets H1_4, port 4 gets H1_3.
void CrossHosts(Topology& topology) {
  Topology crossed;
  for (const TopoNode& node : topology.nodes()) crossed.AddNode(node);
  for (TopoLink link : topology.links()) {
    for (std::string* end : {&link.a, &link.b}) {
      if (*end == "H1_3") *end = "H1_4";
      else if (*end == "H1_4") *end = "H1_3";
    }
    crossed.AddLink(link);
  }
  crossed.SetManagementNodes(topology.management_nodes()[0], topology.management_nodes()[1]);
  topology = crossed;
}

std::string Text(const json& json, const char* key) {
  if (!json.is_object() || !json.contains(key) || json[key].is_null()) return "";
  return json[key].is_string() ? json[key].get<std::string>() : json[key].dump();
}

class CablingIntegrationTest : public FabricTest {
 protected:
  void StartOn(const Topology& topology) {
    ASSERT_TRUE(StartFabric(topology));
    const std::string name = fabric().topology().management_nodes()[0];
    Result<std::unique_ptr<ManagementNode>> created =
        ManagementNode::Create(fabric(), SmNodesConfig(fabric().topology(), name, "master"));
    ASSERT_TRUE(created.ok()) << created.error().message;
    node_ = std::move(*created);
    Status started = node_->Start();
    ASSERT_TRUE(started.ok()) << started.message();
    Status master = node_->WaitForSmState("MASTER", 60s);
    ASSERT_TRUE(master.ok()) << master.message() << node_->LogTail();
  }
  void TearDown() override {
    node_.reset();
    FabricTest::TearDown();
  }

  // Declares `csv` as the cabling (`cabling: {file: ...}`) and reloads.
  // Skips the test when this build's config does not read the section.
  void Declare(const std::string& csv) {
    const std::string path = node_->dir() + "/cabling.csv";
    ASSERT_TRUE(WriteFileAtomically(path, csv).ok());
    node_->config().extra = "cabling:\n  file: " + path + "\n";
    ASSERT_TRUE(node_->WriteConfig().ok());
    config::ValidationOutcome outcome = config::LoadAndValidate(node_->config_path());
    if (!outcome.ok() || !outcome.config->cabling.declared)
      GTEST_SKIP() << "this build's config does not read the `cabling` section yet";
    SmctlResult reload = node_->Smctl({"--json", "reload", "--wait", "--timeout", "30"}, 120s);
    ASSERT_EQ(reload.exit_code, 0) << reload.Describe();
  }

  SmctlResult Cabling(std::vector<std::string> args = {}) {
    args.insert(args.begin(), "cabling");
    return node_->Smctl(args, kCablingDeadline);
  }

  std::unique_ptr<ManagementNode> node_;
};

TEST_F(CablingIntegrationTest, NothingDeclaredIsAnAnswerAndTheExportListsEveryLinkByName) {
  Result<Topology> topology = MakeFatTree(2, 4, 2);
  ASSERT_TRUE(topology.ok());
  ASSERT_NO_FATAL_FAILURE(StartOn(*topology));
  SmctlResult none = Cabling();
  EXPECT_EQ(none.exit_code, 0) << none.Describe();
  EXPECT_EQ(none.out, "no cabling declared in " + node_->config_path() +
                          "; `smctl cabling --export` writes today's links as a start\n")
      << none.Describe();

  SmctlResult exported = Cabling({"--export", "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.Describe();
  EXPECT_EQ(exported.Json()["links"], topology->links().size());
  EXPECT_EQ(exported.Json()["unread_total"], 0);

  const std::string file = node_->dir() + "/export.csv";
  SmctlResult written = Cabling({"--export", "--output", file});
  ASSERT_EQ(written.exit_code, 0) << written.Describe();
  Result<std::string> csv = ReadWholeFile(file);
  ASSERT_TRUE(csv.ok());
  config::CablingParse parsed = config::ParseCablingCsv(*csv, file);
  ASSERT_TRUE(parsed.ok()) << *csv;
  EXPECT_EQ(parsed.cables.size(), topology->links().size());
  bool h1_3 = false;
  for (const config::DeclaredCable& cable : parsed.cables)
    h1_3 = h1_3 || (cable.a.device == "L1" && cable.a.port == 3 && cable.b.device == "H1_3" &&
                    cable.b.node_guid == topology->Find("H1_3")->node_guid);
  EXPECT_TRUE(h1_3) << "L1 port 3 - H1_3, by name and GUID:\n" << *csv;

  SmctlResult usage = Cabling({"--output", file});
  EXPECT_EQ(usage.exit_code, 2) << "--output without --export: " << usage.Describe();
}

TEST_F(CablingIntegrationTest, CrossedHostCablesAreASwapAndAnUnlinkedCableIsMissing) {
  Result<Topology> declared = MakeFatTree(2, 4, 2);
  ASSERT_TRUE(declared.ok());
  Topology cabled = *declared;
  CrossHosts(cabled);
  ASSERT_NO_FATAL_FAILURE(StartOn(cabled));
  Declare(DeclaredCsv(*declared));
  if (IsSkipped() || HasFatalFailure()) return;

  SmctlResult crossed = Cabling({"--json"});
  ASSERT_EQ(crossed.exit_code, 1) << crossed.Describe();
  json reply = crossed.Json();
  EXPECT_TRUE(reply.value("ok", false)) << "differences are an answer, not an error";
  ASSERT_EQ(reply["differences"].size(), 1u) << crossed.Describe();
  EXPECT_EQ(Text(reply["differences"][0], "kind"), "swapped");
  const std::string swap = Text(reply["differences"][0], "text");
  EXPECT_NE(swap.find("H1_3 port 1"), std::string::npos) << swap;
  EXPECT_NE(swap.find("H1_4 port 1"), std::string::npos) << swap;
  EXPECT_NE(swap.find("L1 port 3"), std::string::npos) << swap;

  Result<json> status = node_->WaitForStatus(
      [](const json& s) { return s.dump().find("MISCABLED") != std::string::npos; }, "health problem MISCABLED", 30s);
  EXPECT_TRUE(status.ok()) << status.error().message;

  ASSERT_TRUE(fabric().UnlinkPort("H2_2", 1).ok());
  std::string missing;
  Status seen = WaitFor(
      "L2 port 2 - H2_2 port 1 reported missing",
      [&](std::string& why) {
        SmctlResult now = Cabling({"--json"});
        why = now.Describe();
        for (const json& d : now.Json().value("differences", json::array()))
          if (Text(d, "kind") == "missing") missing = Text(d, "text");
        return !missing.empty();
      },
      60s);
  ASSERT_TRUE(seen.ok()) << seen.message();
  EXPECT_EQ(missing.rfind("cable missing: L2 port 2 - H2_2 port 1 (line ", 0), 0u) << missing;
}

TEST_F(CablingIntegrationTest, The648HcaExportFedBackShowsNoDifference) {
  Result<Topology> topology = MakeFatTree(36, 18, 18);
  ASSERT_TRUE(topology.ok());
  ASSERT_NO_FATAL_FAILURE(StartOn(*topology));
  SmctlResult exported = Cabling({"--export", "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.Describe();
  const std::size_t links = exported.Json()["links"].get<std::size_t>();
  EXPECT_EQ(links, topology->links().size());
  std::printf("648-HCA fabric: `smctl cabling --export` of %zu links took %lld ms\n", links,
              static_cast<long long>(exported.elapsed.count()));

  Declare(exported.Json()["csv"].get<std::string>());
  if (IsSkipped() || HasFatalFailure()) return;
  SmctlResult compared = Cabling();
  EXPECT_EQ(compared.exit_code, 0) << compared.Describe();
  EXPECT_EQ(compared.out, "cabling matches: " + std::to_string(links) + " cables\n") << compared.Describe();
  std::printf("648-HCA fabric: `smctl cabling` against %zu declared cables took %lld ms\n", links,
              static_cast<long long>(compared.elapsed.count()));
}

}  // namespace
}  // namespace smsupd::testbed
