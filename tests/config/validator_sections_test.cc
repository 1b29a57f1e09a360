// Top-level, sm:, hosts:, groups:, control:, limits: rules of the validator.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/key_file.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::AllDiagnostics;
using testing::BaseYaml;
using testing::FindDiagnostic;
using testing::TempDir;
using testing::Validate;

TEST(ValidatorSections, BaseConfigIsValidWithDefaults) {
  ValidationOutcome outcome = Validate(BaseYaml());
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  const Config& config = *outcome.config;
  EXPECT_EQ(config.sm.priority, 15);
  EXPECT_TRUE(config.sm.preempt);
  EXPECT_EQ(config.state_dir, "/var/lib/smsupd");
  EXPECT_EQ(config.control.socket, "/run/smsupd/smsupd.sock");
  EXPECT_EQ(config.sm.opensm.binary, "/usr/sbin/opensm");
  EXPECT_EQ(config.limits.pkeys_per_port, 128);
  EXPECT_FALSE(config.node.empty());  // the host name
  EXPECT_EQ(config.hosts.at("h2").size(), 2u);
}

TEST(ValidatorSections, StandbyDefaultsToPriorityFive) {
  std::string yaml = BaseYaml();
  yaml.replace(yaml.find("role: master"), 12, "role: standby");
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->sm.role, Role::kStandby);
  EXPECT_EQ(outcome.config->sm.priority, 5);
}

TEST(ValidatorSections, MissingVersionIsReportedAtTheTop) {
  ValidationOutcome outcome = Validate("sm:\n  role: master\n");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.diagnostics[0].Format(),
            "test.yaml:1:1: error: missing key 'version'; add 'version: 1' at the top");
}

TEST(ValidatorSections, UnsupportedVersionNamesTheValidOne) {
  std::string yaml = BaseYaml();
  yaml.replace(0, 10, "version: 2");
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.diagnostics[0].Format(),
            "test.yaml:1:10: error: version: unsupported version '2'; valid: 1");
}

TEST(ValidatorSections, SyntaxErrorHasLineAndColumnAndExitsInvalid) {
  ValidationOutcome outcome = Validate("version: 1\nsm: [role\n");
  ASSERT_FALSE(outcome.ok());
  ASSERT_EQ(outcome.diagnostics.size(), 1u);
  EXPECT_EQ(outcome.diagnostics[0].line, 3);
  EXPECT_NE(outcome.diagnostics[0].what.find("YAML syntax error"), std::string::npos);
  EXPECT_FALSE(outcome.unreadable);
}

TEST(ValidatorSections, UnknownKeysAtEveryLevelSuggestTheNearestKey) {
  ValidationOutcome outcome = Validate(
      "version: 1\n"
      "sm:\n"
      "  role: master\n"
      "  prority: 3\n"
      "  opensm:\n"
      "    binray: /usr/sbin/opensm\n"
      "contrl:\n"
      "  socket: /run/x.sock\n");
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "sm.prority")->Format(),
            "test.yaml:4:3: error: sm.prority: unknown key 'prority'; did you mean 'priority'?");
  EXPECT_EQ(FindDiagnostic(outcome, "sm.opensm.binray")->valid, "did you mean 'binary'?");
  EXPECT_EQ(FindDiagnostic(outcome, "contrl")->Format(),
            "test.yaml:7:1: error: contrl: unknown key 'contrl'; did you mean 'control'?");
}

TEST(ValidatorSections, EveryErrorIsReportedAtOnceInFileOrder) {
  ValidationOutcome outcome = Validate(
      "version: 1\n"
      "sm:\n"
      "  role: mastr\n"
      "  priority: 16\n"
      "  port_guid: 12345\n");
  ASSERT_EQ(outcome.ErrorCount(), 3) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.diagnostics[0].Format(),
            "test.yaml:3:9: error: sm.role: 'mastr' is not valid; did you mean 'master'? valid: "
            "master, standby");
  EXPECT_EQ(outcome.diagnostics[1].Format(),
            "test.yaml:4:13: error: sm.priority: 16 is out of range; expected an integer 0..15");
  EXPECT_EQ(outcome.diagnostics[2].Format(),
            "test.yaml:5:14: error: sm.port_guid: '12345' is not a GUID; expected 0x followed by 1 "
            "to 16 hex digits, e.g. 0x0002c90300a1b2c3");
}

