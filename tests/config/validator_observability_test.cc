// metrics: and hooks: (the HTTP listener and the event hooks): defaults,
// the loopback rule, and the diagnostics for wrong values.
#include <gtest/gtest.h>

#include "config/listen_address.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::Validate;

std::string WithTopLevel(const std::string& top) {
  std::string yaml = BaseYaml();
  yaml.insert(yaml.find("hosts:"), top);
  return yaml;
}

TEST(ValidatorObservability, ListenerAndHooksAreOffByDefault) {
  ValidationOutcome outcome = Validate(BaseYaml());
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->metrics.listen, "");
  EXPECT_FALSE(outcome.config->metrics.allow_remote);
  EXPECT_EQ(outcome.config->hooks.directory, "");
  EXPECT_EQ(outcome.config->hooks.timeout_ms, 10000);
}

TEST(ValidatorObservability, LoopbackAddressesAreAccepted) {
  for (const char* listen : {"127.0.0.1:9662", "127.1.2.3:1", "[::1]:9662"}) {
    ValidationOutcome outcome = Validate(WithTopLevel(std::string("metrics:\n  listen: \"") + listen + "\"\n"));
    ASSERT_TRUE(outcome.ok()) << listen << ": " << AllDiagnostics(outcome);
    EXPECT_EQ(outcome.config->metrics.listen, listen);
    EXPECT_EQ(FindDiagnostic(outcome, "metrics.listen"), nullptr) << AllDiagnostics(outcome);
  }
}

