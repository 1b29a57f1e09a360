// contrib/ansible's role smsupd, run by Debian's ansible-core (connection
// local) against the real smsupd and OpenSM on a simulated fabric, with
// SMSUPD_SOCKET pointing at the node's socket: check mode shows the plan and
// changes nothing; a P_Key change is applied and verified on the fabric; a
// second run changes nothing; an invalid change and a change the daemon
// rolls back fail the play with smctl's message and leave the fabric and
// the config file as they were; keys given to the role land in root-only key
// files and are never shown, and a key put into smsupd.yaml is refused
// without being shown. Then smctl's bash completion against that daemon:
// its generations and SM GUIDs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "tests/testbed/child_process.h"
#include "tests/testbed/fabric_pkey_tables.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kDeadline(60000);
constexpr milliseconds kPlaybookDeadline(180000);
constexpr std::uint16_t kTenantPKey = 0x0042;
constexpr std::uint16_t kFullMember = 0x8000;

struct PlaybookRun {
  int exit_code = -1;
  std::string output;
  bool Succeeded() const { return exit_code == 0; }
  // "changed=N" of the PLAY RECAP line (-1 when there is none).
  int Changed() const {
    size_t recap = output.find("PLAY RECAP");
    size_t at = output.find("changed=", recap == std::string::npos ? 0 : recap);
    return recap == std::string::npos || at == std::string::npos ? -1
                                                                 : std::stoi(output.substr(at + 8));
  }
  bool Says(const std::string& text) const { return output.find(text) != std::string::npos; }
};

