// The cabling check on a model subnet: each link once, the export read back
// as the declaration shows nothing, crossed and removed cables by name, and
// a port the walk did not read is "not read", never "missing".
#include "daemon/cabling/cabling_report.h"

#include <gtest/gtest.h>

#include "config/cabling_csv.h"
#include "daemon/cabling/cabling_links.h"
#include "daemon/ports/port_names.h"
#include "tests/daemon/cabling/model_fabric.h"

namespace smsupd {
namespace {

using testing_cabling::ModelFabric;

using testing_cabling::kGpu01;
using testing_cabling::kGpu02;
using testing_cabling::kGpu03;
using testing_cabling::kLeaf;
using testing_cabling::kSpine;

const char kHeader[] = "switch,switch_port,peer,peer_port,rate\n";

// leaf01 ports 1-3: gpu01, gpu02, gpu03; leaf01 port 8 - spine01 port 1.
ModelFabric LeafAndSpine() {
  ModelFabric fabric;
  fabric.Switch(kLeaf, "leaf01", 8);
  fabric.Switch(kSpine, "spine01", 4);
  fabric.Host(kGpu01, "gpu01");
  fabric.Host(kGpu02, "gpu02");
  fabric.Host(kGpu03, "gpu03");
  fabric.Cable(kLeaf, 1, kGpu01, 1);
  fabric.Cable(kLeaf, 2, kGpu02, 1);
  fabric.Cable(kLeaf, 3, kGpu03, 1);
  fabric.Cable(kLeaf, 8, kSpine, 1);
  return fabric;
}

config::Config Declared(const std::string& rows) {
  config::Config config;
  config.source_path = "/etc/smsupd/smsupd.yaml";
  config::CablingParse parsed = config::ParseCablingCsv(kHeader + rows, "cabling.csv");
  EXPECT_TRUE(parsed.ok()) << (parsed.diagnostics.empty() ? "" : parsed.diagnostics.front().Format());
  config.cabling = {true, "/etc/smsupd/cabling.csv", "", parsed.cables};
  return config;
}

const char kAsCabled[] =
    "leaf01,1,gpu01,1,4xHDR\nleaf01,2,gpu02,1,4xHDR\nleaf01,3,gpu03,1,4xHDR\nleaf01,8,spine01,1,4xHDR\n";

TEST(CablingLinks, EachLinkOnceNamedWithItsActiveRate) {
  FabricTopology topology = LeafAndSpine().Build();
  config::Config config;
  auto links = LinksOf(topology, PortNames(config, topology));
  ASSERT_EQ(links.size(), 4u) << "the leaf-spine link is seen from both switches, and listed once";
  int switch_links = 0;
  for (const config::DiscoveredLink& link : links) {
    ASSERT_TRUE(link.active);
    EXPECT_EQ(link.active->Text(), "4xHDR");
    if (link.a.is_switch && link.b.is_switch) {
      ++switch_links;
      EXPECT_EQ(std::set<std::string>({link.a.name, link.b.name}), std::set<std::string>({"leaf01", "spine01"}));
    }
  }
  EXPECT_EQ(switch_links, 1);
}

TEST(CablingReport, TheExportReadBackAsTheDeclarationShowsNoDifference) {
  FabricTopology topology = LeafAndSpine().Build();
  config::Config config;
  std::size_t links = 0;
  std::string csv = ExportCsv(config, topology, &links);
  EXPECT_EQ(links, 4u);
  config::CablingParse parsed = config::ParseCablingCsv(csv, "export.csv");
  ASSERT_TRUE(parsed.ok()) << csv;
  ASSERT_EQ(parsed.cables.size(), 4u);
  config.cabling = {true, "", "", parsed.cables};
  CablingReport report = CompareWithDeclared(config, topology);
  EXPECT_TRUE(report.differences.empty()) << ReportText(report);
  EXPECT_EQ(ReportText(report), "cabling matches: 4 cables");
  EXPECT_EQ(ToJson(report)["links"], 4);
}

TEST(CablingReport, TwoCrossedHostCablesAreASwapByName) {
  CablingReport report = CompareWithDeclared(
      Declared("leaf01,1,gpu02,1,\nleaf01,2,gpu01,1,\nleaf01,3,gpu03,1,\nleaf01,8,spine01,1,\n"),
      LeafAndSpine().Build());
  ASSERT_EQ(report.differences.size(), 1u) << ReportText(report);
  EXPECT_EQ(report.differences[0].kind, "swapped");
  EXPECT_NE(report.differences[0].text.find("gpu01"), std::string::npos);
  EXPECT_NE(report.differences[0].text.find("gpu02"), std::string::npos);
  EXPECT_EQ(report.differences[0].lines, (std::vector<int>{2, 3}));
}

TEST(CablingReport, ARemovedCableIsMissing) {
  ModelFabric fabric;
  fabric.Switch(kLeaf, "leaf01", 8);
  fabric.Switch(kSpine, "spine01", 4);
  fabric.Host(kGpu01, "gpu01");
  fabric.Host(kGpu02, "gpu02");
  fabric.Cable(kLeaf, 1, kGpu01, 1);
  fabric.Cable(kLeaf, 2, kGpu02, 1);
  fabric.Cable(kLeaf, 8, kSpine, 1);  // gpu03's cable is gone: the walk never reaches gpu03
  CablingReport report = CompareWithDeclared(Declared(kAsCabled), fabric.Build());
  ASSERT_EQ(report.differences.size(), 1u) << ReportText(report);
  EXPECT_EQ(report.differences[0].kind, "missing");
  EXPECT_EQ(report.differences[0].text, "cable missing: leaf01 port 3 - gpu03 port 1 (line 4)");
  EXPECT_EQ(ReportText(report), "cable missing: leaf01 port 3 - gpu03 port 1 (line 4)");
}

TEST(CablingReport, ALinkBelowItsDeclaredRate) {
  ModelFabric fabric = LeafAndSpine();
  fabric.Cable(kLeaf, 2, kGpu02, 1, testing_cabling::kSpeedEdr);
  CablingReport report = CompareWithDeclared(Declared(kAsCabled), fabric.Build());
  ASSERT_EQ(report.differences.size(), 1u) << ReportText(report);
  EXPECT_EQ(report.differences[0].kind, "below-rate");
  EXPECT_NE(report.differences[0].text.find("4xEDR"), std::string::npos) << report.differences[0].text;
}

TEST(CablingReport, APortTheWalkDidNotReadIsNotReadNeverMissing) {
  ModelFabric fabric = LeafAndSpine();
  fabric.NoPortInfo(kLeaf, 3);  // so the walk never went through it to gpu03
  fabric.Unanswering(kGpu03);
  CablingReport report = CompareWithDeclared(Declared(kAsCabled), fabric.Build());
  ASSERT_EQ(report.differences.size(), 1u) << ReportText(report);
  EXPECT_EQ(report.differences[0].kind, "not-read");
  EXPECT_EQ(report.differences[0].text,
            "not read: leaf01 port 3 - gpu03 port 1 (line 4): leaf01 port 3 was not read; it may be plugged in");
  EXPECT_NE(ReportText(report).find("note: 1 ports were not read"), std::string::npos) << ReportText(report);
  nlohmann::json json = ToJson(report);
  EXPECT_EQ(json["unread_total"], 1);
  EXPECT_EQ(json["unread"].size(), 1u);
}

TEST(CablingReport, ANodeThatDidNotAnswerIsNotReadNeverMissing) {
  ModelFabric fabric = LeafAndSpine();
  fabric.Unanswering(kGpu03);  // leaf01 port 3 is up, but NodeInfo behind it got no answer
  CablingReport report = CompareWithDeclared(Declared(kAsCabled), fabric.Build());
  ASSERT_EQ(report.differences.size(), 1u) << ReportText(report);
  EXPECT_EQ(report.differences[0].kind, "not-read") << report.differences[0].text;
}

TEST(CablingReport, NothingDeclaredIsAnAnswerNotAnError) {
  config::Config config;
  config.source_path = "/etc/smsupd/smsupd.yaml";
  CablingReport report = CompareWithDeclared(config, LeafAndSpine().Build());
  EXPECT_FALSE(report.declared);
  EXPECT_TRUE(report.differences.empty());
  EXPECT_EQ(ReportText(report),
            "no cabling declared in /etc/smsupd/smsupd.yaml; `smctl cabling --export` writes today's links as a start");
  nlohmann::json json = ToJson(report);
  EXPECT_EQ(json["declared"], false);
  EXPECT_EQ(json["links"], 4);
  EXPECT_EQ(json["cables"], 0);
}

TEST(CablingReport, TheListIsCappedAndCounted) {
  std::string rows = kAsCabled;
  for (int device = 0; device < 10; ++device)
    for (int port = 1; port <= 150; ++port)
      rows += "ghost" + std::to_string(device) + "," + std::to_string(port) + ",host" + std::to_string(device) +
              "_" + std::to_string(port) + ",1,\n";
  CablingReport report = CompareWithDeclared(Declared(rows), LeafAndSpine().Build());
  ASSERT_EQ(report.differences.size(), 1500u);
  nlohmann::json json = ToJson(report);
  EXPECT_EQ(json["differences"].size(), kMaxListedDifferences);
  EXPECT_EQ(json["differences_total"], 1500);
  EXPECT_NE(ReportText(report).find("... and 500 more (1500 differences)"), std::string::npos);
  EXPECT_EQ(ProblemSummary(report).rfind("1500 cabling differences: cable missing: ghost0 port 1", 0), 0u)
      << ProblemSummary(report);
}

}  // namespace
}  // namespace smsupd
