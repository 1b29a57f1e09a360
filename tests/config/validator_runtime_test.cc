// sm.failover, generations and verify (daemon settings, never rendered) and
// the priorities the failover policy reserves.
#include <gtest/gtest.h>

#include "config/renderer.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::Validate;

// BaseYaml with `top` inserted before hosts: (top-level sections).
std::string WithTopLevel(const std::string& top, const std::string& sm_extra = "") {
  std::string yaml = BaseYaml(sm_extra);
  yaml.insert(yaml.find("hosts:"), top);
  return yaml;
}

// The rendered text without its "# config hash:" line (the YAML differs).
std::string WithoutHashLine(std::string text) {
  size_t start = text.find("# config hash:");
  if (start != std::string::npos) text.erase(start, text.find('\n', start) - start);
  return text;
}

TEST(ValidatorRuntime, DefaultsWhenAbsent) {
  ValidationOutcome outcome = Validate(BaseYaml());
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const Config& config = *outcome.config;
  EXPECT_EQ(config.sm.failover.poll_interval_ms, 150);
  EXPECT_EQ(config.sm.failover.miss_threshold, 3);
  EXPECT_EQ(config.sm.failover.inventory_interval_ms, 2000);
  EXPECT_EQ(config.sm.failover.hold_time_s, 60);
  EXPECT_EQ(config.sm.failover.handover_timeout_ms, 5000);
  EXPECT_EQ(config.sm.failover.master_sweep_timeout_ms, 30000);
  EXPECT_EQ(config.generations.keep, 20);
  EXPECT_EQ(config.verify.sample_ports, 32);
  EXPECT_EQ(config.verify.timeout_s, 20);
}

TEST(ValidatorRuntime, EveryKeyIsRead) {
  ValidationOutcome outcome = Validate(
      WithTopLevel("generations:\n  keep: 2\nverify:\n  sample_ports: 0\n  timeout_s: 600\n",
                   "  failover:\n"
                   "    poll_interval_ms: 50\n"
                   "    miss_threshold: 20\n"
                   "    inventory_interval_ms: 60000\n"
                   "    hold_time_s: 0\n"
                   "    handover_timeout_ms: 1000\n"
                   "    master_sweep_timeout_ms: 5000\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const Config& config = *outcome.config;
  EXPECT_EQ(config.sm.failover.poll_interval_ms, 50);
  EXPECT_EQ(config.sm.failover.miss_threshold, 20);
  EXPECT_EQ(config.sm.failover.inventory_interval_ms, 60000);
  EXPECT_EQ(config.sm.failover.hold_time_s, 0);
  EXPECT_EQ(config.sm.failover.handover_timeout_ms, 1000);
  EXPECT_EQ(config.sm.failover.master_sweep_timeout_ms, 5000);
  EXPECT_EQ(config.generations.keep, 2);
  EXPECT_EQ(config.verify.sample_ports, 0);
  EXPECT_EQ(config.verify.timeout_s, 600);
}

TEST(ValidatorRuntime, OutOfRangeValuesNameTheRange) {
  ValidationOutcome outcome = Validate(
      WithTopLevel("generations:\n  keep: 1\nverify:\n  sample_ports: -1\n  timeout_s: 0\n",
                   "  failover:\n"
                   "    poll_interval_ms: 49\n"
                   "    miss_threshold: 21\n"
                   "    inventory_interval_ms: 499\n"
                   "    hold_time_s: 3601\n"
                   "    handover_timeout_ms: 60001\n"
                   "    master_sweep_timeout_ms: 4999\n"));
  ASSERT_EQ(outcome.ErrorCount(), 9) << AllDiagnostics(outcome);
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.poll_interval_ms")->Format(),
            "test.yaml:5:23: error: sm.failover.poll_interval_ms: 49 is out of range; expected an "
            "integer 50..1000");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.miss_threshold")->valid,
            "expected an integer 1..20");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.inventory_interval_ms")->valid,
            "expected an integer 500..60000");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.hold_time_s")->valid,
            "expected an integer 0..3600");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.handover_timeout_ms")->valid,
            "expected an integer 1000..60000");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.master_sweep_timeout_ms")->valid,
            "expected an integer 5000..600000");
  EXPECT_EQ(FindDiagnostic(outcome, "generations.keep")->valid, "expected an integer 2..1000");
  EXPECT_EQ(FindDiagnostic(outcome, "verify.sample_ports")->valid, "expected an integer 0..100000");
  EXPECT_EQ(FindDiagnostic(outcome, "verify.timeout_s")->valid, "expected an integer 1..600");
}

TEST(ValidatorRuntime, UnknownKeysAndWrongShapes) {
  ValidationOutcome outcome = Validate(WithTopLevel("generations: 5\nverify:\n  sample_port: 3\n",
                                                    "  failover:\n    poll_interval: 100\n"));
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "sm.failover.poll_interval")->valid,
            "did you mean 'poll_interval_ms'?");
  EXPECT_EQ(FindDiagnostic(outcome, "verify.sample_port")->valid, "did you mean 'sample_ports'?");
  ASSERT_NE(FindDiagnostic(outcome, "generations"), nullptr) << AllDiagnostics(outcome);
  EXPECT_FALSE(Validate(BaseYaml("  failover:\n    miss_threshold: three\n")).ok());
}

