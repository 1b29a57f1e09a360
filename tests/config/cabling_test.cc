// The declared cabling: the CSV a site keeps (read, written back), and the
// discovered fabric compared with it by name.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/cabling_check.h"
#include "config/cabling_csv.h"

namespace smsupd::config {
namespace {

constexpr char kPortMap[] =
    "# leaf01, as cabled on day one\n"
    "switch,switch_guid,switch_port,peer,peer_port,cable_type,length,rate\n"
    "leaf01,0x0002c90300001000,1,gpu01,1,DAC,2m,4xHDR\n"
    "leaf01,0x0002c90300001000,2,gpu02,1,DAC,2m,4xHDR\n"
    "leaf01,0x0002c90300001000,3,\"stor01, rack 4\",1,AOC,10m,\n"
    "leaf01,0x0002c90300001000,36,spine01,1,AOC,30m,4xHDR\r\n";

std::vector<std::string> Messages(const CablingParse& parse) {
  std::vector<std::string> messages;
  for (const Diagnostic& d : parse.diagnostics) messages.push_back(d.Format());
  return messages;
}

TEST(CablingCsvTest, ReadsThePortMapAsASpreadsheetExportsIt) {
  CablingParse parse = ParseCablingCsv(kPortMap, "cabling.csv");
  ASSERT_TRUE(parse.ok()) << testing::PrintToString(Messages(parse));
  ASSERT_EQ(parse.cables.size(), 4u);
  EXPECT_EQ(parse.cables[0].a.device, "leaf01");
  EXPECT_EQ(parse.cables[0].a.node_guid, 0x0002c90300001000u);
  EXPECT_EQ(parse.cables[0].b.device, "gpu01");
  EXPECT_EQ(parse.cables[0].line, 3);
  EXPECT_EQ(parse.cables[2].b.device, "stor01, rack 4");
  EXPECT_EQ(parse.cables[3].b.device, "spine01");
  EXPECT_EQ(parse.cables[3].a.port, 36);
  EXPECT_EQ(parse.cables[3].rate, "4xHDR");
  // Written back and read again: the same cables.
  CablingParse again = ParseCablingCsv(FormatCablingCsv(parse.cables), "export.csv");
  ASSERT_TRUE(again.ok()) << testing::PrintToString(Messages(again));
  ASSERT_EQ(again.cables.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(again.cables[i].a, parse.cables[i].a);
    EXPECT_EQ(again.cables[i].b, parse.cables[i].b);
    EXPECT_EQ(again.cables[i].rate, parse.cables[i].rate);
  }
}

TEST(CablingCsvTest, EveryBadRowIsReportedWithItsLineAndNothingIsUsed) {
  CablingParse parse = ParseCablingCsv(
      "switch,switch_port,peer,peer_port,rate\n"
      "leaf01,1,gpu01,1,4xHDR\n"
      "leaf01,0,gpu02,1,\n"          // line 3: port 0
      "leaf01,1,gpu03,1,\n"          // line 4: leaf01 port 1 twice
      ",2,gpu04,1,\n"                // line 5: no switch
      "leaf01,3,gpu05,x,\n"          // line 6: bad peer port
      "leaf01,4,gpu06,1,4xFAST\n"    // line 7: bad rate
      "leaf01,5,\"gpu07,1,\n",       // line 8: open quote
      "cabling.csv");
  EXPECT_FALSE(parse.ok());
  std::vector<std::string> messages = Messages(parse);
  ASSERT_EQ(messages.size(), 6u) << testing::PrintToString(messages);
  EXPECT_EQ(messages[0], "cabling.csv:3:8: error: switch_port '0' is not a port; a port number 1..254");
  EXPECT_EQ(messages[1],
            "cabling.csv:4:1: error: leaf01 port 1 is already cabled on line 2; one row per cable, each port in one row");
  EXPECT_EQ(messages[2], "cabling.csv:5:1: error: switch is empty; the device's name");
  EXPECT_EQ(messages[3].rfind("cabling.csv:6:", 0), 0u) << messages[3];
  EXPECT_NE(messages[4].find("rate '4xFAST' is not a link rate"), std::string::npos) << messages[4];
  EXPECT_EQ(messages[5].rfind("cabling.csv:8:1: error: a quoted field is not closed", 0), 0u) << messages[5];
}

TEST(CablingCsvTest, AGuidNamesOneDeviceAndADeviceHasOneGuid) {
  std::vector<std::string> messages = Messages(ParseCablingCsv(
      "switch,switch_guid,switch_port,peer,peer_port\n"
      "leaf00,0x1000,1,gpu01,1\n"
      "leaf01,0x1000,2,gpu02,1\n"
      "leaf00,0x2000,3,gpu03,1\n",
      "c.csv"));
  ASSERT_EQ(messages.size(), 2u) << testing::PrintToString(messages);
  EXPECT_EQ(messages[0], "c.csv:3:1: error: node GUID 0x0000000000001000 is leaf00's on line 2, here leaf01; one device per GUID");
  EXPECT_EQ(messages[1], "c.csv:4:1: error: leaf00 has node GUID 0x0000000000002000 here but 0x0000000000001000 on line 2; one GUID per device");
}

TEST(CablingCsvTest, HeaderProblemsStopTheRead) {
  EXPECT_EQ(Messages(ParseCablingCsv("switch,port,peer,peer_port\nleaf01,1,gpu01,1\n", "c.csv")).front(),
            "c.csv:1:8: error: unknown column 'port'; columns: switch, switch_guid, switch_port, peer, "
            "peer_guid, peer_port, cable_type, length, rate");
  EXPECT_FALSE(ParseCablingCsv("", "c.csv").ok()) << "an empty file declares nothing: no header";
  EXPECT_FALSE(ParseCablingCsv("switch,switch_port,peer\n", "c.csv").ok()) << "no peer_port";
}

TEST(CablingCsvTest, HostileInputHitsABoundNotTheMemory) {
  std::string long_name(300, 'n');
  CablingParse parse = ParseCablingCsv("switch,switch_port,peer,peer_port\n" + long_name + ",1,gpu01,1\n"
                                       "leaf\x01,2,gpu02,1\n", "c.csv");
  ASSERT_EQ(parse.diagnostics.size(), 2u);
  EXPECT_NE(parse.diagnostics[0].what.find("switch is not a name"), std::string::npos);
  EXPECT_NE(parse.diagnostics[1].what.find("switch is not a name"), std::string::npos);
  // A row count past the bound: one error, no more cables kept.
  std::string many = "switch,switch_port,peer,peer_port\n";
  for (std::size_t i = 0; i <= kMaxCables; ++i)
    many += "s" + std::to_string(i / 200) + "," + std::to_string(i % 200 + 1) + ",h" + std::to_string(i) + ",1\n";
  CablingParse capped = ParseCablingCsv(many, "c.csv");
  ASSERT_EQ(capped.diagnostics.size(), 1u);
  EXPECT_NE(capped.diagnostics[0].what.find("more than 100000 cables"), std::string::npos);
  // Thousands of bad rows: at most kMaxCablingDiagnostics reported.
  std::string bad = "switch,switch_port,peer,peer_port\n";
  for (int i = 0; i < 5000; ++i) bad += "leaf,0,h,1\n";
  EXPECT_EQ(ParseCablingCsv(bad, "c.csv").diagnostics.size(), kMaxCablingDiagnostics);
  EXPECT_EQ(ParseCablingCsv(std::string(kMaxCablingBytes + 1, 'x'), "c.csv").diagnostics.size(), 1u);
}

TEST(LinkRateTest, ReadsWidthAndSpeedAndComparesTheirDataRate) {
  auto hdr = ParseLinkRate("4xHDR");
  ASSERT_TRUE(hdr);
  EXPECT_EQ(hdr->Text(), "4xHDR");
  EXPECT_TRUE(ParseLinkRate("1xsdr"));
  EXPECT_FALSE(ParseLinkRate("3xHDR"));
  EXPECT_FALSE(ParseLinkRate("HDR"));
  EXPECT_FALSE(ParseLinkRate("4x"));
  EXPECT_TRUE(BelowRate(*ParseLinkRate("4xEDR"), *hdr)) << "HDR card, HDR switch, 100 Gb/s on the port";
  EXPECT_TRUE(BelowRate(*ParseLinkRate("2xHDR"), *hdr)) << "two lanes of four";
  EXPECT_FALSE(BelowRate(*ParseLinkRate("4xHDR"), *hdr));
  EXPECT_FALSE(BelowRate(*ParseLinkRate("4xNDR"), *hdr));
}

// A small fabric: leaf01 ports 1-3 to gpu01..03, port 36 to spine01.
class CablingCheckTest : public testing::Test {
 protected:
  static LinkEnd Switch(const std::string& name, std::uint64_t guid, int port) {
    return LinkEnd{guid, name, port, true};
  }
  static LinkEnd Host(const std::string& name, int port) {
    return LinkEnd{0x0002c90300a00000u + name.back(), name, port, false};
  }
  DiscoveredLink Link(int leaf_port, const std::string& host, const char* rate = "4xHDR") {
    return DiscoveredLink{Switch("leaf01", 0x1000, leaf_port), Host(host, 1), ParseLinkRate(rate)};
  }
  std::vector<DeclaredCable> Declared() {
    CablingParse parse = ParseCablingCsv(
        "switch,switch_guid,switch_port,peer,peer_port,rate\n"
        "leaf01,0x1000,1,gpu01,1,4xHDR\n"
        "leaf01,0x1000,2,gpu02,1,4xHDR\n"
        "leaf01,0x1000,3,gpu03,1,4xHDR\n",
        "cabling.csv");
    EXPECT_TRUE(parse.ok());
    return parse.cables;
  }
  std::vector<DiscoveredLink> AsCabled() { return {Link(1, "gpu01"), Link(2, "gpu02"), Link(3, "gpu03")}; }
  static std::vector<std::string> Texts(const std::vector<CablingDifference>& differences) {
    std::vector<std::string> texts;
    for (const auto& d : differences) texts.push_back(std::string(CablingDifferenceName(d.kind)) + ": " + d.text);
    return texts;
  }
};

TEST_F(CablingCheckTest, AFabricAsDeclaredHasNoDifference) {
  EXPECT_TRUE(CompareCabling(Declared(), AsCabled()).empty());
}

TEST_F(CablingCheckTest, SwitchesAreNamedByTheGuidTheFileGives) {
  std::vector<DiscoveredLink> fabric = AsCabled();
  for (auto& link : fabric) link.a.name = "MF0;switch-0a1b2c:SX6036/U1";  // the NodeDescription
  EXPECT_TRUE(CompareCabling(Declared(), fabric).empty()) << testing::PrintToString(Texts(CompareCabling(Declared(), fabric)));
}

TEST_F(CablingCheckTest, TwoCrossedCablesAreOneSwapByName) {
  auto differences = CompareCabling(Declared(), {Link(1, "gpu02"), Link(2, "gpu01"), Link(3, "gpu03")});
  ASSERT_EQ(differences.size(), 1u) << testing::PrintToString(Texts(differences));
  EXPECT_EQ(differences[0].kind, CablingDifferenceKind::kSwapped);
  EXPECT_EQ(differences[0].text,
            "swapped: gpu01 port 1 and gpu02 port 1 are crossed: leaf01 port 1 has gpu02, leaf01 port 2 has "
            "gpu01 (lines 2, 3)");
  EXPECT_EQ(differences[0].lines, (std::vector<int>{2, 3}));
}

TEST_F(CablingCheckTest, ARemovedCableIsMissing) {
  auto differences = CompareCabling(Declared(), {Link(1, "gpu01"), Link(3, "gpu03")});
  ASSERT_EQ(differences.size(), 1u) << testing::PrintToString(Texts(differences));
  EXPECT_EQ(differences[0].kind, CablingDifferenceKind::kMissing);
  EXPECT_EQ(differences[0].text, "cable missing: leaf01 port 2 - gpu02 port 1 (line 3)");
}

TEST_F(CablingCheckTest, ACableMovedToAFreePortIsInTheWrongPort) {
  auto differences = CompareCabling(Declared(), {Link(1, "gpu01"), Link(7, "gpu02"), Link(3, "gpu03")});
  ASSERT_EQ(differences.size(), 1u) << testing::PrintToString(Texts(differences));
  EXPECT_EQ(differences[0].kind, CablingDifferenceKind::kWrongPort);
  EXPECT_EQ(differences[0].text, "gpu02 port 1 should be in leaf01 port 2 (line 3), but is in leaf01 port 7");
}

TEST_F(CablingCheckTest, AnUndeclaredDeviceIsUnexpected) {
  std::vector<DiscoveredLink> fabric = AsCabled();
  fabric.push_back(Link(9, "gpu99"));
  auto differences = CompareCabling(Declared(), fabric);
  ASSERT_EQ(differences.size(), 1u) << testing::PrintToString(Texts(differences));
  EXPECT_EQ(differences[0].kind, CablingDifferenceKind::kUnexpected);
  EXPECT_EQ(differences[0].text, "unexpected device: gpu99 in leaf01 port 9 is not in the port map");
}

TEST_F(CablingCheckTest, ALinkBelowItsDeclaredRateIsReported) {
  auto differences = CompareCabling(Declared(), {Link(1, "gpu01"), Link(2, "gpu02", "4xEDR"), Link(3, "gpu03")});
  ASSERT_EQ(differences.size(), 1u) << testing::PrintToString(Texts(differences));
  EXPECT_EQ(differences[0].kind, CablingDifferenceKind::kBelowRate);
  EXPECT_EQ(differences[0].text, "below rate: leaf01 port 2 - gpu02 port 1 runs at 4xEDR, declared 4xHDR (line 3)");
}

TEST_F(CablingCheckTest, TheExportOfAFabricIsItsOwnDeclaration) {
  std::vector<DiscoveredLink> fabric = AsCabled();
  fabric.push_back(DiscoveredLink{Host("gpu04", 1), Switch("leaf01", 0x1000, 4), ParseLinkRate("4xHDR")});
  fabric.push_back(DiscoveredLink{Switch("spine01", 0x2000, 1), Switch("leaf01", 0x1000, 36), ParseLinkRate("4xNDR")});
  std::vector<DeclaredCable> exported = ExportCabling(fabric);
  ASSERT_EQ(exported.size(), 5u);
  EXPECT_EQ(exported[3].a.device, "leaf01") << "the switch side first";
  EXPECT_EQ(exported[3].b.device, "gpu04");
  EXPECT_EQ(exported[4].a.device, "leaf01") << "between switches, the smaller name first";
  EXPECT_EQ(exported[4].a.port, 36);
  CablingParse read = ParseCablingCsv(FormatCablingCsv(exported), "export.csv");
  ASSERT_TRUE(read.ok()) << testing::PrintToString(Messages(read));
  EXPECT_TRUE(CompareCabling(read.cables, fabric).empty())
      << testing::PrintToString(Texts(CompareCabling(read.cables, fabric)));
}

}  // namespace
}  // namespace smsupd::config
