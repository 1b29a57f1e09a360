// Rendering rules that are not about membership (see partition_rule_test.cc).
#include <gtest/gtest.h>

#include <sstream>

#include "config/renderer.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::OpenSmConfValue;

Config Load(const std::string& yaml) {
  ValidationOutcome outcome = testing::Validate(yaml);
  EXPECT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  return outcome.ok() ? *outcome.config : Config{};
}

int CountLines(const std::string& text, const std::string& prefix) {
  std::stringstream lines(text);
  int count = 0;
  for (std::string line; std::getline(lines, line);) count += line.rfind(prefix, 0) == 0;
  return count;
}

TEST(Renderer, OwnedOptionsAreExplicitAndWrittenOnce) {
  Config config = Load(BaseYaml("  port_guid: 0x0002c90300000001\n  priority: 12\n"));
  RenderInputs inputs;
  inputs.partitions_path = "/var/lib/smsupd/gen/partitions.conf";
  inputs.opensm_log_file = "/var/log/smsupd-opensm.log";
  std::string conf = Render(config, inputs).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "guid"), "0x0002c90300000001");
  EXPECT_EQ(OpenSmConfValue(conf, "sm_priority"), "12");
  EXPECT_EQ(OpenSmConfValue(conf, "partition_config_file"), "/var/lib/smsupd/gen/partitions.conf");
  EXPECT_EQ(OpenSmConfValue(conf, "log_file"), "/var/log/smsupd-opensm.log");
  EXPECT_EQ(OpenSmConfValue(conf, "sminfo_polling_timeout"), "2000");
  EXPECT_EQ(OpenSmConfValue(conf, "polling_retry_number"), "4");
  EXPECT_EQ(OpenSmConfValue(conf, "allow_both_pkeys"), "FALSE");
  for (const char* name : {"guid", "sm_priority", "sm_key", "partition_config_file", "log_file",
                           "sweep_interval", "routing_engine"})
    EXPECT_EQ(CountLines(conf, std::string(name) + " "), 1) << name;
  EXPECT_EQ(CountLines(conf, "true"), 0);
}

TEST(Renderer, InputsOverrideConfigAndDefaultsComeFromStateDir) {
  Config config = Load(BaseYaml("  port_guid: 0x0002c90300000001\n") + "state_dir: /srv/s\n");
  RenderInputs inputs;
  inputs.port_guid = 0x0002c90300000099;
  std::string conf = Render(config, inputs).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "guid"), "0x0002c90300000099");
  EXPECT_EQ(OpenSmConfValue(conf, "partition_config_file"), "/srv/s/partitions.conf");
  EXPECT_EQ(OpenSmConfValue(conf, "log_file"), "/srv/s/opensm.log");
}

TEST(Renderer, NoGuidLineWhenThePortIsNotKnownYet) {
  std::string conf = Render(Load(BaseYaml()), RenderInputs{}).opensm_conf;
  EXPECT_EQ(CountLines(conf, "guid "), 0);
  EXPECT_NE(conf.find("# guid: not written here"), std::string::npos);
}

TEST(Renderer, UserOptionsAndDefaultsCoverEveryOptionOnce) {
  Config config = Load(BaseYaml("  opensm:\n    options:\n      sweep_interval: 5\n      qos: true\n"));
  std::string conf = Render(config, RenderInputs{}).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "sweep_interval"), "5");
  EXPECT_EQ(OpenSmConfValue(conf, "qos"), "TRUE");
  EXPECT_EQ(OpenSmConfValue(conf, "routing_engine"), "(null)");
  EXPECT_EQ(CountLines(conf, "sweep_interval "), 1);
  int option_lines = 0;
  std::stringstream lines(conf);
  for (std::string line; std::getline(lines, line);) option_lines += !line.empty() && line[0] != '#';
  EXPECT_EQ(option_lines, 159);  // every option but guid
}

TEST(Renderer, SmsupdsDefaultsAreRenderedUnlessTheYamlSetsThem) {
  std::string conf = Render(Load(BaseYaml()), RenderInputs{}).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "max_wire_smps"), "16");
  EXPECT_EQ(OpenSmConfValue(conf, "force_log_flush"), "TRUE");
  EXPECT_EQ(CountLines(conf, "max_wire_smps "), 1);
  Config own = Load(
      BaseYaml("  opensm:\n    options:\n      max_wire_smps: 4\n      force_log_flush: false\n"));
  conf = Render(own, RenderInputs{}).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "max_wire_smps"), "4");
  EXPECT_EQ(OpenSmConfValue(conf, "force_log_flush"), "FALSE");
  EXPECT_EQ(CountLines(conf, "max_wire_smps "), 1);
  EXPECT_EQ(CountLines(conf, "force_log_flush "), 1);
}

TEST(Renderer, SmKeyIsRendered) {
  Config config = Load(BaseYaml());
  config.sm.sm_key = 0x1a2b3c4d5e6f7081;
  RenderedFiles files = Render(config, RenderInputs{});
  EXPECT_EQ(OpenSmConfValue(files.opensm_conf, "sm_key"), "0x1a2b3c4d5e6f7081");
}

