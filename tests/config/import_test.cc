// smctl import: OpenSM's files -> smsupd.yaml. Every YAML the import writes
// must give each port the P_Key table OpenSM gives it from the files; the
// OpenSM side here is the test-side model (opensm_partition_model.h),
// written apart from the importer, so two derivations are compared.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/atomic_file.h"
#include "config/import_command.h"
#include "config/opensm_import.h"
#include "config/opensm_import_check.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/config/random_config.h"
#include "tests/config/test_support.h"

namespace smsupd::config::testing {
namespace {

constexpr Guid kSm = 0x0002c90300001011;  // H1 port 1 of TestFabricNodes()

// The test fabric's ports plus every GUID `extra` names (as CA ports) and a
// router, so that every keyword has a port to pick.
std::vector<FabricPort> Ports(const std::vector<Guid>& extra = {}) {
  std::vector<FabricPort> ports = TestFabricPorts(TestFabricNodes(), kSm);
  ports.push_back({0x0002c903000ff001, PortKind::kRouter, false});
  std::set<Guid> seen;
  for (const FabricPort& port : ports) seen.insert(port.guid);
  for (Guid guid : extra)
    if (seen.insert(guid).second) ports.push_back({guid, PortKind::kCa, false});
  return ports;
}

struct Imported {
  ImportResult result;
  std::optional<Config> config;
  std::string Findings() const {
    std::string text;
    for (const ImportFinding& finding : result.findings) text += finding.Format() + "\n";
    return text;
  }
  bool HasError() const {
    for (const ImportFinding& finding : result.findings)
      if (finding.severity == ImportFinding::Severity::kError) return true;
    return false;
  }
};

Imported Import(const std::string& opensm_conf, const std::string& partitions, const std::string& map = "") {
  ImportInputs inputs;
  if (!opensm_conf.empty()) inputs.opensm_conf = ImportFile{"opensm.conf", opensm_conf};
  inputs.partitions = ImportFile{"partitions.conf", partitions};
  if (!map.empty()) inputs.node_name_map = ImportFile{"node-name-map", map};
  Imported imported;
  imported.result = ImportOpenSm(inputs);
  ValidationOutcome validation = ValidateText(imported.result.yaml, "imported.yaml", KeyFile::kNameOnly);
  EXPECT_TRUE(validation.ok()) << AllDiagnostics(validation) << imported.result.yaml;
  imported.config = validation.config;
  return imported;
}

// What the real OpenSM would program, by the test model, vs the imported YAML.
void ExpectSameTables(const std::string& opensm_conf, const std::string& partitions, const Imported& imported,
                      const std::vector<FabricPort>& ports) {
  ASSERT_TRUE(imported.config) << imported.result.yaml;
  bool allow_both = OpenSmConfValue(opensm_conf, "allow_both_pkeys") == "TRUE";
  Result<std::map<Guid, std::set<std::uint16_t>>> opensm = ApplyPartitionsConf(partitions, allow_both, ports);
  std::map<Guid, std::set<std::uint16_t>> expected;
  if (opensm.ok()) {
    expected = *opensm;
  } else {  // OpenSM rejects the file: every port full in 0x7fff only
    for (const FabricPort& port : ports) expected[port.guid] = {0xffff};
  }
  EXPECT_EQ(ExpectedPKeyEntries(*imported.config, ports), expected)
      << partitions << "\n---\n" << imported.result.yaml << imported.Findings();
}

std::string Conf(const std::string& extra = "") { return "guid 0x0002c90300001011\nsm_priority 15\n" + extra; }

// render -> import -> render: the same tables on every port.
void ExpectRoundTrip(const std::string& yaml, const std::string& what) {
  SCOPED_TRACE(what);
  ValidationOutcome original = ValidateText(yaml, what, KeyFile::kNameOnly);
  ASSERT_TRUE(original.ok()) << AllDiagnostics(original);
  RenderInputs inputs;
  inputs.port_guid = original.config->sm.port_guid.value_or(kSm);
  RenderedFiles files = Render(*original.config, inputs);
  std::vector<Guid> named;
  for (const auto& [host, guids] : original.config->hosts) named.insert(named.end(), guids.begin(), guids.end());
  for (const Partition& partition : original.config->partitions)
    for (const Member& member : partition.members)
      if (member.kind == Member::Kind::kGuid) named.push_back(member.guid);
  std::vector<FabricPort> ports = Ports(named);
  for (FabricPort& port : ports) port.is_sm_port = port.guid == *inputs.port_guid;
  Imported imported = Import(files.opensm_conf, files.partitions_conf, files.node_name_map);
  EXPECT_FALSE(imported.HasError()) << imported.Findings();
  ASSERT_TRUE(imported.config);
  EXPECT_EQ(ExpectedPKeyEntries(*imported.config, ports), ExpectedPKeyEntries(*original.config, ports))
      << files.partitions_conf << "\n---\n" << imported.result.yaml;
  ExpectSameTables(files.opensm_conf, files.partitions_conf, imported, ports);
  ImportInputs check_inputs{ImportFile{"opensm.conf", files.opensm_conf}, ImportFile{"partitions.conf", files.partitions_conf},
                            std::nullopt};
  ImportCheck check = CheckImport(check_inputs, imported.result);
  EXPECT_TRUE(check.invalid.empty()) << check.invalid;
  EXPECT_TRUE(check.differences.empty()) << check.differences.front();
}

std::string Golden(const std::string& name) {
  Result<std::string> text = ReadWholeFile(std::string(SMSUPD_SOURCE_DIR) + "/" + name);
  EXPECT_TRUE(text.ok()) << name;
  return text.ok() ? *text : "";
}

TEST(ImportRoundTrip, GoldenConfigsAndTheExample) {
  for (const char* name : {"cabling", "flags", "issue_example", "no_default", "precedence"})
    ExpectRoundTrip(Golden(std::string("tests/config/golden/") + name + ".yaml"), name);
  ExpectRoundTrip(Golden("docs/example-smsupd.yaml"), "docs/example-smsupd.yaml");
  ExpectRoundTrip(BaseYaml(), "BaseYaml");
}

TEST(ImportRoundTrip, RandomConfigs) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    ExpectRoundTrip(RandomConfig(TestFabricNodes(), kSm, seed).yaml, "seed " + std::to_string(seed));
}

// The cases the issue lists, each against the test model of OpenSM.
TEST(ImportPartitions, LimitedAfterFullForTheSamePortEndsLimited) {
  std::string partitions =
      "Default=0x7fff, ipoib : ALL=full ;\n"
      "p1=0x0001 : 0x0002c90300001021=full, 0x0002c90300001031=full ;\n"
      "p1=0x0001 : 0x0002c90300001021=limited ;\n";
  Imported imported = Import(Conf(), partitions);
  ExpectSameTables(Conf(), partitions, imported, Ports());
  EXPECT_NE(imported.Findings().find("partitions.conf:3: warning: 0x0002c90300001021 named again"), std::string::npos)
      << imported.Findings();
  EXPECT_NE(imported.result.yaml.find("{ guid: 0x0002c90300001021, membership: limited }"), std::string::npos);
}

TEST(ImportPartitions, BothWithAndWithoutAllowBothPkeys) {
  std::string partitions = "Default=0x7fff : ALL=full ;\nb=0x0010 : 0x0002c90300001021=both, ALL=limited ;\n";
  Imported without = Import(Conf(), partitions);
  ExpectSameTables(Conf(), partitions, without, Ports());
  EXPECT_NE(without.Findings().find("partitions.conf:2: warning: 0x0002c90300001021=both without 'allow_both_pkeys TRUE'"), std::string::npos);
  std::string conf = Conf("allow_both_pkeys TRUE\n");
  Imported with = Import(conf, partitions);
  ExpectSameTables(conf, partitions, with, Ports());
  std::string later = "Default=0x7fff : ALL=full ;\nb=0x0010 : ALL=limited, 0x0002c90300001021=both, SELF=both ;\n";
  ExpectSameTables(conf, later, Import(conf, later), Ports());
}

TEST(ImportPartitions, AllWithPerPortOverridesInBothOrders) {
  for (std::string members : {"ALL=limited, 0x0002c90300001031=full, SELF=full",
                              "0x0002c90300001031=full, ALL=limited, SELF=full",
                              "ALL_CAS=full, ALL_SWITCHES=limited, 0x0002c90300001041, ALL=both",
                              "ALL_SWITCHES=full, ALL_CAS, 0x0002c90300001051=full, ALL_ROUTERS=full"}) {
    std::string partitions = "Default=0x7fff, ipoib : " + members + " ;\nx=0x0020 : " + members + " ;\n";
    for (std::string conf : {Conf(), Conf("allow_both_pkeys TRUE\n")})
      ExpectSameTables(conf, partitions, Import(conf, partitions), Ports());
  }
}

TEST(ImportPartitions, FlagsAreImported) {
  std::string partitions =
      "Default=0x7fff, ipoib, mtu=4, rate=7, sl=0, defmember=full : ALL, SELF ;\n"
      "gpu=0x0001, ipoib, mtu=5, rate=16, sl=2, scope=2, Q_Key=0x0b1b, TClass=4, indx0 : 0x0002c90300001021 ;\n"
      "st=0x0002, defmember=limited : 0x0002c90300001031, 0x0002c90300001041=full ;\n";
  Imported imported = Import(Conf(), partitions);
  ExpectSameTables(Conf(), partitions, imported, Ports());
  ASSERT_TRUE(imported.config);
  const Partition& gpu = imported.config->partitions[1];
  EXPECT_EQ(gpu.mtu, 4096);
  EXPECT_EQ(gpu.rate_gbps, 100.0);
  EXPECT_EQ(gpu.sl, 2);
  EXPECT_EQ(gpu.scope, 2);
  EXPECT_EQ(gpu.qkey, 0x0b1bu);
  EXPECT_EQ(gpu.tclass, 4);
  EXPECT_TRUE(gpu.indx0);
  EXPECT_TRUE(gpu.ipoib);
  EXPECT_EQ(imported.config->partitions[0].mtu, 2048);
  EXPECT_FALSE(imported.result.HasFindings()) << imported.Findings();
}

TEST(ImportPartitions, SyntaxErrorImportsOpenSmsFallbackLoudly) {
  std::string partitions =
      "Default=0x7fff : ALL=limited, SELF=full ;\n"
      "gpu=0x0001 : 0x0002c90300001021=full ;\n"
      "bad=0x0002 : 0x0002c9030000102g ;\n";
  Imported imported = Import(Conf(), partitions);
  ExpectSameTables(Conf(), partitions, imported, Ports());
  EXPECT_NE(imported.Findings().find("partitions.conf:3: error: bad PortGUID '0x0002c9030000102g'"), std::string::npos)
      << imported.Findings();
  EXPECT_NE(imported.result.yaml.find("NOTE: partitions.conf:3 has an error: OpenSM rejects the WHOLE file"),
            std::string::npos);
  ASSERT_TRUE(imported.config);
  ASSERT_EQ(imported.config->partitions.size(), 1u);
}

TEST(ImportPartitions, GuideStyleFilesNameTheLine) {
  // A header split from its colon, a P_Key with the full bit, no Default,
  // a decimal GUID, an unknown flag.
  std::string split = "Default=0x7fff, ipoib\n  : ALL=full ;\n";
  Imported imported = Import(Conf(), split);
  EXPECT_NE(imported.Findings().find("partitions.conf:1: error: no partition definition found"), std::string::npos)
      << imported.Findings();
  std::string one_line = "compute=0x8001, ipoib, secure : ALL=full, 12345=full";
  Imported one = Import(Conf(), one_line);
  // OpenSM applies a last definition without ';' (the test model refuses
  // it; the fabric test shows the real OpenSM): the model with the ';'.
  ExpectSameTables(Conf(), one_line + ";", one, Ports({12345}));
  std::string findings = one.Findings();
  EXPECT_NE(findings.find("partitions.conf:1: warning: unknown partition flag 'secure'"), std::string::npos) << findings;
  EXPECT_NE(findings.find("GUID '12345' has no 0x: OpenSM reads it as decimal"), std::string::npos) << findings;
  EXPECT_NE(findings.find("has no ';' before the end of the file"), std::string::npos) << findings;
  EXPECT_NE(findings.find("no 0x7fff (Default) definition"), std::string::npos) << findings;
  Imported empty = Import(Conf(), "# only comments\n");
  EXPECT_NE(empty.Findings().find("partitions.conf:1: error: no partition definition"), std::string::npos);
}

TEST(ImportOpenSmConf, GuideKeysAreReportedNotImported) {
  Imported imported = Import("P_KEY_ENABLE=1\nP_KEYS_FILE /etc/opensm/pkeys\nqos true\nrouting_engine ftree\n"
                             "sweep_interval 10\nsm_priority 5\n",
                             "Default=0x7fff : ALL=full ;\n");
  std::string findings = imported.Findings();
  EXPECT_NE(findings.find("opensm.conf:1: warning: 'P_KEY_ENABLE' is not an OpenSM option"), std::string::npos) << findings;
  EXPECT_NE(findings.find("opensm.conf:2: warning: 'P_KEYS_FILE' is not an OpenSM option"), std::string::npos);
  EXPECT_NE(findings.find("opensm.conf:3: warning: qos 'true': OpenSM takes only TRUE"), std::string::npos);
  ASSERT_TRUE(imported.config);
  EXPECT_EQ(imported.config->sm.opensm.options, (std::map<std::string, std::string>{{"routing_engine", "ftree"}}));
  EXPECT_EQ(imported.config->sm.role, Role::kStandby);
  EXPECT_EQ(imported.config->sm.priority, 5);
  EXPECT_EQ(imported.result.yaml.find("P_KEY"), std::string::npos);
}

TEST(ImportOpenSmConf, KeysNeverShown) {
  const std::string secret = "1a2b3c4d5e6f7081";
  Imported imported = Import("sm_key 0x" + secret + "\nm_key 0x" + secret + "\nsa_key=0x" + secret + "\nSM_KEY 0x" + secret + "\n",
                             "Default=0x7fff : ALL=full ;\n");
  std::string everything = imported.result.yaml + imported.Findings();
  EXPECT_EQ(everything.find(secret), std::string::npos) << everything;
  ASSERT_TRUE(imported.config);
  EXPECT_EQ(imported.config->sm.sm_key_file, "/etc/smsupd/sm_key");
  EXPECT_EQ(imported.config->sm.m_key_file, "/etc/smsupd/m_key");
  EXPECT_NE(imported.Findings().find("opensm.conf:1: warning: sm_key is set (value not shown)"), std::string::npos);
}

// Options at OpenSM's default are left out, and for the ones smsupd renders
// at its own default that changes what OpenSM runs with: the YAML says so
// where the file set the value, and where it did not, with what keeps
// OpenSM's value. A value other than the default is imported, no comment.
TEST(ImportOpenSmConf, SmsupdsOwnDefaultsAreNamedWhereTheFileLeavesOpenSmsDefault) {
  Imported kept = Import(Conf("max_wire_smps 4\n"), "Default=0x7fff : ALL=full ;\n");
  const std::string& yaml = kept.result.yaml;
  EXPECT_NE(yaml.find("  # opensm.conf:3: max_wire_smps 4 (OpenSM's default): smsupd renders 16; "
                      "to keep 4, add "
                      "'max_wire_smps: 4' to sm.opensm.options\n"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("  # opensm.conf: force_log_flush not set, so false (OpenSM's default): "
                      "smsupd renders true; "
                      "to keep false, add 'force_log_flush: false' to sm.opensm.options\n"),
            std::string::npos)
      << yaml;
  EXPECT_TRUE(kept.Findings().empty()) << kept.Findings();
  ASSERT_TRUE(kept.config);
  EXPECT_TRUE(kept.config->sm.opensm.options.empty());

  Imported set =
      Import(Conf("max_wire_smps 8\nforce_log_flush TRUE\n"), "Default=0x7fff : ALL=full ;\n");
  EXPECT_EQ(set.result.yaml.find("smsupd renders"), std::string::npos) << set.result.yaml;
  ASSERT_TRUE(set.config);
  EXPECT_EQ(
      set.config->sm.opensm.options,
      (std::map<std::string, std::string>{{"force_log_flush", "TRUE"}, {"max_wire_smps", "8"}}));
}

TEST(ImportNodeNameMap, SeveralPortsOfOneNameAreOneHost) {
  std::string partitions = "Default=0x7fff : ALL=full ;\n"
                           "p=0x0003 : 0x0002c90300001051=full, 0x0002c90300001052=full, 0x0002c90300001061=limited ;\n";
  Imported imported = Import(Conf(), partitions,
                             "# map\n0x0002c90300001051 \"H5\"\n0x0002c90300001052 \"H5\"\n0x0002c90300001061 \"H6\"\n"
                             "0x0002c90300001062 \"H6\"\n");
  ExpectSameTables(Conf(), partitions, imported, Ports());
  ASSERT_TRUE(imported.config);
  EXPECT_EQ(imported.config->hosts.at("H5").size(), 2u);
  EXPECT_EQ(imported.config->hosts.at("H6").size(), 1u);  // only the ports partitions.conf names
  EXPECT_NE(imported.result.yaml.find("{ host: H5, membership: full }   # partitions.conf:2"), std::string::npos)
      << imported.result.yaml;
}

TEST(ImportCommand, ExitCodes) {
  TempDir dir;
  std::string conf = dir.Write("opensm.conf", Conf());
  std::string clean = dir.Write("partitions.conf", "Default=0x7fff, ipoib : ALL=full ;\n");
  std::string warned = dir.Write("warned.conf", "Default=0x7fff : ALL=full, ALL=limited ;\nx=0x0001 : 0x0002c90300001021=both ;\n");
  std::ostringstream out, err;
  ImportOptions options{conf, clean, "", "", true};
  EXPECT_EQ(RunImportCommand(options, out, err), kImportClean) << err.str();
  EXPECT_NE(err.str().find("every P_Key table equal"), std::string::npos);
  EXPECT_NE(out.str().find("version: 1"), std::string::npos);
  options.partitions = warned;
  EXPECT_EQ(RunImportCommand(options, out, err), kImportFindings);
  options.partitions = dir.path() + "/missing.conf";
  std::ostringstream missing;
  EXPECT_EQ(RunImportCommand(options, out, missing), kImportUnreadable);
  EXPECT_NE(missing.str().find("missing.conf: error: cannot read"), std::string::npos) << missing.str();
  options.partitions = clean;
  options.out_file = dir.path() + "/smsupd.yaml";
  std::ostringstream written;
  EXPECT_EQ(RunImportCommand(options, written, err), kImportClean);
  EXPECT_TRUE(ReadWholeFile(options.out_file).ok());
}

}  // namespace
}  // namespace smsupd::config::testing