class AnsibleRoleTest : public FabricTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
    const std::string& name = fabric().topology().management_nodes()[0];
    Result<std::unique_ptr<ManagementNode>> created =
        ManagementNode::Create(fabric(), SmNodesConfig(fabric().topology(), name, "master"));
    ASSERT_TRUE(created.ok()) << created.error().message;
    node_ = std::move(*created);
    Status started = node_->Start();
    ASSERT_TRUE(started.ok()) << started.message();
    Status master = node_->WaitForSmState("MASTER", kDeadline);
    ASSERT_TRUE(master.ok()) << master.message() << "\n" << node_->LogTail();
  }

  void TearDown() override {
    node_.reset();
    FabricTest::TearDown();
  }

  ManagementNode& node() { return *node_; }
  std::string far_host() { return fabric().topology().FarCa().name; }
  Guid far_port() { return fabric().topology().FarCa().PortGuid(1); }

  // The inventory: this node's smsupd.yaml as the test bed writes it, every
  // HCA as a host, and `partitions` (YAML, indented for the host's vars).
  void WriteInventory(const std::string& partitions, const std::string& extra = "",
                      const std::string& opensm_options = "") {
    const SmsupdConfig& config = node().config();
    std::ostringstream yaml;
    yaml << "all:\n  children:\n    smsupd_nodes:\n      hosts:\n        " << node().node() << ":\n"
         << "          ansible_connection: local\n"
         << "          ansible_become: false\n"
         << "          ansible_python_interpreter: /usr/bin/python3\n"
         // The machine's own packages and units stay as they are: the
         // package, the opensm.service mask and the unit's enablement are
         // tested in a throw-away Debian tree (tests/packaging).
         << "          smsupd_install_package: false\n"
         << "          smsupd_mask_opensm: false\n"
         << "          smsupd_enable: false\n"
         << "          smsupd_start: false\n"
         << "          smsupd_config_path: " << node().config_path() << "\n"
         << "          smsupd_node: " << config.node << "\n"
         << "          smsupd_role: master\n"
         << "          smsupd_port_guid: \"" << FormatGuid(config.port_guid) << "\"\n"
         << "          smsupd_opensm: { log_file: " << config.OpenSmLog()
         << (opensm_options.empty() ? "" : ", options: { " + opensm_options + " }") << " }\n"
         << "          smsupd_state_dir: " << config.StateDir() << "\n"
         << "          smsupd_control: { socket: " << config.Socket() << " }\n"
         << "          smsupd_verify: { timeout_s: 15 }\n"
         << "          smsupd_hosts:\n";
    for (const TopoNode* ca : fabric().topology().Cas())
      yaml << "            " << ca->name << ": \"" << FormatGuid(ca->PortGuid(1)) << "\"\n";
    yaml << "          smsupd_partitions:\n" << partitions << extra;
    ASSERT_TRUE(WriteFileAtomically(Path("inventory.yml"), yaml.str(), 0644).ok());
  }

  static std::string DefaultPartition() {
    return "            - { name: Default, pkey: 0x7fff, members: [ { ports: ALL, membership: full "
           "} ] }\n";
  }
  std::string TenantPartition() {
    return "            - name: tenant\n              pkey: \"0x0042\"\n              members:\n"
           "                - { host: " +
           far_host() +
           ", membership: full }\n"
           "                - { host: " +
           node().node() + ", membership: full }\n";
  }

  std::string Path(const std::string& name) { return node().dir() + "/" + name; }

  // The role's smctl is found in PATH: this node's directory first (where a
  // test may put a wrapper), then the build's smctl.
  std::string SmctlPath() { return node().dir() + "/bin:" + SMCTL_DIR + ":" + std::getenv("PATH"); }

  std::unique_ptr<ChildProcess> StartPlaybook(const std::vector<std::string>& options,
                                              const std::string& log) {
    const std::string source = SMSUPD_SOURCE_DIR;
    ChildSpec spec;
    spec.argv = {"ansible-playbook", "-i", Path("inventory.yml"),
                 source + "/contrib/ansible/site.yml"};
    spec.argv.insert(spec.argv.end(), options.begin(), options.end());
    const std::string home = Path("ansible-home");
    // An empty ansible.cfg: no configuration from the machine or the cwd.
    EXPECT_TRUE(WriteFileAtomically(Path("ansible.cfg"), "[defaults]\n", 0644).ok());
    spec.env = {{"ANSIBLE_ROLES_PATH", source + "/contrib/ansible/roles"},
                {"ANSIBLE_CONFIG", Path("ansible.cfg")},
                {"ANSIBLE_HOME", home},
                {"ANSIBLE_LOCAL_TEMP", home + "/tmp"},
                {"ANSIBLE_REMOTE_TMP", home + "/tmp"},
                {"ANSIBLE_NOCOLOR", "1"},
                {"ANSIBLE_RETRY_FILES_ENABLED", "0"},
                {"ANSIBLE_DEPRECATION_WARNINGS", "0"},
                {"HOME", home},
                {"PYTHONDONTWRITEBYTECODE", "1"},
                {"SMSUPD_SOCKET", node().socket_path()},
                {"PATH", SmctlPath()}};
    spec.unset_env = {"LD_PRELOAD"};
    spec.output_path = Path(log);
    Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
    EXPECT_TRUE(child.ok()) << "cannot run ansible-playbook: " << child.error().message;
    return child.ok() ? std::move(*child) : nullptr;
  }

  PlaybookRun Finish(std::unique_ptr<ChildProcess> child, const std::string& log) {
    PlaybookRun run;
    if (!child) return run;
    auto started = std::chrono::steady_clock::now();
    Result<ExitStatus> exited = child->Wait(kPlaybookDeadline);
    if (exited.ok() && !exited->signaled) run.exit_code = exited->code;
    Result<std::string> output = ReadWholeFile(Path(log));
    run.output = output.ok() ? *output : "";
    std::cout << "[ playbook ] " << log << ": exit " << run.exit_code << " after "
              << std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() -
                                                          started)
                     .count()
              << " ms, changed=" << run.Changed() << "\n";
    return run;
  }

  PlaybookRun RunPlaybook(const std::vector<std::string>& options, const std::string& log) {
    return Finish(StartPlaybook(options, log), log);
  }

  FabricPKeyTables Tables() {
    Result<FabricPKeyTables> tables = ReadFabricPKeyTables(probe());
    EXPECT_TRUE(tables.ok()) << tables.error().message;
    return tables.ok() ? *tables : FabricPKeyTables{};
  }
  std::string ConfigFile() {
    Result<std::string> text = ReadWholeFile(node().config_path());
    return text.ok() ? *text : "";
  }
  std::uint64_t Generation() {
    Result<nlohmann::json> status = node().StatusJson();
    EXPECT_TRUE(status.ok()) << status.error().message;
    return status.ok() ? (*status)["config"]["generation"].get<std::uint64_t>() : 0;
  }
  bool FarPortHolds(std::uint16_t entry) {
    Result<PKeyEntries> entries =
        ReadPortPKeys(probe(), "dr:0", 1);  // the probe runs on the far HCA
    EXPECT_TRUE(entries.ok()) << entries.error().message;
    return entries.ok() && entries->count(entry) > 0;
  }

  std::unique_ptr<ManagementNode> node_;
};

