// smctl import on the simulated fabric with the real OpenSM: OpenSM runs on
// hand-written partitions.conf files (and on files smsupd rendered), the
// P_Key table of every end port is read off the fabric, and must be what
// the YAML `smctl import` makes of the same files gives, port by port.
#include <gtest/gtest.h>

#include "config/opensm_import.h"
#include "config/partitions_renderer.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "tests/config/conformance_fixture.h"

namespace smsupd::config::testing {
namespace {

class ImportConformance : public ConformanceTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartTestFabric()); }

  // Runs OpenSM on the files, imports them, and compares the fabric with
  // the imported YAML's tables. Returns the import's findings.
  std::string RunAndCompare(const std::string& partitions, bool allow_both_pkeys) {
    std::string conf = TestOpenSmConf(allow_both_pkeys);
    EXPECT_NO_FATAL_FAILURE(ApplyOpenSmFiles(conf, partitions));
    ImportResult imported = ImportOpenSm({ImportFile{"opensm.conf", conf}, ImportFile{"partitions.conf", partitions},
                                          std::nullopt});
    std::string findings;
    for (const ImportFinding& finding : imported.findings) findings += finding.Format() + "\n";
    ValidationOutcome validation = ValidateText(imported.yaml, "imported.yaml", KeyFile::kNameOnly);
    EXPECT_TRUE(validation.ok()) << imported.yaml << findings;
    if (!validation.ok()) return findings;
    std::map<Guid, std::set<std::uint16_t>> expected =
        ExpectedPKeyEntries(*validation.config, TestFabricPorts(nodes(), sm_port()));
    ExpectFabricTables(expected);
    if (HasFailure()) ADD_FAILURE() << "imported YAML:\n" << imported.yaml << findings;
    return findings;
  }
};

// H2 0x...1021, H3 0x...1031, H4 0x...1041, H5 0x...1051/1052, H6 0x...1061/1062.
TEST_F(ImportConformance, LimitedAfterFullForTheSamePort) {
  std::string findings = RunAndCompare(
      "Default=0x7fff, ipoib : ALL=full ;\n"
      "p1=0x0001 : 0x0002c90300001021=full, 0x0002c90300001031=full,\n"
      "            0x0002c90300001021=limited ;\n"
      "p1=0x0001 : 0x0002c90300001031=limited ;\n",
      false);
  EXPECT_NE(findings.find("named again"), std::string::npos) << findings;
}

TEST_F(ImportConformance, BothWithoutAllowBothPkeys) {
  std::string findings = RunAndCompare(
      "Default=0x7fff : ALL=full ;\n"
      "b=0x0010 : 0x0002c90300001051=both, 0x0002c90300001052=both, ALL_CAS=limited, 0x0002c90300001061=both ;\n",
      false);
  EXPECT_NE(findings.find("0x0002c90300001051=both without 'allow_both_pkeys TRUE'"), std::string::npos) << findings;
}

TEST_F(ImportConformance, BothWithAllowBothPkeysAndALaterLimitedKeyword) {
  RunAndCompare(
      "Default=0x7fff : ALL=full ;\n"
      "b=0x0010 : 0x0002c90300001051=both, SELF=both, ALL=limited, 0x0002c90300001061=both ;\n"
      "c=0x0011 : ALL=both, 0x0002c90300001021=full, 0x0002c90300001031=limited ;\n",
      true);
}

TEST_F(ImportConformance, AllWithPerPortOverridesInBothOrders) {
  RunAndCompare(
      "Default=0x7fff, ipoib : ALL=limited, 0x0002c90300001021=full, SELF=full ;\n"
      "a=0x0020 : 0x0002c90300001031=full, ALL=limited ;\n"
      "b=0x0021 : ALL_SWITCHES=full, ALL_CAS, 0x0002c90300001041=full ;\n"
      "c=0x0022 : ALL=full, ALL_CAS=limited, 0x0002c90300001051 ;\n",
      false);
}