// The packaged units allow IP only to and from localhost: a remote listener
// needs a drop-in, and --check (and every reload) says which.
TEST(ValidatorObservability, ARemoteListenerIsWarnedAboutNamingTheUnitsDropIn) {
  ValidationOutcome outcome =
      Validate(WithTopLevel("metrics:\n  listen: \"[2001:db8::5]:9662\"\n  allow_remote: true\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->metrics.listen, "[2001:db8::5]:9662");
  const Diagnostic* warning = FindDiagnostic(outcome, "metrics.listen");
  ASSERT_NE(warning, nullptr) << "no warning for a listener the units' IPAddressDeny=any cuts off";
  EXPECT_EQ(warning->severity, Severity::kWarning);
  EXPECT_GT(warning->line, 0);
  EXPECT_NE(warning->what.find("IPAddressDeny=any"), std::string::npos) << warning->Format();
  EXPECT_NE(warning->valid.find("/etc/systemd/system/smsupd.service.d/metrics-listen.conf"), std::string::npos)
      << warning->Format();
  EXPECT_NE(warning->valid.find("IPAddressAllow="), std::string::npos) << warning->Format();
}

TEST(ValidatorObservability, ANonLoopbackAddressNeedsAllowRemote) {
  ValidationOutcome refused = Validate(WithTopLevel("metrics:\n  listen: 0.0.0.0:9662\n"));
  ASSERT_FALSE(refused.ok());
  const Diagnostic* diagnostic = FindDiagnostic(refused, "metrics.listen");
  ASSERT_NE(diagnostic, nullptr) << AllDiagnostics(refused);
  EXPECT_NE(diagnostic->what.find("not a loopback address"), std::string::npos) << diagnostic->Format();
  EXPECT_NE(diagnostic->valid.find("allow_remote"), std::string::npos) << diagnostic->Format();

  ValidationOutcome allowed =
      Validate(WithTopLevel("metrics:\n  listen: 10.0.0.5:9662\n  allow_remote: true\n"));
  ASSERT_TRUE(allowed.ok()) << AllDiagnostics(allowed);
  EXPECT_EQ(allowed.config->metrics.listen, "10.0.0.5:9662");
}

TEST(ValidatorObservability, AListenValueThatIsNoAddressAndPortIsRefused) {
  for (const char* listen : {"localhost:9662", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:70000",
                             "::1:9662", "127.0.0.1:96x2"}) {
    ValidationOutcome outcome = Validate(WithTopLevel(std::string("metrics:\n  listen: \"") + listen + "\"\n"));
    EXPECT_FALSE(outcome.ok()) << listen;
    const Diagnostic* diagnostic = FindDiagnostic(outcome, "metrics.listen");
    ASSERT_NE(diagnostic, nullptr) << listen << ": " << AllDiagnostics(outcome);
    EXPECT_GT(diagnostic->line, 0);
  }
}

// metrics.subnet names the fabric in smsupd_subnet_info: a label value, so
// a short word, and absent by default (the subnet prefix names it then).
TEST(ValidatorObservability, SubnetNameIsAShortWord) {
  ValidationOutcome absent = Validate(BaseYaml());
  ASSERT_TRUE(absent.ok()) << AllDiagnostics(absent);
  EXPECT_EQ(absent.config->metrics.subnet, "");
  ValidationOutcome named = Validate(WithTopLevel("metrics:\n  subnet: fabric-a.hall_2\n"));
  ASSERT_TRUE(named.ok()) << AllDiagnostics(named);
  EXPECT_EQ(named.config->metrics.subnet, "fabric-a.hall_2");
  EXPECT_NE(FindDiagnostic(Validate(WithTopLevel("metrics:\n  subnet: \"\"\n")), "metrics.subnet"), nullptr);
  for (const std::string& bad : {std::string("\"fabric a\""), std::string("\"a{b}\""),
                                 std::string(64, 'x')}) {
    ValidationOutcome outcome = Validate(WithTopLevel("metrics:\n  subnet: " + bad + "\n"));
    EXPECT_FALSE(outcome.ok()) << bad;
    const Diagnostic* diagnostic = FindDiagnostic(outcome, "metrics.subnet");
    ASSERT_NE(diagnostic, nullptr) << bad << ": " << AllDiagnostics(outcome);
    EXPECT_GT(diagnostic->line, 0);
    EXPECT_NE(diagnostic->valid.find("same on both daemons"), std::string::npos) << diagnostic->Format();
  }
  EXPECT_TRUE(Validate(WithTopLevel("metrics:\n  subnet: " + std::string(63, 'x') + "\n")).ok());
}

TEST(ValidatorObservability, HooksDirectoryAndTimeout) {
  ValidationOutcome outcome =
      Validate(WithTopLevel("hooks:\n  directory: /etc/smsupd/hooks.d\n  timeout_ms: 2500\n"));
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->hooks.directory, "/etc/smsupd/hooks.d");
  EXPECT_EQ(outcome.config->hooks.timeout_ms, 2500);

  EXPECT_NE(FindDiagnostic(Validate(WithTopLevel("hooks:\n  directory: hooks.d\n")), "hooks.directory"),
            nullptr);
  EXPECT_NE(FindDiagnostic(Validate(WithTopLevel("hooks:\n  timeout_ms: 50\n")), "hooks.timeout_ms"),
            nullptr);
  EXPECT_NE(FindDiagnostic(Validate(WithTopLevel("hooks:\n  script: /x\n")), "hooks.script"), nullptr);
}

TEST(ListenAddress, ParsesAndKnowsLoopback) {
  auto v4 = ParseListenAddress("127.0.0.1:9662");
  ASSERT_TRUE(v4);
  EXPECT_TRUE(v4->loopback);
  EXPECT_EQ(v4->BindText(), "127.0.0.1:9662");
  auto v6 = ParseListenAddress("[::1]:80");
  ASSERT_TRUE(v6);
  EXPECT_TRUE(v6->ipv6 && v6->loopback);
  EXPECT_EQ(v6->BindText(), "[::1]:80");
  auto remote = ParseListenAddress("[2001:db8::1]:9662");
  ASSERT_TRUE(remote);
  EXPECT_FALSE(remote->loopback);
  EXPECT_FALSE(ParseListenAddress("[::1]"));
}

}  // namespace
}  // namespace smsupd::config