constexpr std::uint64_t kSmKey = 0x5ec2e7000000b001;
constexpr std::uint64_t kMKey = 0x5ec2e7000000b002;
constexpr std::uint64_t kSaKey = 0x5ec2e7000000b003;
constexpr std::uint64_t kNewMKey = 0x5ec2e7000000b004;
constexpr std::uint64_t kInlineKey = 0x5ec2e7000000b005;

std::string Hex(std::uint64_t key) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, key);
  return text;
}

// Where `text` shows any of `keys` in any form (hex with or without 0x and
// leading zeros, either case, decimal); "" when nowhere.
std::string KeyShown(const std::string& text, const std::vector<std::uint64_t>& keys) {
  for (std::uint64_t key : keys) {
    std::string hex = Hex(key).substr(2);
    std::string upper = hex;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    for (const std::string& form : {hex, upper, hex.substr(hex.find_first_not_of('0')), std::to_string(key)}) {
      std::size_t at = text.find(form);
      if (at != std::string::npos) return form + " at ..." + text.substr(at > 120 ? at - 120 : 0, 240) + "...";
    }
  }
  return "";
}

// Mode and owner of `path`, e.g. "600 0:0"; "" when it does not exist.
std::string ModeAndOwner(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";
  char text[48];
  std::snprintf(text, sizeof text, "%o %u:%u", info.st_mode & 07777, info.st_uid, info.st_gid);
  return text;
}

TEST_F(AnsibleRoleTest, PlansAppliesVerifiesAndRefusesThroughTheRole) {
  ASSERT_EQ(fabric().topology().FarCa().PortGuid(1), far_port());
  WriteInventory(DefaultPartition() + TenantPartition());
  const std::string file_before = ConfigFile();
  const std::uint64_t generation = Generation();
  ASSERT_FALSE(FarPortHolds(kFullMember | kTenantPKey));

  // Check mode: the plan is shown, nothing changes.
  PlaybookRun check = RunPlaybook({"--check", "--diff"}, "check.log");
  EXPECT_TRUE(check.Succeeded()) << check.output;
  EXPECT_EQ(check.Changed(), 1) << check.output;
  EXPECT_TRUE(check.Says("smctl plan:")) << check.output;
  EXPECT_TRUE(check.Says("tenant")) << "the plan names the new partition:\n" << check.output;
  EXPECT_EQ(ConfigFile(), file_before) << "check mode wrote the config";
  EXPECT_EQ(Generation(), generation) << "check mode applied something";
  EXPECT_FALSE(FarPortHolds(kFullMember | kTenantPKey));

  // Applied, verified on the fabric.
  PlaybookRun apply = RunPlaybook({"--diff"}, "apply.log");
  ASSERT_TRUE(apply.Succeeded()) << apply.output << "\n" << node().LogTail();
  EXPECT_EQ(apply.Changed(), 1) << apply.output;
  EXPECT_TRUE(apply.Says("verified")) << "smctl reload --wait reports the verification:\n"
                                      << apply.output;
  EXPECT_EQ(Generation(), generation + 1);
  EXPECT_TRUE(FarPortHolds(kFullMember | kTenantPKey))
      << "the far port does not hold the tenant P_Key";
  const std::string file_applied = ConfigFile();
  EXPECT_NE(file_applied.find("Written by the Ansible role smsupd"), std::string::npos)
      << file_applied;

  // Again: nothing to do.
  PlaybookRun again = RunPlaybook({}, "again.log");
  EXPECT_TRUE(again.Succeeded()) << again.output;
  EXPECT_EQ(again.Changed(), 0) << again.output;
  EXPECT_EQ(Generation(), generation + 1);
  const FabricPKeyTables applied = Tables();

  // An invalid change: smctl's diagnostic fails the play, nothing moves.
  WriteInventory(
      DefaultPartition() + TenantPartition() +
      "            - { name: broken, pkey: \"0x0043\", members: [ { host: no-such-host } ] }\n");
  PlaybookRun invalid = RunPlaybook({}, "invalid.log");
  EXPECT_FALSE(invalid.Succeeded()) << invalid.output;
  EXPECT_TRUE(invalid.Says("smctl validate:") && invalid.Says("no-such-host")) << invalid.output;
  EXPECT_EQ(ConfigFile(), file_applied);
  EXPECT_EQ(Generation(), generation + 1);
  EXPECT_EQ(DescribePKeyDifferences(applied, Tables()), "");
}

