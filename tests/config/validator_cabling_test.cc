// The cabling: section of smsupd.yaml: inline rows or a CSV file, checked
// alike, and a bad file makes the whole config invalid.
#include <gtest/gtest.h>

#include <string>

#include "config/cabling_csv.h"
#include "config/sha256.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::TempDir;
using testing::Validate;

constexpr char kCsv[] =
    "switch,switch_guid,switch_port,peer,peer_guid,peer_port,cable_type,length,rate\n"
    "leaf01,0x0002c90300001000,1,h1,0x0002c90300000100,1,DAC,2m,4xHDR\n"
    "leaf01,0x0002c90300001000,2,gpu02,,1,DAC,2m,\n";

std::string WithCabling(const std::string& section) { return BaseYaml() + "cabling:\n" + section; }

TEST(CablingSection, AbsentMeansNothingDeclared) {
  ValidationOutcome outcome = Validate(BaseYaml());
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_FALSE(outcome.config->cabling.declared);
  EXPECT_TRUE(outcome.config->cabling.cables.empty());
}

TEST(CablingSection, ReadsTheCsvFileItNames) {
  TempDir dir;
  std::string file = dir.Write("cabling.csv", kCsv);
  ValidationOutcome outcome = Validate(WithCabling("  file: " + file + "\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const CablingSettings& cabling = outcome.config->cabling;
  EXPECT_TRUE(cabling.declared);
  EXPECT_EQ(cabling.file, file);
  EXPECT_EQ(cabling.file_sha256, Sha256Hex(kCsv));
  ASSERT_EQ(cabling.cables.size(), 2u);
  EXPECT_EQ(cabling.cables[0].a.device, "leaf01");
  EXPECT_EQ(cabling.cables[0].b.device, "h1") << "a host of the inventory may be named: names are free text";
  EXPECT_EQ(cabling.cables[0].b.node_guid, 0x0002c90300000100u);
  EXPECT_EQ(cabling.cables[1].line, 3) << "lines point into the CSV";
}

TEST(CablingSection, ReadsInlineRowsWithTheirYamlLines) {
  ValidationOutcome outcome = Validate(WithCabling(
      "  cables:\n"
      "    - {switch: leaf01, switch_guid: 0x0002c90300001000, switch_port: 1, peer: gpu01,\n"
      "       peer_guid: 0x0002c90300000100, peer_port: 1, cable_type: DAC, length: 2m, rate: 4xHDR}\n"
      "    - switch: leaf01\n"
      "      switch_port: 2\n"
      "      peer: spine01\n"
      "      peer_port: 7\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const CablingSettings& cabling = outcome.config->cabling;
  EXPECT_TRUE(cabling.declared);
  EXPECT_TRUE(cabling.file.empty());
  EXPECT_TRUE(cabling.file_sha256.empty());
  ASSERT_EQ(cabling.cables.size(), 2u);
  EXPECT_EQ(cabling.cables[0].line, 16);
  EXPECT_EQ(cabling.cables[0].a.node_guid, 0x0002c90300001000u);
  EXPECT_EQ(cabling.cables[0].rate, "4xHDR");
  EXPECT_EQ(cabling.cables[0].length, "2m");
  EXPECT_EQ(cabling.cables[1].line, 18);
  EXPECT_EQ(cabling.cables[1].b.device, "spine01");
  EXPECT_EQ(cabling.cables[1].b.port, 7);
}

TEST(CablingSection, ExactlyOneFormIsAllowed) {
  TempDir dir;
  std::string file = dir.Write("cabling.csv", kCsv);
  ValidationOutcome both = Validate(WithCabling("  file: " + file + "\n  cables: []\n"));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(FindDiagnostic(both, "cabling")->Format(),
            "test.yaml:15:3: error: cabling: has both 'file' and 'cables'; exactly one: "
            "'file: /etc/smsupd/cabling.csv' or a 'cables:' list");
  ValidationOutcome neither = Validate(WithCabling("  {}\n"));
  ASSERT_FALSE(neither.ok());
  EXPECT_EQ(FindDiagnostic(neither, "cabling")->what, "has neither 'file' nor 'cables'");
  ValidationOutcome unknown = Validate(WithCabling("  files: " + file + "\n"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(AllDiagnostics(unknown).find("did you mean 'file'?"), std::string::npos) << AllDiagnostics(unknown);
}

TEST(CablingSection, ABadCsvRowIsAFileLineErrorAndTheConfigIsInvalid) {
  TempDir dir;
  std::string file = dir.Write("cabling.csv",
                               "switch,switch_port,peer,peer_port,rate\n"
                               "leaf01,1,gpu01,1,4xHDR\n"
                               "leaf01,2,gpu02,1,4xFAST\n");
  ValidationOutcome outcome = Validate(WithCabling("  file: " + file + "\n"));
  ASSERT_FALSE(outcome.ok()) << "one bad row: nothing of the config may be applied";
  ASSERT_EQ(outcome.ErrorCount(), 1) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].Format(),
            file + ":3:18: error: rate '4xFAST' is not a link rate; width x speed, e.g. 4xHDR, 4xNDR, 1xEDR");
}

TEST(CablingSection, YamlErrorsComeBeforeTheFilesErrors) {
  TempDir dir;
  std::string file = dir.Write("cabling.csv", "switch,switch_port,peer,peer_port\nleaf01,0,gpu01,1\n");
  ValidationOutcome outcome = Validate("version: 2\n" + WithCabling("  file: " + file + "\n").substr(11));
  ASSERT_EQ(outcome.ErrorCount(), 2) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].file, "test.yaml");
  EXPECT_EQ(outcome.diagnostics[1].file, file);
}

TEST(CablingSection, InlineRowsGetTheSameChecksAsCsvRows) {
  ValidationOutcome outcome = Validate(WithCabling(
      "  cables:\n"
      "    - {switch: leaf01, switch_port: 1, peer: gpu01, peer_port: 1}\n"
      "    - {switch: leaf01, switch_port: 1, peer: gpu02, peer_port: 1}\n"
      "    - {switch: leaf01, switch_port: 300, peer: gpu03, peer_port: 1, rate: 4xFAST}\n"
      "    - {switch: leaf01, switch_guid: 12, switch_port: 4, peer: gpu04, peer_port: 1}\n"
      "    - {switch: leaf01, switch_port: 5, peer_port: 1, colour: red}\n"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "cabling.cables[1]")->Format(),
            "test.yaml:17:7: error: cabling.cables[1]: leaf01 port 1 is already cabled on line 16; "
            "one row per cable, each port in one row");
  EXPECT_EQ(FindDiagnostic(outcome, "cabling.cables[2].switch_port")->what, "switch_port '300' is not a port");
  EXPECT_EQ(FindDiagnostic(outcome, "cabling.cables[2].rate")->what, "rate '4xFAST' is not a link rate");
  EXPECT_EQ(FindDiagnostic(outcome, "cabling.cables[3].switch_guid")->what, "'12' is not a node GUID");
  EXPECT_NE(FindDiagnostic(outcome, "cabling.cables[4].colour"), nullptr) << AllDiagnostics(outcome);
  EXPECT_NE(FindDiagnostic(outcome, "cabling.cables[4]"), nullptr) << "no peer: " << AllDiagnostics(outcome);
}

TEST(CablingSection, AnUnreadableFileIsAnErrorNamingIt) {
  TempDir dir;
  ValidationOutcome missing = Validate(WithCabling("  file: " + dir.path() + "/none.csv\n"));
  ASSERT_FALSE(missing.ok());
  const Diagnostic* error = FindDiagnostic(missing, "cabling.file");
  ASSERT_NE(error, nullptr) << AllDiagnostics(missing);
  EXPECT_NE(error->what.find(dir.path() + "/none.csv"), std::string::npos) << error->what;
  EXPECT_EQ(error->line, 15);
  ValidationOutcome directory = Validate(WithCabling("  file: " + dir.path() + "\n"));
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(FindDiagnostic(directory, "cabling.file")->what, "'" + dir.path() + "' is not a regular file");
  ValidationOutcome relative = Validate(WithCabling("  file: cabling.csv\n"));
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(FindDiagnostic(relative, "cabling.file")->what, "'cabling.csv' is not an absolute path");
}

TEST(CablingSection, AFileOverTheBoundIsRefusedUnread) {
  TempDir dir;
  std::string file = dir.Write("big.csv", std::string(kMaxCablingBytes + 1, '#'));
  ValidationOutcome outcome = Validate(WithCabling("  file: " + file + "\n"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(FindDiagnostic(outcome, "cabling.file")->what.find("larger than 16777216 bytes"), std::string::npos);
}

TEST(CablingSection, ATextFromAClientOnlyNamesTheFile) {
  TempDir dir;
  std::string file = dir.Write("cabling.csv", "not,a,cabling,file\n");
  ValidationOutcome outcome =
      ValidateText(WithCabling("  file: " + file + "\n"), "plan.yaml", KeyFile::kNameOnly);
  ASSERT_TRUE(outcome.ok()) << "the daemon opens no file a client's text names: " << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->cabling.file, file);
  EXPECT_TRUE(outcome.config->cabling.cables.empty());
}

TEST(CablingSection, ANameTheNodeNameMapCannotHoldIsAWarning) {
  ValidationOutcome outcome = Validate(WithCabling(
      "  cables:\n"
      "    - {switch: 'leaf #1', switch_guid: 0x1000, switch_port: 1, peer: gpu01, peer_port: 1}\n"
      "    - {switch: 'leaf #1', switch_guid: 0x1000, switch_port: 2, peer: 'no guid #2', peer_port: 1}\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  ASSERT_EQ(outcome.WarningCount(), 1) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].Format(),
            "test.yaml:16:1: warning: 'leaf #1' is written 'leaf \\x231' in OpenSM's node-name map; a name "
            "without '\"', '#', '\\', control characters or leading blanks, at most 233 bytes");
}

TEST(CablingSection, InlineBounds) {
  std::string long_name(kMaxCablingFieldBytes + 1, 'n');
  ValidationOutcome outcome = Validate(
      WithCabling("  cables:\n    - {switch: " + long_name + ", switch_port: 1, peer: gpu01, peer_port: 1}\n"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "cabling.cables[0].switch")->what, "switch is not a name");
  ValidationOutcome nested = Validate(
      WithCabling("  cables:\n    - {switch: [a, b], switch_port: 1, peer: gpu01, peer_port: 1}\n"));
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(FindDiagnostic(nested, "cabling.cables[0].switch")->what, "is not a string");
  EXPECT_FALSE(Validate(WithCabling("  cables: leaf01\n")).ok());
}

}  // namespace
}  // namespace smsupd::config