TEST(ValidatorSections, PriorityRangeAndRoleWarnings) {
  EXPECT_TRUE(Validate(BaseYaml("  priority: 1\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -1\n")).ok());
  ValidationOutcome low_master = Validate(BaseYaml("  priority: 5\n"));
  ASSERT_TRUE(low_master.ok());
  ASSERT_EQ(low_master.WarningCount(), 1);
  EXPECT_EQ(low_master.diagnostics[0].severity, Severity::kWarning);
  EXPECT_EQ(low_master.diagnostics[0].yaml_path, "sm.priority");
  EXPECT_EQ(Validate(BaseYaml("  priority: 6\n")).WarningCount(), 0);

  std::string standby = BaseYaml("  priority: 15\n");
  standby.replace(standby.find("role: master"), 12, "role: standby");
  ValidationOutcome high_standby = Validate(standby);
  ASSERT_TRUE(high_standby.ok());
  EXPECT_EQ(high_standby.WarningCount(), 1);
}

// A sign with hex was accepted ("-0xfffffffffffffff1" validated as 15,
// "-0xffffffffffffff81" read as 127) and "-0x8000000000000000" overflowed.
TEST(ValidatorSections, IntegersNeverWrapAndHexHasNoSign) {
  EXPECT_TRUE(Validate(BaseYaml("  priority: 0xf\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -0xfffffffffffffff1\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -0xffffffffffffff81\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -0x8000000000000000\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: 0xffffffffffffffff\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: 0x-1\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -9223372036854775809\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: 99999999999999999999\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: --1\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  priority: -\n")).ok());
  ValidationOutcome signed_hex = Validate(BaseYaml("  priority: -0x1\n"));
  ASSERT_NE(FindDiagnostic(signed_hex, "sm.priority"), nullptr) << AllDiagnostics(signed_hex);
  EXPECT_NE(FindDiagnostic(signed_hex, "sm.priority")->what.find("is not an integer"),
            std::string::npos);
}

TEST(ValidatorSections, PortGuidMustBeHexWithPrefix) {
  EXPECT_TRUE(Validate(BaseYaml("  port_guid: 0x0002c90300a1b2c3\n")).ok());
  EXPECT_TRUE(Validate(BaseYaml("  port_guid: \"0x0002C90300A1B2C3\"\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  port_guid: 1234567\n")).ok());            // decimal
  EXPECT_FALSE(Validate(BaseYaml("  port_guid: 0002c90300a1b2c3\n")).ok());   // octal-looking
  EXPECT_FALSE(Validate(BaseYaml("  port_guid: 0x\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  port_guid: 0x12345678901234567\n")).ok());  // 17 digits
  ValidationOutcome zero = Validate(BaseYaml("  port_guid: 0x0\n"));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(FindDiagnostic(zero, "sm.port_guid")->what, "GUID 0 names no port");
}

TEST(ValidatorSections, PreemptIsABoolean) {
  EXPECT_FALSE(Validate(BaseYaml("  preempt: false\n")).config->sm.preempt);
  EXPECT_FALSE(Validate(BaseYaml("  preempt: maybe\n")).ok());
}

TEST(ValidatorSections, PathsMustBeAbsolute) {
  EXPECT_FALSE(Validate(BaseYaml() + "state_dir: var/lib/smsupd\n").ok());
  EXPECT_EQ(Validate(BaseYaml() + "state_dir: /srv/smsupd\n").config->state_dir, "/srv/smsupd");
  EXPECT_FALSE(Validate(BaseYaml("  opensm:\n    log_file: opensm.log\n")).ok());
  EXPECT_EQ(Validate(BaseYaml("  opensm:\n    binary: /opt/bin/opensm\n")).config->sm.opensm.binary,
            "/opt/bin/opensm");
}