namespace smsupd::config::testing {
namespace {

std::string ErrorsOf(const ImportResult& result) {
  std::string errors;
  for (const ImportFinding& finding : result.findings)
    if (finding.severity == ImportFinding::Severity::kError) errors += finding.Format() + "\n";
  return errors;
}

// tests/config/golden/import/NAME.{opensm.conf,partitions.conf,node-name-map}
// import byte for byte to NAME.yaml and NAME.findings (regenerate with
// SMSUPD_REGENERATE_GOLDEN=1 and review the diff): the import as a reviewer
// reads it.
TEST(ImportGolden, TrickyFilesImportExactly) {
  const std::string dir = std::string(SMSUPD_SOURCE_DIR) + "/tests/config/golden/import/";
  ImportInputs inputs;
  inputs.opensm_conf = ImportFile{"opensm.conf", Golden("tests/config/golden/import/tricky.opensm.conf")};
  inputs.partitions = ImportFile{"partitions.conf", Golden("tests/config/golden/import/tricky.partitions.conf")};
  inputs.node_name_map = ImportFile{"node-name-map", Golden("tests/config/golden/import/tricky.node-name-map")};
  ImportResult result = ImportOpenSm(inputs);
  std::string findings;
  for (const ImportFinding& finding : result.findings) findings += finding.Format() + "\n";
  if (std::getenv("SMSUPD_REGENERATE_GOLDEN") != nullptr) {
    ASSERT_TRUE(WriteFileAtomically(dir + "tricky.yaml", result.yaml).ok());
    ASSERT_TRUE(WriteFileAtomically(dir + "tricky.findings", findings).ok());
    return;
  }
  EXPECT_EQ(result.yaml, Golden("tests/config/golden/import/tricky.yaml"));
  EXPECT_EQ(findings, Golden("tests/config/golden/import/tricky.findings"));
  EXPECT_TRUE(CheckImport(inputs, result).differences.empty());
  EXPECT_EQ((result.yaml + findings).find("1a2b3c4d5e6f7081"), std::string::npos);
}

// A file name is shown in YAML comments: a newline in it cannot start a
// YAML line of its own.
TEST(ImportYaml, AFileNameWithANewlineStaysInItsComment) {
  ImportResult result = ImportOpenSm({std::nullopt, ImportFile{"p\nversion: 2", "D=0x7fff : ALL ;\n"}, std::nullopt});
  EXPECT_EQ(result.yaml.find("\nversion: 2"), std::string::npos) << result.yaml;
  ValidationOutcome validation = ValidateText(result.yaml, "imported.yaml", KeyFile::kNameOnly);
  EXPECT_TRUE(validation.ok()) << AllDiagnostics(validation);
}

// Each bound of the import, reached.
TEST(ImportBounds, AFileLargerThanTheBoundIsNotRead) {
  TempDir dir;
  std::string big = dir.Write("partitions.conf", "");
  ASSERT_EQ(truncate(big.c_str(), static_cast<off_t>(kMaxImportFileBytes) + 1), 0);
  std::ostringstream out, err;
  EXPECT_EQ(RunImportCommand({"", big, "", "", false}, out, err), kImportUnreadable);
  EXPECT_NE(err.str().find("partitions.conf: error: cannot read"), std::string::npos) << err.str();
  EXPECT_EQ(out.str(), "");
}

TEST(ImportBounds, DefinitionsMembersAndReplayStepsPastTheirBoundsAreRefused) {
  std::string definitions;
  for (std::size_t i = 0; i <= kMaxImportDefinitions; ++i) definitions += "p=0x0001 : ALL ;\n";
  ImportResult many = ImportOpenSm({std::nullopt, ImportFile{"partitions.conf", definitions}, std::nullopt});
  EXPECT_TRUE(many.refused);
  EXPECT_EQ(many.yaml, "");
  EXPECT_NE(ErrorsOf(many).find("partitions.conf:32769: error: more than 32768 partition definitions"),
            std::string::npos) << ErrorsOf(many);

  std::string members = "p=0x0001 :\n";
  for (std::size_t i = 0; i <= kMaxImportMembers; ++i) members += "1,\n";
  ImportResult wide = ImportOpenSm({std::nullopt, ImportFile{"partitions.conf", members + ";\n"}, std::nullopt});
  EXPECT_TRUE(wide.refused);
  EXPECT_NE(ErrorsOf(wide).find("more than 2000000 member entries"), std::string::npos) << ErrorsOf(wide);
  EXPECT_EQ(wide.findings.dropped(), wide.findings.size() - kMaxKeptFindings - 1);  // 2,000,001 "no 0x" warnings

  // 20,000 GUIDs and 1,001 keyword lines in one partition: 20,020,000 steps.
  std::string steps = "p=0x0001 :\n";
  for (int i = 1; i <= 20000; ++i) steps += std::to_string(i) + ",\n";
  for (int i = 0; i <= 1000; ++i) steps += "ALL,\n";
  ImportResult slow = ImportOpenSm({std::nullopt, ImportFile{"partitions.conf", steps + ";\n"}, std::nullopt});
  EXPECT_TRUE(slow.refused);
  EXPECT_NE(ErrorsOf(slow).find("too large to import"), std::string::npos) << ErrorsOf(slow);
}

TEST(ImportBounds, FindingsAreCutAndCounted) {
  ImportResult result = ImportOpenSm(
      {ImportFile{"opensm.conf", std::string(5000, 'x') + " 1\n"}, ImportFile{"partitions.conf", "D=0x7fff:ALL;"}, std::nullopt});
  ASSERT_FALSE(result.findings.empty());
  for (const ImportFinding& finding : result.findings) EXPECT_LE(finding.Format().size(), kMaxFindingBytes + 64);
  std::string lines;
  for (int i = 0; i < 1500; ++i) lines += "p" + std::to_string(i) + "=0x0001 : A ;\n";
  std::ostringstream out, err;
  TempDir dir;
  EXPECT_EQ(RunImportCommand({"", dir.Write("partitions.conf", lines), "", "", false}, out, err), kImportFindings);
  EXPECT_NE(err.str().find("more warnings not shown"), std::string::npos);
  // An error past the shown warnings is shown all the same.
  std::ostringstream refused_out, refused_err;
  lines += "bad=0x0002 : 0x0002c9030000102g ;\n";
  EXPECT_EQ(RunImportCommand({"", dir.Write("bad.conf", lines), "", "", false}, refused_out, refused_err), kImportFindings);
  EXPECT_NE(refused_err.str().find("bad.conf:1501: error: bad PortGUID"), std::string::npos);
}

}  // namespace
}  // namespace smsupd::config::testing