// A change OpenSM rejects after smsupd validated it (the file corrupted
// between install and OpenSM's read, as in tests/daemon/pkey_apply): the
// daemon rolls it back, and the role fails the play with smctl's message
// and puts the previous file back. OpenSM is stopped (SIGSTOP) by a smctl
// wrapper just before `smctl reload`, so the SIGHUP waits until the file
// is corrupted.
TEST_F(AnsibleRoleTest, ARolledBackApplyFailsThePlayAndRestoresTheFile) {
  WriteInventory(DefaultPartition() + TenantPartition());
  ASSERT_TRUE(RunPlaybook({}, "apply.log").Succeeded());
  const FabricPKeyTables before = Tables();
  const std::string file_before = ConfigFile();
  const std::string conf_before = node().PartitionsConf();
  std::optional<pid_t> opensm = node().OpenSmPid();
  ASSERT_TRUE(opensm.has_value());

  WriteInventory(DefaultPartition() + TenantPartition() +
                 "            - { name: tenant-b, pkey: \"0x0044\", members: [ { host: " +
                 far_host() + " } ] }\n");
  ASSERT_EQ(::mkdir(Path("bin").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomically(Path("bin/smctl"),
                                  "#!/bin/sh\ncase \" $* \" in *\" reload \"*) kill -STOP " +
                                      std::to_string(*opensm) +
                                      " ;; esac\nexec " SMCTL_DIR "/smctl \"$@\"\n",
                                  0755)
                  .ok());
  std::unique_ptr<ChildProcess> playbook = StartPlaybook({}, "rolled-back.log");
  Status installed = WaitFor(
      "smsupd installs the new partitions.conf",
      [&] { return node().PartitionsConf() != conf_before; }, milliseconds(120000),
      milliseconds(2));
  if (installed.ok()) {
    std::ofstream corrupt(node().StatePath("partitions.conf"), std::ios::trunc);
    corrupt << "# corrupted after validation\n";
  }
  ::kill(*opensm, SIGCONT);
  ASSERT_TRUE(installed.ok()) << installed.message();
  PlaybookRun rolled_back = Finish(std::move(playbook), "rolled-back.log");

  EXPECT_FALSE(rolled_back.Succeeded()) << rolled_back.output;
  EXPECT_TRUE(rolled_back.Says("smctl reload:") && rolled_back.Says("rolled back"))
      << rolled_back.output;
  EXPECT_EQ(ConfigFile(), file_before) << "the role did not put the previous file back";
  EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
  EXPECT_EQ(node().OpenSmPid(), opensm) << "OpenSM was restarted";
}

// Keys given to the role (as from ansible-vault; the M_Key unquoted, so a
// YAML number) are written to root-only key files that smsupd.yaml names,
// applied, and shown nowhere: not in check mode's or an apply's --diff, not
// in the module's verbose result, not in smsupd.yaml. A key put into
// smsupd.yaml through sm.opensm.options fails the play, unshown.
TEST_F(AnsibleRoleTest, KeysAreWrittenRootOnlyAndNeverShown) {
  const std::string prefix = node().dir() + "/keys.";
  const std::vector<std::uint64_t> keys = {kSmKey, kMKey, kSaKey, kNewMKey, kInlineKey};
  auto key_vars = [&](std::uint64_t m_key) {
    return "          smsupd_key_file_prefix: " + prefix + "\n          smsupd_sm_key: \"" + Hex(kSmKey) +
           "\"\n          smsupd_m_key: " + Hex(m_key) + "\n          smsupd_sa_key: \"" + Hex(kSaKey) + "\"\n";
  };
  WriteInventory(DefaultPartition() + TenantPartition(), key_vars(kMKey));

  PlaybookRun check = RunPlaybook({"--check", "--diff", "-v"}, "keys-check.log");
  EXPECT_TRUE(check.Succeeded()) << check.output;
  EXPECT_EQ(KeyShown(check.output, keys), "");
  EXPECT_TRUE(check.Says("key file " + prefix + "m_key: new key (root, 0600; not shown)")) << check.output;
  EXPECT_EQ(ModeAndOwner(prefix + "m_key"), "") << "check mode wrote a key file";

  PlaybookRun apply = RunPlaybook({"--diff", "-vvv"}, "keys-apply.log");
  ASSERT_TRUE(apply.Succeeded()) << apply.output << "\n" << node().LogTail();
  EXPECT_EQ(KeyShown(apply.output, keys), "");
  for (const char* name : {"sm_key", "m_key", "sa_key"}) EXPECT_EQ(ModeAndOwner(prefix + name), "600 0:0") << name;
  Result<std::string> m_key_file = ReadWholeFile(prefix + "m_key");
  EXPECT_TRUE(m_key_file.ok() && *m_key_file == Hex(kMKey) + "\n");
  const std::string config = ConfigFile();
  EXPECT_EQ(KeyShown(config, keys), "") << "smsupd.yaml holds a key";
  EXPECT_NE(config.find("m_key_file: \"" + prefix + "m_key\""), std::string::npos) << config;
  EXPECT_EQ(ModeAndOwner(node().config_path()), "644 0:0");
  Result<std::string> conf = ReadWholeFile(node().StatePath("opensm.conf"));
  ASSERT_TRUE(conf.ok());
  for (std::uint64_t key : {kSmKey, kMKey, kSaKey})
    EXPECT_NE(conf->find(Hex(key)), std::string::npos) << "OpenSM's file does not hold " << Hex(key);
  EXPECT_EQ(ModeAndOwner(node().StatePath("opensm.conf")).substr(0, 4), "600 ");

  PlaybookRun again = RunPlaybook({}, "keys-again.log");
  EXPECT_TRUE(again.Succeeded()) << again.output;
  EXPECT_EQ(again.Changed(), 0) << again.output;

  // A new M_Key alone: the plan of the text cannot see it, the role applies
  // it (two changes: the key file, written by its no_log task, and the apply).
  WriteInventory(DefaultPartition() + TenantPartition(), key_vars(kNewMKey));
  PlaybookRun rotate = RunPlaybook({"--diff", "-v"}, "keys-rotate.log");
  ASSERT_TRUE(rotate.Succeeded()) << rotate.output;
  EXPECT_EQ(rotate.Changed(), 2) << rotate.output;
  EXPECT_TRUE(rotate.Says("key file " + prefix + "m_key: new key (root, 0600; not shown)")) << rotate.output;
  EXPECT_EQ(ModeAndOwner(prefix + "m_key"), "600 0:0");
  EXPECT_EQ(ModeAndOwner(prefix + "m_key.smsupd-previous"), "") << "the previous key was left behind";
  EXPECT_EQ(KeyShown(rotate.output, keys), "");
  conf = ReadWholeFile(node().StatePath("opensm.conf"));
  ASSERT_TRUE(conf.ok());
  EXPECT_NE(conf->find(Hex(kNewMKey)), std::string::npos) << "the new M_Key was not applied";

  // A key in smsupd.yaml, with another M_Key: refused, unshown, nothing
  // changes; the M_Key file written before the refusal is put back.
  const std::string file_before = ConfigFile();
  WriteInventory(DefaultPartition() + TenantPartition(), key_vars(kMKey),
                 "sa_key: \"" + Hex(kInlineKey) + "\"");
  PlaybookRun inline_key = RunPlaybook({"--diff", "-v"}, "keys-inline.log");
  EXPECT_FALSE(inline_key.Succeeded()) << inline_key.output;
  EXPECT_TRUE(inline_key.Says("'sa_key' is a key, and smsupd.yaml holds no key")) << inline_key.output;
  EXPECT_EQ(KeyShown(inline_key.output, keys), "");
  EXPECT_EQ(ConfigFile(), file_before);
  m_key_file = ReadWholeFile(prefix + "m_key");
  EXPECT_TRUE(m_key_file.ok() && *m_key_file == Hex(kNewMKey) + "\n") << "the previous M_Key was not put back";
  EXPECT_EQ(ModeAndOwner(prefix + "m_key"), "600 0:0");
  EXPECT_EQ(ModeAndOwner(prefix + "m_key.smsupd-previous"), "");

  // A malformed key: refused by name, the value not shown, nothing written.
  const std::string malformed = "0x5ec2e7-not-a-key";
  WriteInventory(DefaultPartition() + TenantPartition(),
                 "          smsupd_key_file_prefix: " + prefix + "\n          smsupd_sm_key: \"" + malformed + "\"\n");
  PlaybookRun bad_key = RunPlaybook({"--diff", "-vvv"}, "keys-malformed.log");
  EXPECT_FALSE(bad_key.Succeeded()) << bad_key.output;
  EXPECT_TRUE(bad_key.Says("sm_key is not a 64-bit key")) << bad_key.output;
  EXPECT_FALSE(bad_key.Says("not-a-key")) << "the malformed key is shown:\n" << bad_key.output;
  EXPECT_EQ(KeyShown(bad_key.output, keys), "");
  Result<std::string> sm_key_file = ReadWholeFile(prefix + "sm_key");
  EXPECT_TRUE(sm_key_file.ok() && *sm_key_file == Hex(kSmKey) + "\n");
  EXPECT_EQ(ConfigFile(), file_before);
}

// smctl's bash completion asks the daemon the command line names.
TEST_F(AnsibleRoleTest, BashCompletionOffersTheDaemonsGenerationsAndSms) {
  WriteInventory(DefaultPartition() + TenantPartition());
  ASSERT_TRUE(RunPlaybook({}, "apply.log").Succeeded());
  const std::string script =
      "source " SMSUPD_SOURCE_DIR
      "/contrib/bash-completion/smctl\n"
      "complete_line() { read -r -a COMP_WORDS <<<\"$1\"; COMP_WORDS+=(\"\"); "
      "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _smctl; echo \"${COMPREPLY[*]}\"; }\n"
      "complete_line \"smctl --socket " +
      node().socket_path() +
      " rollback\"\n"
      "complete_line \"smctl --socket " +
      node().socket_path() + " failover --to\"\n";
  ASSERT_TRUE(WriteFileAtomically(Path("complete.sh"), script, 0644).ok());
  ChildSpec spec;
  spec.argv = {"bash", Path("complete.sh")};
  spec.env = {{"PATH", SmctlPath()}};
  spec.unset_env = {"LD_PRELOAD", "SMSUPD_SOCKET"};
  spec.output_path = Path("complete.log");
  Result<std::unique_ptr<ChildProcess>> bash = ChildProcess::Start(spec);
  ASSERT_TRUE(bash.ok()) << bash.error().message;
  Result<ExitStatus> exited = (*bash)->Wait(milliseconds(30000));
  ASSERT_TRUE(exited.ok() && exited->code == 0);
  Result<std::string> output = ReadWholeFile(Path("complete.log"));
  ASSERT_TRUE(output.ok());
  std::istringstream lines(*output);
  std::string generations, guids;
  std::getline(lines, generations);
  std::getline(lines, guids);
  EXPECT_EQ(generations, "1 2") << *output;
  EXPECT_NE(guids.find(FormatGuid(node().port_guid())), std::string::npos) << *output;
}

// meta/argument_specs.yml: a value of the wrong type or outside its
// choices fails the play at its first task, naming the variable and what
// is valid, before anything is installed or written. No fabric: the role
// never gets as far as smctl (and every step that could touch this machine
// is turned off, should the check ever let a value through).
TEST(AnsibleRoleArguments, ABadVariableFailsThePlayBeforeAnyTask) {
  char dir_template[] = "/tmp/smsupd-ansible-args.XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string inventory =
      "all:\n  hosts:\n    sm-a:\n"
      "      ansible_connection: local\n"
      "      ansible_become: false\n"
      "      ansible_python_interpreter: /usr/bin/python3\n"
      "      smsupd_install_package: false\n"
      "      smsupd_mask_opensm: false\n"
      "      smsupd_enable: false\n"
      "      smsupd_smctl: /bin/false\n"
      "      smsupd_config_path: " + dir + "/smsupd.yaml\n"
      "      smsupd_role: primary\n"
      "      smsupd_start: perhaps\n"
      "      smsupd_sm_key: \"0x5ec2e7000000b001\"\n";
  const std::string playbook = "- name: The role with bad variables\n  hosts: all\n  gather_facts: false\n"
                               "  roles:\n    - smsupd\n";
  ASSERT_TRUE(WriteFileAtomically(dir + "/inventory.yml", inventory, 0644).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/play.yml", playbook, 0644).ok());
  ASSERT_TRUE(WriteFileAtomically(dir + "/ansible.cfg", "[defaults]\n", 0644).ok());
  ChildSpec spec;
  spec.argv = {"ansible-playbook", "-v", "-i", dir + "/inventory.yml", dir + "/play.yml"};
  spec.env = {{"ANSIBLE_ROLES_PATH", SMSUPD_SOURCE_DIR "/contrib/ansible/roles"},
              {"ANSIBLE_CONFIG", dir + "/ansible.cfg"},
              {"ANSIBLE_HOME", dir + "/home"},
              {"ANSIBLE_LOCAL_TEMP", dir + "/home/tmp"},
              {"ANSIBLE_NOCOLOR", "1"},
              {"HOME", dir + "/home"},
              {"PYTHONDONTWRITEBYTECODE", "1"}};
  spec.unset_env = {"LD_PRELOAD"};
  spec.output_path = dir + "/play.log";
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok()) << child.error().message;
  Result<ExitStatus> exited = (*child)->Wait(kPlaybookDeadline);
  ASSERT_TRUE(exited.ok());
  Result<std::string> output = ReadWholeFile(dir + "/play.log");
  ASSERT_TRUE(output.ok());
  const std::string& text = *output;
  EXPECT_NE(exited->code, 0) << text;
  EXPECT_NE(text.find("Validating arguments against arg spec 'main'"), std::string::npos) << text;
  EXPECT_NE(text.find("smsupd_role must be one of: master, standby, got: primary"), std::string::npos) << text;
  EXPECT_NE(text.find("smsupd_start"), std::string::npos) << text;
  EXPECT_EQ(text.find("TASK [smsupd : Install the smsupd package]"), std::string::npos) << "a task ran:\n" << text;
  EXPECT_EQ(text.find("5ec2e7000000b001"), std::string::npos) << "the key is shown:\n" << text;
  EXPECT_EQ(ModeAndOwner(dir + "/smsupd.yaml"), "") << "the config was written";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smsupd::testbed