TEST(ValidatorSections, PathsOpenSmWouldReadDifferentlyAreRefused) {
  // OpenSM reads "partition_config_file /var/lib/smsupd" and then
  // "sm_priority 0/partitions.conf" on a line of its own.
  ValidationOutcome newline = Validate(BaseYaml() + "state_dir: \"/var/lib/smsupd\\nsm_priority 0\"\n");
  ASSERT_FALSE(newline.ok());
  EXPECT_NE(AllDiagnostics(newline).find("control character (0x0a)"), std::string::npos)
      << AllDiagnostics(newline);
  // '#' starts a comment for OpenSM: it would read "partition_config_file /".
  ValidationOutcome hash = Validate(BaseYaml() + "state_dir: '/#'\n");
  ASSERT_FALSE(hash.ok());
  EXPECT_NE(AllDiagnostics(hash).find("'#'"), std::string::npos) << AllDiagnostics(hash);
  EXPECT_FALSE(Validate(BaseYaml("  opensm:\n    log_file: '/var/log/open sm.log'\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml("  opensm:\n    binary: '/usr/sbin/opensm\t'\n")).ok());
  EXPECT_FALSE(Validate(BaseYaml() + "state_dir: /" + std::string(4095, 'a') + "\n").ok());
  EXPECT_TRUE(Validate(BaseYaml() + "state_dir: /srv/sm-1/state_2.d\n").ok());
}

TEST(ValidatorSections, ControlSection) {
  ValidationOutcome ok = Validate(BaseYaml() + "control:\n  socket: /run/s.sock\n  group: smsupd\n");
  ASSERT_TRUE(ok.ok()) << AllDiagnostics(ok);
  EXPECT_EQ(ok.config->control.socket, "/run/s.sock");
  EXPECT_EQ(ok.config->control.group, "smsupd");
  EXPECT_FALSE(Validate(BaseYaml() + "control:\n  group: 'a b'\n").ok());
  EXPECT_FALSE(Validate(BaseYaml() + "control:\n  socket: relative.sock\n").ok());
}

TEST(ValidatorSections, LimitsPKeysPerPortRange) {
  EXPECT_EQ(Validate(BaseYaml() + "limits:\n  pkeys_per_port: 64\n").config->limits.pkeys_per_port, 64);
  EXPECT_FALSE(Validate(BaseYaml() + "limits:\n  pkeys_per_port: 0\n").ok());
  EXPECT_FALSE(Validate(BaseYaml() + "limits:\n  pkeys_per_port: lots\n").ok());
}

TEST(ValidatorSections, GuidClaimedByTwoHostsNamesTheFirstOwner) {
  std::string yaml = BaseYaml();
  yaml.replace(yaml.find("groups:"), 7, "  h3: 0x0002c90300000003\ngroups:");
  ValidationOutcome outcome = Validate(yaml);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "hosts.h3")->Format(),
            "test.yaml:7:7: error: hosts.h3: GUID 0x0002c90300000003 is already claimed by host "
            "'h2' (line 6); give each port GUID to one host only, once");
}

TEST(ValidatorSections, HostsNeedValidNamesAndGuids) {
  std::string bad_guid = BaseYaml();
  bad_guid.replace(bad_guid.find("0x0002c90300000001"), 18, "17");
  EXPECT_FALSE(Validate(bad_guid).ok());
  std::string no_guid = BaseYaml();
  no_guid.replace(no_guid.find("h1: 0x0002c90300000001"), 22, "h1: []");
  EXPECT_FALSE(Validate(no_guid).ok());
  std::string bad_name = BaseYaml();
  bad_name.replace(bad_name.find("h1: 0x"), 2, "'h 1'");
  EXPECT_FALSE(Validate(bad_name).ok());
}

TEST(ValidatorSections, GroupsRefuseUnknownNamesCyclesAndHostNames) {
  std::string unknown = BaseYaml();
  unknown.replace(unknown.find("g: [h1]"), 7, "g: [h11]");
  ValidationOutcome outcome = Validate(unknown);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(FindDiagnostic(outcome, "groups.g[0]")->Format(),
            "test.yaml:8:7: error: groups.g[0]: unknown host or group 'h11'; did you mean 'h1'?");

  std::string cycle = BaseYaml();
  cycle.replace(cycle.find("g: [h1]"), 7, "g: [h1, k]\n  k: [m]\n  m: [g]");
  ValidationOutcome cyclic = Validate(cycle);
  ASSERT_FALSE(cyclic.ok());
  EXPECT_NE(AllDiagnostics(cyclic).find("group cycle: g -> k -> m -> g"), std::string::npos)
      << AllDiagnostics(cyclic);

  std::string nested = BaseYaml();
  nested.replace(nested.find("g: [h1]"), 7, "g: [h1, k]\n  k: [h2]");
  EXPECT_TRUE(Validate(nested).ok());

  std::string clash = BaseYaml();
  clash.replace(clash.find("g: [h1]"), 7, "h2: [h1]");
  EXPECT_FALSE(Validate(clash).ok());
}

// sm.sm_key_file, sm.m_key_file and sa_key_file are read and checked alike:
// one open without following a link or blocking, then the opened file's
// type, owner, mode and size, then its content.
struct KeyFileCase {
  const char* key;  // the sm: key naming the file
  std::optional<std::uint64_t> SmSettings::*value;
};
void PrintTo(const KeyFileCase& key_file, std::ostream* out) { *out << key_file.key; }

class KeyFileTest : public ::testing::TestWithParam<KeyFileCase> {
 protected:
  std::string Key() const { return GetParam().key; }
  std::string Path() const { return "sm." + Key(); }
  ValidationOutcome Naming(const std::string& file) {
    return Validate(BaseYaml("  " + Key() + ": " + file + "\n"));
  }
  ValidationOutcome WithKeyFile(const std::string& content, int mode) {
    return Naming(dir_.Write("key", content, mode));
  }
  std::string What(const ValidationOutcome& outcome) const {
    const Diagnostic* diagnostic = FindDiagnostic(outcome, Path());
    return diagnostic ? diagnostic->what : "no diagnostic at " + Path() + ": " + AllDiagnostics(outcome);
  }
  TempDir dir_;
};

INSTANTIATE_TEST_SUITE_P(Keys, KeyFileTest,
                         ::testing::Values(KeyFileCase{"sm_key_file", &SmSettings::sm_key},
                                           KeyFileCase{"m_key_file", &SmSettings::m_key},
                                           KeyFileCase{"sa_key_file", &SmSettings::sa_key}),
                         [](const auto& info) { return std::string(info.param.key); });

TEST_P(KeyFileTest, ValidKeyIsRead) {
  ValidationOutcome outcome = WithKeyFile("0x1a2b3c4d5e6f7081\n", 0600);
  ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
  EXPECT_EQ(outcome.config->sm.*GetParam().value, 0x1a2b3c4d5e6f7081u);
}

TEST_P(KeyFileTest, GroupOrOtherReadableIsRefused) {
  ValidationOutcome outcome = WithKeyFile("0x1a2b3c4d5e6f7081\n", 0640);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(What(outcome).find("mode 0640"), std::string::npos) << What(outcome);
  EXPECT_FALSE(WithKeyFile("0x1\n", 0604).ok());
}

TEST_P(KeyFileTest, ContentMustBeOneHexKey) {
  EXPECT_FALSE(WithKeyFile("12345\n", 0600).ok());
  EXPECT_FALSE(WithKeyFile("0x1a2b3c4d5e6f708192\n", 0600).ok());  // 72 bits
  EXPECT_FALSE(WithKeyFile("", 0600).ok());
}

// A key file others could replace, or one that is only a name for another
// file, is refused: whoever owns it chooses the fabric's key.
TEST_P(KeyFileTest, AFileNotOwnedByRootIsRefused) {
  std::string file = dir_.Write("key", "0x1a2b3c4d5e6f7081\n", 0600);
  ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0);
  ValidationOutcome outcome = Naming(file);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(What(outcome).find("owned by uid 65534, not root"), std::string::npos) << What(outcome);
}