TEST_F(ImportConformance, FlagsAndDefmember) {
  RunAndCompare(
      "Default=0x7fff, ipoib, mtu=4, rate=7, defmember=full : ALL, SELF ;\n"
      "gpu=0x0001, ipoib, mtu=5, rate=16, sl=0, scope=2, indx0 : 0x0002c90300001051, 0x0002c90300001052=limited ;\n"
      "st=0x0002, defmember=limited : 0x0002c90300001061, 0x0002c90300001062=full ;\n",
      false);
}

TEST_F(ImportConformance, ASyntaxErrorMakesOpenSmDropTheWholeFile) {
  std::string findings = RunAndCompare(
      "Default=0x7fff : ALL=limited, SELF=full ;\n"
      "gpu=0x0001 : 0x0002c90300001021=full ;\n"
      "bad=0x0002 : 0x0002c9030000102g ;\n",
      false);
  EXPECT_NE(findings.find("partitions.conf:3: error: bad PortGUID"), std::string::npos) << findings;
}

TEST_F(ImportConformance, ASemicolonWithNoDefinitionOpenIsAnError) {
  std::string findings = RunAndCompare("Default=0x7fff : ALL=limited, SELF=full ;;\ngpu=0x0001 : 0x0002c90300001021=full ;\n", false);
  EXPECT_NE(findings.find("partitions.conf:1: error: no partition definition found: a ';' with no definition open"),
            std::string::npos) << findings;
}

TEST_F(ImportConformance, DosLineEndsMakeOpenSmDropTheFile) {
  std::string findings = RunAndCompare(
      "Default=0x7fff : ALL=limited, SELF=full ;\r\n"
      "gpu=0x0001 : 0x0002c90300001021=full ;\r\n",
      false);
  EXPECT_NE(findings.find("partitions.conf:1: error: no partition definition found: a carriage return"), std::string::npos)
      << findings;
}

TEST_F(ImportConformance, GuideStyleOneLineWithoutSemicolon) {
  std::string findings = RunAndCompare("compute=0x8001, ipoib, secure : ALL=full, 0x0002c90300001021=limited", false);
  EXPECT_NE(findings.find("no ';' before the end of the file"), std::string::npos) << findings;
}

// render -> import -> render: OpenSM runs the first rendering, then the
// rendering of the imported YAML; both times every end port holds what the
// original YAML says.
TEST_F(ImportConformance, RenderImportRenderKeepsTheFabric) {
  for (std::uint64_t seed : {3, 17}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    ValidationOutcome original = ValidateText(RandomConfig(nodes(), sm_port(), seed).yaml, "random.yaml", KeyFile::kNameOnly);
    ASSERT_TRUE(original.ok());
    std::map<Guid, std::set<std::uint16_t>> expected = ExpectedPKeyEntries(*original.config, TestFabricPorts(nodes(), sm_port()));
    RenderInputs inputs;
    inputs.port_guid = sm_port();
    std::string first = Render(*original.config, inputs).partitions_conf;
    std::string conf = TestOpenSmConf(UsesBothMembership(*original.config));
    RunAndCompare(first, UsesBothMembership(*original.config));
    ExpectFabricTables(expected);

    ImportResult imported = ImportOpenSm({ImportFile{"opensm.conf", conf}, ImportFile{"partitions.conf", first}, std::nullopt});
    ValidationOutcome again = ValidateText(imported.yaml, "imported.yaml", KeyFile::kNameOnly);
    ASSERT_TRUE(again.ok()) << imported.yaml;
    ASSERT_NO_FATAL_FAILURE(ApplyOpenSmFiles(TestOpenSmConf(UsesBothMembership(*again.config)),
                                             Render(*again.config, inputs).partitions_conf));
    ExpectFabricTables(expected);
  }
}

}  // namespace
}  // namespace smsupd::config::testing