TEST(ValidatorRuntime, SlowDetectionWarnsThatOpenSmWouldTakeOverFirst) {
  ValidationOutcome outcome =
      Validate(BaseYaml("  failover:\n    poll_interval_ms: 1000\n    miss_threshold: 10\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  ASSERT_EQ(outcome.WarningCount(), 1) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].yaml_path, "sm.failover");
  EXPECT_EQ(Validate(BaseYaml("  failover:\n    poll_interval_ms: 1000\n    miss_threshold: 9\n"))
                .WarningCount(),
            0);
}

TEST(ValidatorRuntime, PrioritiesReservedByTheFailoverPolicyAreRefused) {
  ValidationOutcome zero = Validate(BaseYaml("  priority: 0\n"));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(FindDiagnostic(zero, "sm.priority")->Format(),
            "test.yaml:4:13: error: sm.priority: priority 0 is reserved by the failover policy (0 "
            "= a master yielding mastership); use 1..13 or 15 (defaults: 15 master, 5 standby)");
  ValidationOutcome claim = Validate(BaseYaml("  priority: 14\n"));
  ASSERT_FALSE(claim.ok());
  EXPECT_EQ(FindDiagnostic(claim, "sm.priority")->what,
            "priority 14 is reserved by the failover policy (14 = a standby claiming mastership)");
  EXPECT_TRUE(Validate(BaseYaml("  priority: 1\n")).ok());
  EXPECT_TRUE(Validate(BaseYaml("  priority: 13\n")).ok());
  EXPECT_TRUE(Validate(BaseYaml("  priority: 15\n")).ok());
}

TEST(ValidatorRuntime, NothingOfItIsRenderedIntoOpenSmConf) {
  ValidationOutcome plain = Validate(BaseYaml());
  ValidationOutcome tuned =
      Validate(WithTopLevel("generations:\n  keep: 7\nverify:\n  sample_ports: 3\n  timeout_s: 9\n",
                            "  failover:\n    poll_interval_ms: 60\n    hold_time_s: 1\n"));
  ASSERT_TRUE(plain.ok() && tuned.ok()) << AllDiagnostics(tuned);
  EXPECT_EQ(OpenSmOptionValues(*plain.config, RenderInputs{}),
            OpenSmOptionValues(*tuned.config, RenderInputs{}));
  RenderedFiles plain_files = Render(*plain.config, RenderInputs{});
  RenderedFiles tuned_files = Render(*tuned.config, RenderInputs{});
  EXPECT_EQ(WithoutHashLine(plain_files.opensm_conf), WithoutHashLine(tuned_files.opensm_conf));
  EXPECT_EQ(WithoutHashLine(plain_files.partitions_conf),
            WithoutHashLine(tuned_files.partitions_conf));
}

// BaseYaml with an `apply:` section (its name differs from WithTopLevel's:
// unity builds put another file's helper beside it).
std::string YamlWithApplySection(const std::string& section) {
  std::string yaml = BaseYaml();
  yaml.insert(yaml.find("hosts:"), section);
  return yaml;
}

// apply: the twin gate and the readiness check; off by default.
TEST(ValidatorRuntime, ApplyTwinDefaultsOffAndReadsEveryMode) {
  ValidationOutcome absent = Validate(BaseYaml());
  ASSERT_TRUE(absent.ok()) << AllDiagnostics(absent);
  EXPECT_EQ(absent.config->apply.twin, TwinGate::kOff);
  EXPECT_EQ(absent.config->apply.twin_readiness_interval_s, 0);
  for (auto [text, gate] : {std::pair{"off", TwinGate::kOff}, std::pair{"advisory", TwinGate::kAdvisory},
                            std::pair{"required", TwinGate::kRequired}}) {
    ValidationOutcome outcome = Validate(YamlWithApplySection(std::string("apply:\n  twin: ") + text +
                                                      "\n  twin_readiness_interval_s: 300\n"));
    ASSERT_TRUE(outcome.ok()) << text << AllDiagnostics(outcome);
    EXPECT_EQ(outcome.config->apply.twin, gate) << text;
    EXPECT_STREQ(TwinGateName(outcome.config->apply.twin), text);
    EXPECT_EQ(outcome.config->apply.twin_readiness_interval_s, 300);
  }
  ValidationOutcome zero = Validate(YamlWithApplySection("apply:\n  twin_readiness_interval_s: 0\n"));
  ASSERT_TRUE(zero.ok()) << AllDiagnostics(zero);
  EXPECT_EQ(zero.config->apply.twin_readiness_interval_s, 0);
}

TEST(ValidatorRuntime, ApplyTwinErrorsNameFileLineColumnAndWhatIsValid) {
  ValidationOutcome outcome = Validate(
      YamlWithApplySection("apply:\n  twin: requird\n  twin_readiness_interval_s: 59\n"));
  ASSERT_EQ(outcome.ErrorCount(), 2) << AllDiagnostics(outcome);
  const Diagnostic* twin = FindDiagnostic(outcome, "apply.twin");
  ASSERT_NE(twin, nullptr);
  EXPECT_NE(twin->Format().find("test.yaml:"), std::string::npos) << twin->Format();
  EXPECT_EQ(twin->column, 9) << twin->Format();
  EXPECT_NE(twin->valid.find("did you mean 'required'?"), std::string::npos) << twin->Format();
  EXPECT_NE(twin->valid.find("off, advisory, required"), std::string::npos) << twin->Format();
  const Diagnostic* interval = FindDiagnostic(outcome, "apply.twin_readiness_interval_s");
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(interval->line, twin->line + 1);
  EXPECT_EQ(interval->valid, "0 (off) or 60..86400") << interval->Format();

  ValidationOutcome too_long = Validate(YamlWithApplySection("apply:\n  twin_readiness_interval_s: 86401\n"));
  ASSERT_NE(FindDiagnostic(too_long, "apply.twin_readiness_interval_s"), nullptr) << AllDiagnostics(too_long);
  ValidationOutcome unknown = Validate(YamlWithApplySection("apply:\n  twin_gate: off\n"));
  EXPECT_EQ(unknown.ErrorCount(), 1) << AllDiagnostics(unknown);
}

}  // namespace
}  // namespace smsupd::config