TEST_P(KeyFileTest, ASymbolicLinkIsRefused) {
  std::string file = dir_.Write("key", "0x1a2b3c4d5e6f7081\n", 0600);
  std::string link = dir_.path() + "/link";
  ASSERT_EQ(::symlink(file.c_str(), link.c_str()), 0);
  ValidationOutcome outcome = Naming(link);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(What(outcome).find("is a symbolic link"), std::string::npos) << What(outcome);
}

// Refused at once: reading a FIFO would block the validator until a writer came.
TEST_P(KeyFileTest, OnlyASmallRegularFileIsRead) {
  std::string fifo = dir_.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ValidationOutcome outcome = Naming(fifo);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(What(outcome).find("is not a regular file"), std::string::npos) << What(outcome);
  ValidationOutcome big = WithKeyFile("0x1a2b3c4d5e6f7081\n" + std::string(kMaxKeyFileBytes, ' '), 0600);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(What(big).find("more than 4096"), std::string::npos) << What(big);
  EXPECT_TRUE(WithKeyFile("0x1a2b3c4d5e6f7081" + std::string(kMaxKeyFileBytes - 18, ' '), 0600).ok());
}

TEST_P(KeyFileTest, MissingFileIsRefused) {
  ValidationOutcome outcome = Naming(dir_.path() + "/absent");
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(What(outcome).find("No such file"), std::string::npos) << What(outcome);
}

