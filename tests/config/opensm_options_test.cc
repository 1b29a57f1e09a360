// The OpenSM option table and sm.opensm.options checks.
#include <gtest/gtest.h>

#include "config/opensm_options.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::Validate;

ValidationOutcome WithOption(const std::string& line) {
  return Validate(BaseYaml("  opensm:\n    options:\n      " + line + "\n"));
}

TEST(OpenSmOptions, TableMatchesOpenSm3323) {
  EXPECT_EQ(AllOpenSmOptions().size(), 160u);
  const OpenSmOption* sweep = FindOpenSmOption("sweep_interval");
  ASSERT_NE(sweep, nullptr);
  EXPECT_EQ(sweep->type, OptionType::kInteger);
  EXPECT_EQ(sweep->default_value, "10");
  EXPECT_TRUE(sweep->changeable_at_runtime);
  const OpenSmOption* routing = FindOpenSmOption("routing_engine");
  ASSERT_NE(routing, nullptr);
  EXPECT_FALSE(routing->changeable_at_runtime);
  EXPECT_EQ(FindOpenSmOption("qos")->type, OptionType::kBoolean);
  EXPECT_EQ(FindOpenSmOption("no_such_option"), nullptr);
}

TEST(OpenSmOptions, OwnedOptionsNameTheYamlKey) {
  for (const char* name : {"guid", "sm_priority", "sm_key", "partition_config_file", "log_file",
                           "sminfo_polling_timeout", "polling_retry_number", "allow_both_pkeys"}) {
    const OpenSmOption* option = FindOpenSmOption(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_TRUE(option->owned_by_smsupd) << name;
    EXPECT_FALSE(option->use_instead.empty()) << name;
  }
  ValidationOutcome outcome = WithOption("sm_priority: 3");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "sm.opensm.options.sm_priority")->Format(),
            "test.yaml:6:7: error: sm.opensm.options.sm_priority: option 'sm_priority' is owned "
            "by smsupd; use sm.priority");
}

TEST(OpenSmOptions, UnknownOptionSuggestsNearest) {
  ValidationOutcome outcome = WithOption("routing_engin: ftree");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "sm.opensm.options.routing_engin")->valid,
            "did you mean 'routing_engine'?");
}

TEST(OpenSmOptions, BooleansAreWrittenAsOpenSmReadsThem) {
  EXPECT_EQ(WithOption("qos: true").config->sm.opensm.options.at("qos"), "TRUE");
  EXPECT_EQ(WithOption("qos: FALSE").config->sm.opensm.options.at("qos"), "FALSE");
  EXPECT_FALSE(WithOption("qos: yes").ok());
  EXPECT_FALSE(WithOption("qos: 1").ok());
}

TEST(OpenSmOptions, IntegersAreRangeChecked) {
  EXPECT_EQ(WithOption("lmc: 2").config->sm.opensm.options.at("lmc"), "2");
  EXPECT_EQ(WithOption("packet_life_time: 0x12").config->sm.opensm.options.at("packet_life_time"),
            "0x12");
  EXPECT_FALSE(WithOption("lmc: 256").ok());
  EXPECT_FALSE(WithOption("lmc: two").ok());
  EXPECT_FALSE(WithOption("lmc: 010").ok());  // octal to OpenSM
  EXPECT_FALSE(WithOption("sweep_interval: true").ok());
  EXPECT_TRUE(WithOption("qos_high_limit: -1").ok());
}

TEST(OpenSmOptions, Hex64AndStrings) {
  EXPECT_EQ(WithOption("subnet_prefix: 0xfe80000000000001").config->sm.opensm.options.at("subnet_prefix"),
            "0xfe80000000000001");
  EXPECT_FALSE(WithOption("m_key: 12").ok());
  EXPECT_EQ(WithOption("routing_engine: ftree,updn").config->sm.opensm.options.at("routing_engine"),
            "ftree,updn");
  EXPECT_FALSE(WithOption("routing_engine: ''").ok());
}

// A malformed key is still most of a key: the diagnostic must not echo it.
TEST(OpenSmOptions, AnInvalidKeyIsNotEchoed) {
  ValidationOutcome outcome = WithOption("sa_key: 0x1234567890abcdefz");
  ASSERT_FALSE(outcome.ok());
  std::string text = AllDiagnostics(outcome);
  EXPECT_EQ(text.find("1234567890abcdef"), std::string::npos) << text;
  EXPECT_NE(text.find("sa_key"), std::string::npos) << text;
}

// OpenSM reads 1022 bytes per line, stops at a NUL or '#' and trims white
// space and quotes around a value (osm_subnet.c): such a value would reach
// OpenSM changed, or spill into a line of its own.
TEST(OpenSmOptions, StringsAreWhatOpenSmReadsBack) {
  EXPECT_FALSE(WithOption("routing_engine: \"ftree\\t\"").ok());
  EXPECT_FALSE(WithOption("routing_engine: '\"ftree\"'").ok());
  EXPECT_FALSE(WithOption("node_name_map_name: \"/etc/map\\0.old\"").ok());
  EXPECT_FALSE(WithOption("routing_engine: \"ftree\\nsm_priority 0\"").ok());
  // "root_guid_file " + value + "\n" fills the 1022 bytes exactly.
  EXPECT_TRUE(WithOption("root_guid_file: /" + std::string(1005, 'r')).ok());
  EXPECT_FALSE(WithOption("root_guid_file: /" + std::string(1006, 'r')).ok());
  EXPECT_TRUE(WithOption("routing_engine: \"ftree updn\"").ok());  // OpenSM keeps inner spaces
}

TEST(OpenSmOptions, OptionsNeedingRestart) {
  Config before = *WithOption("sweep_interval: 5").config;
  Config after = before;
  after.sm.opensm.options["routing_engine"] = "ftree";
  after.sm.opensm.options["sweep_interval"] = "20";  // changeable: no restart
  after.sm.priority = 3;                            // changeable
  after.sm.port_guid = 0x1234;                      // guid: restart
  std::vector<std::string> names = OptionsNeedingRestart(before, after);
  EXPECT_EQ(names, (std::vector<std::string>{"guid", "routing_engine"}));
  EXPECT_TRUE(OptionsNeedingRestart(before, before).empty());
  // Dropping an option goes back to OpenSM's default, which also needs a restart.
  Config dropped = after;
  dropped.sm.opensm.options.erase("routing_engine");
  EXPECT_EQ(OptionsNeedingRestart(after, dropped), std::vector<std::string>{"routing_engine"});
}

// OpenSM's table calls these changeable, but the VL15 poller copies them
// once, at start: a reload that changes one must restart OpenSM.
TEST(OpenSmOptions, TheSmpWindowCountsOnlyAtStart) {
  Config before = *WithOption("sweep_interval: 5").config;
  for (const char* name : {"max_wire_smps", "max_wire_smps2", "max_smps_timeout"}) {
    EXPECT_FALSE(FindOpenSmOption(name)->changeable_at_runtime) << name;
    Config after = before;
    after.sm.opensm.options[name] = "8";
    EXPECT_EQ(OptionsNeedingRestart(before, after), std::vector<std::string>{name});
  }
  // smsupd's own default (16) against OpenSM's (4) written in the YAML.
  Config at_four = *WithOption("max_wire_smps: 4").config;
  EXPECT_EQ(OptionsNeedingRestart(before, at_four), std::vector<std::string>{"max_wire_smps"});
}

}  // namespace
}  // namespace smsupd::config