// m_key and sa_key come from their key files: written once each, as
// smsupd's own options, and OpenSM's defaults when no file is named.
TEST(Renderer, MKeyAndSaKeyFromTheirKeyFilesAreRenderedOnce) {
  testing::TempDir dir;
  std::string m_key = dir.Write("m_key", "0x00000000000a0b0c\n", 0600);
  std::string sa_key = dir.Write("sa_key", "0x00000000000d0e0f\n", 0600);
  Config config = Load(BaseYaml("  m_key_file: " + m_key + "\n  sa_key_file: " + sa_key + "\n"));
  std::string conf = Render(config, RenderInputs{}).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(conf, "m_key"), "0x00000000000a0b0c");
  EXPECT_EQ(OpenSmConfValue(conf, "sa_key"), "0x00000000000d0e0f");
  EXPECT_EQ(CountLines(conf, "m_key "), 1);
  EXPECT_EQ(CountLines(conf, "sa_key "), 1);
  std::string defaults = Render(Load(BaseYaml()), RenderInputs{}).opensm_conf;
  EXPECT_EQ(OpenSmConfValue(defaults, "m_key"), "0x0000000000000000");
  EXPECT_EQ(OpenSmConfValue(defaults, "sa_key"), "0x0000000000000001");
}

TEST(Renderer, BothMembershipTurnsOnAllowBothPKeys) {
  Config config = Load(BaseYaml("", "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                    "      - { host: h1, membership: both }\n"));
  EXPECT_EQ(OpenSmConfValue(Render(config, RenderInputs{}).opensm_conf, "allow_both_pkeys"), "TRUE");
}

TEST(Renderer, FlagsAreOpenSmCodes) {
  Config config = Load(BaseYaml(
      "", "  - name: Default\n    pkey: 0x7fff\n    members: [ { ports: ALL } ]\n"
          "  - name: fast\n    pkey: 0x12\n    ipoib: true\n    mtu: 2048\n    rate: 2.5\n"
          "    sl: 3\n    scope: 5\n    qkey: 0x0b1b\n    tclass: 4\n    indx0: true\n"
          "    defmember: limited\n    members: [ { host: h1 } ]\n"));
  std::string partitions = Render(config, RenderInputs{}).partitions_conf;
  EXPECT_NE(partitions.find("fast=0x0012, ipoib, defmember=limited, indx0, mtu=4, rate=2, sl=3, "
                            "scope=5, Q_Key=0x00000b1b, TClass=4 :\n    0x0002c90300000001=limited ;\n"),
            std::string::npos)
      << partitions;
}

TEST(Renderer, MissingDefaultIsWhatOpenSmDoesWithoutAFile) {
  Config config = Load(BaseYaml("", "  - name: a\n    pkey: 0x1\n    members: [ { host: h1 } ]\n"));
  EXPECT_NE(Render(config, RenderInputs{}).partitions_conf.find("Default=0x7fff, ipoib :\n    ALL=full ;\n"),
            std::string::npos);
}

TEST(Renderer, LongMemberListsAreWrappedFarBelowOpenSmsLineLimit) {
  std::string hosts = "hosts:\n";
  std::string members;
  for (int i = 0; i < 600; ++i) {
    char line[64];
    std::snprintf(line, sizeof line, "  n%d: 0x0002c903%08x\n", i, 0x100 + i);
    hosts += line;
    members += "      - { host: n" + std::to_string(i) + " }\n";
  }
  std::string yaml = "version: 1\nsm:\n  role: master\n" + hosts +
                     "partitions:\n  - name: Default\n    pkey: 0x7fff\n    members:\n" + members;
  std::string partitions = Render(Load(yaml), RenderInputs{}).partitions_conf;
  std::stringstream lines(partitions);
  size_t longest = 0;
  for (std::string line; std::getline(lines, line);) longest = std::max(longest, line.size());
  EXPECT_LE(longest, 100u);
  EXPECT_EQ(CountLines(partitions, "    0x0002c903"), 200);  // 3 per line
}

TEST(Renderer, IsByteForByteDeterministic) {
  std::string yaml = BaseYaml("  port_guid: 0x0002c90300000001\n",
                              "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                              "      - { group: g }\n      - { host: h2, membership: both }\n"
                              "      - { ports: ALL, membership: limited }\n");
  RenderedFiles first = Render(Load(yaml), RenderInputs{});
  for (int i = 0; i < 5; ++i) {
    RenderedFiles again = Render(Load(yaml), RenderInputs{});
    EXPECT_EQ(again.opensm_conf, first.opensm_conf);
    EXPECT_EQ(again.partitions_conf, first.partitions_conf);
    EXPECT_EQ(again.config_hash, first.config_hash);
  }
  // The YAML order of members does not change the output (only the hash).
  std::string reordered = BaseYaml("  port_guid: 0x0002c90300000001\n",
                                   "  - name: Default\n    pkey: 0x7fff\n    members:\n"
                                   "      - { ports: ALL, membership: limited }\n"
                                   "      - { host: h2, membership: both }\n      - { group: g }\n");
  RenderedFiles other = Render(Load(reordered), RenderInputs{});
  auto body = [](const std::string& text) { return text.substr(text.find("\n\n")); };
  EXPECT_EQ(body(other.partitions_conf), body(first.partitions_conf));
  EXPECT_NE(other.config_hash, first.config_hash);
}

TEST(Renderer, HeaderNamesSourceAndHash) {
  Config config = Load(BaseYaml());
  RenderedFiles files = Render(config, RenderInputs{});
  EXPECT_EQ(files.config_hash, ConfigHash(config.source_text));
  EXPECT_EQ(files.partitions_conf.rfind("# Generated by smsupd from test.yaml\n# config hash: sha256:" +
                                            files.config_hash + "\n# Do not edit",
                                        0),
            0u);
}

}  // namespace
}  // namespace smsupd::config