// What is wrong with a key file is said; what it holds never is.
TEST_P(KeyFileTest, NoDiagnosticShowsTheContent) {
  ValidationOutcome outcome = WithKeyFile("0x1a2b3c4d5e6f7081zz\n", 0600);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(AllDiagnostics(outcome).find("1a2b3c4d5e6f7081"), std::string::npos) << AllDiagnostics(outcome);
}

// A text from a caller (smctl plan) never makes the validator open a path
// it names: a FIFO or a file that does not exist is only a name.
TEST_P(KeyFileTest, NameOnlyOpensNothing) {
  std::string fifo = dir_.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& file : {fifo, dir_.path() + "/absent", std::string("/etc/shadow")}) {
    ValidationOutcome outcome =
        ValidateText(BaseYaml("  " + Key() + ": " + file + "\n"), "plan.yaml", KeyFile::kNameOnly);
    ASSERT_TRUE(outcome.ok()) << AllDiagnostics(outcome);
    EXPECT_FALSE((outcome.config->sm.*GetParam().value).has_value());
  }
}

// A key in smsupd.yaml would be as readable as the file and shown by every
// diff of it: refused, without echoing it, naming the key file to use.
TEST(ValidatorSections, KeysInOpenSmOptionsAreRefusedWithoutEchoingThem) {
  for (const std::string name : {"m_key", "sa_key", "sm_key"}) {
    ValidationOutcome outcome =
        Validate(BaseYaml("  opensm:\n    options:\n      " + name + ": 0x00000000c0ffee42\n"));
    ASSERT_FALSE(outcome.ok()) << name;
    const Diagnostic* diagnostic = FindDiagnostic(outcome, "sm.opensm.options." + name);
    ASSERT_NE(diagnostic, nullptr) << AllDiagnostics(outcome);
    EXPECT_EQ(diagnostic->what, "'" + name + "' is a key, and smsupd.yaml holds no key");
    EXPECT_EQ(diagnostic->valid,
              "put it in a file owned by root, mode 0600, and name that file in sm." + name + "_file");
    EXPECT_EQ(AllDiagnostics(outcome).find("c0ffee42"), std::string::npos) << AllDiagnostics(outcome);
  }
}

TEST(ValidatorSections, UnreadableFileIsNotInvalid) {
  ValidationOutcome outcome = LoadAndValidate("/nonexistent/smsupd.yaml");
  EXPECT_TRUE(outcome.unreadable);
  EXPECT_FALSE(outcome.ok());
}

}  // namespace
}  // namespace smsupd::config
