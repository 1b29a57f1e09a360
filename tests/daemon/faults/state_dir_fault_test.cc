// Corrupt and foreign files in state_dir: a damaged generation, garbage in
// a meta.json, in the current pointer and in the pid file, a pid file that
// names a process that is not smsupd's OpenSM. Each gets a clear error or a
// safe recovery, and no process but smsupd's own OpenSM ever gets a signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <memory>

#include "common/atomic_file.h"
#include "daemon/opensm/opensm_pid_file.h"
#include "daemon/process/process_table.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/testbed/child_process.h"
#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// A process that is not OpenSM: it writes the name of every signal it can
// catch to a file, and sleeps. SIGKILL and SIGSTOP show as it being gone or
// stopped.
class Decoy {
 public:
  // `extra_args` end up on its command line.
  static std::unique_ptr<Decoy> Start(const std::string& dir, const std::vector<std::string>& extra_args = {}) {
    auto decoy = std::unique_ptr<Decoy>(new Decoy(dir + "/decoy-signals.log"));
    std::string script;
    for (const char* name : {"HUP", "INT", "QUIT", "USR1", "USR2", "TERM", "CONT", "ALRM"})
      script += std::string("trap 'echo ") + name + " >> " + decoy->log_ + "' " + name + "; ";
    script += "while :; do sleep 0.1; done";
    ChildSpec spec;
    spec.argv = {"bash", "-c", script, "decoy"};
    spec.argv.insert(spec.argv.end(), extra_args.begin(), extra_args.end());
    Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
    if (!child) return nullptr;
    decoy->process_ = std::move(*child);
    // Until it has exec'd bash, /proc shows the test program.
    const std::string cmdline = "/proc/" + std::to_string(decoy->pid()) + "/cmdline";
    Status execed = WaitFor("the decoy to run bash", [&] {
      Result<std::string> text = ReadWholeFile(cmdline);
      return text.ok() && text->find("decoy") != std::string::npos;
    }, milliseconds(10000));
    return execed.ok() ? std::move(decoy) : nullptr;
  }

  pid_t pid() const { return process_->pid(); }
  // "" while it got no signal and runs; else what happened to it.
  std::string Disturbed() {
    Result<std::string> caught = ReadWholeFile(log_);
    if (caught.ok() && !caught->empty()) return "it caught " + *caught;
    char state = ProcessStateOf(pid());
    if (state == 0 || state == 'Z') return "it is gone";
    if (state == 'T') return "it was stopped";
    return "";
  }

 private:
  explicit Decoy(std::string log) : log_(std::move(log)) {}
  std::string log_;
  std::unique_ptr<ChildProcess> process_;
};

class StateDirFaultTest : public FaultTest {
 protected:
  void SetUp() override { ASSERT_NO_FATAL_FAILURE(StartSmallFabric()); }

  ManagementNode* Node(const std::string& name, const std::string& role) {
    return AddNode(TenantConfig(name, role));
  }

  // A pid record for `pid` as /proc shows it, for our node's OpenSM spec.
  static OpenSmPidRecord RecordFor(pid_t pid, const ManagementNode& node) {
    OpenSmPidRecord record;
    record.pid = pid;
    Result<ProcessFacts> facts = ProcFsProcessTable().Inspect(pid);
    if (facts) {
      record.start_ticks = facts->start_ticks;
      record.exe = facts->exe;
    }
    record.binary = "/usr/sbin/opensm";
    record.port_guid = node.port_guid();
    record.conf_path = node.StatePath("opensm.conf");
    return record;
  }
  static void PlantPidFile(const ManagementNode& node, const std::string& text) {
    ::mkdir(node.state_dir().c_str(), 0700);
    ASSERT_TRUE(WriteFileAtomically(node.StatePath("opensm.pid"), text, 0644).ok());
  }

  // A reload (SIGHUP to OpenSM) and a stop (SIGTERM to OpenSM) of `node`:
  // the moments smsupd signals what it takes for its OpenSM.
  void ReloadAndStop(ManagementNode& node) {
    node.config().opensm_options["sweep_interval"] = "11";
    ASSERT_TRUE(node.WriteConfig().ok());
    SmctlResult reload = node.Smctl({"reload"});
    EXPECT_EQ(reload.exit_code, 0) << reload.Describe();
    ASSERT_TRUE(node.Terminate().ok());
    Result<ExitStatus> exited = node.Wait(milliseconds(30000));
    ASSERT_TRUE(exited.ok()) << exited.error().message;
    EXPECT_FALSE(exited->signaled) << exited->Describe();
    EXPECT_EQ(exited->code, 0) << exited->Describe();
  }

  // The smsupd log says the pid file's process was not adopted, and why.
  static void ExpectNotAdopted(const ManagementNode& node, pid_t pid) {
    Result<std::string> log = ReadWholeFile(node.smsupd_log());
    ASSERT_TRUE(log.ok());
    EXPECT_NE(log->find("OPENSM_NOT_ADOPTED previous OpenSM pid " + std::to_string(pid) + " not adopted"),
              std::string::npos)
        << node.LogTail();
  }
};

// After a reboot the pid file names whatever process now has that pid.
TEST_F(StateDirFaultTest, PidFileNamingAnUnrelatedProcessIsNeverSignalled) {
  ManagementNode* node = Node(fabric().topology().management_nodes()[0], "master");
  ASSERT_NE(node, nullptr);
  std::unique_ptr<Decoy> decoy = Decoy::Start(fabric().dir());
  ASSERT_NE(decoy, nullptr);
  OpenSmPidRecord record = RecordFor(decoy->pid(), *node);
  record.start_ticks += 1000;  // the pid's earlier owner started at another time
  record.exe = "/usr/sbin/opensm";
  ASSERT_NO_FATAL_FAILURE(PlantPidFile(*node, FormatPidRecord(record)));

  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "MASTER"));
  ExpectNotAdopted(*node, decoy->pid());
  EXPECT_NE(node->OpenSmPid(), decoy->pid());
  EXPECT_EQ(EventsOfKind(*node, "opensm-started").size(), 1u);
  ASSERT_NO_FATAL_FAILURE(ReloadAndStop(*node));
  EXPECT_EQ(decoy->Disturbed(), "");
}

// A pid file forged to match everything the adoption checks but the
// binary: the process runs bash, not the configured OpenSM, and mentions
// our opensm.conf on its command line.
TEST_F(StateDirFaultTest, PidFileNamingAnotherProgramIsNeverAdopted) {
  ManagementNode* node = Node(fabric().topology().management_nodes()[0], "master");
  ASSERT_NE(node, nullptr);
  std::unique_ptr<Decoy> decoy = Decoy::Start(fabric().dir(), {"-F", node->StatePath("opensm.conf")});
  ASSERT_NE(decoy, nullptr);
  ASSERT_NO_FATAL_FAILURE(PlantPidFile(*node, FormatPidRecord(RecordFor(decoy->pid(), *node))));

  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "MASTER"));
  ExpectNotAdopted(*node, decoy->pid());
  EXPECT_NE(node->OpenSmPid(), decoy->pid());
  ASSERT_NO_FATAL_FAILURE(ReloadAndStop(*node));
  EXPECT_EQ(decoy->Disturbed(), "");
}

// The pid file names the other management node's OpenSM (a state_dir
// copied from it): a real OpenSM, but for another port and another config.
TEST_F(StateDirFaultTest, PidFileNamingAnotherOpenSmIsNeverSignalled) {
  const auto& names = fabric().topology().management_nodes();
  ManagementNode* other = Node(names[0], "master");
  ManagementNode* node = Node(names[1], "standby");
  ASSERT_TRUE(other != nullptr && node != nullptr);
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*other, "MASTER"));
  std::optional<pid_t> foreign = other->OpenSmPid();
  ASSERT_TRUE(foreign.has_value());
  Result<std::string> copied = ReadWholeFile(other->StatePath("opensm.pid"));
  ASSERT_TRUE(copied.ok());
  ASSERT_NO_FATAL_FAILURE(PlantPidFile(*node, *copied));

  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "STANDBY"));
  ExpectNotAdopted(*node, *foreign);
  EXPECT_NE(node->OpenSmPid(), foreign);
  ASSERT_NO_FATAL_FAILURE(ReloadAndStop(*node));
  EXPECT_EQ(other->OpenSmPid(), foreign) << "the other node's OpenSM was stopped";
  EXPECT_EQ(ProcessStateOf(*foreign) == 'T', false);
  Status master = other->WaitForSmState("MASTER", kFabricDeadline);
  EXPECT_TRUE(master.ok()) << master.message();
}

// Garbage where the pid file and the current pointer should be: the start
// recovers (a fresh OpenSM, numbering after the stored generations) and
// says what it could not read.
TEST_F(StateDirFaultTest, GarbagePidFileAndPointerAreRecoveredAtStart) {
  ManagementNode* node = Node(fabric().topology().management_nodes()[0], "master");
  ASSERT_NE(node, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "MASTER"));
  node->Stop();
  ASSERT_TRUE(WriteFileAtomically(node->StatePath("opensm.pid"), std::string("pid=\xff\x00garbage\n", 13), 0644).ok());
  ASSERT_TRUE(WriteFileAtomically(node->StatePath("generation"), "generation=banana\nhash=\n", 0644).ok());

  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "MASTER"));
  EXPECT_EQ(EventsOfKind(*node, "opensm-started").size(), 1u);
  StateDirAudit audit = AuditStateDir(node->state_dir());
  EXPECT_TRUE(audit.consistent()) << audit.Describe();
  EXPECT_EQ(audit.current, 2u) << "a new number after the stored generation 1: " << audit.Describe();
  Status matched = WaitForFabricToMatch(node->config_path(), node->port_guid());
  EXPECT_TRUE(matched.ok()) << matched.message();
}

// A generation whose smsupd.yaml was cut short (still valid YAML: it lost
// its last partition) and one whose meta.json is garbage: history names the
// unreadable one, a rollback to either is refused with the reason and
// changes nothing; nothing else is affected.
TEST_F(StateDirFaultTest, DamagedGenerationsAreNamedAndNeverApplied) {
  ManagementNode* node = Node(fabric().topology().management_nodes()[0], "master");
  ASSERT_NE(node, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node, "MASTER"));
  AddTenantC(node->config());
  ASSERT_TRUE(node->WriteConfig().ok());
  ASSERT_EQ(node->Smctl({"reload", "--wait", "--timeout", "30"}, kSmctlDeadline).exit_code, 0);
  node->config().Remove("tenant-a");
  ASSERT_TRUE(node->WriteConfig().ok());
  ASSERT_EQ(node->Smctl({"reload", "--wait", "--timeout", "30"}, kSmctlDeadline).exit_code, 0);

  const std::string first = node->StatePath("generations/1/smsupd.yaml");
  Result<std::string> yaml = ReadWholeFile(first);
  ASSERT_TRUE(yaml.ok());
  std::size_t cut = yaml->find("  - name: tenant-b");
  ASSERT_NE(cut, std::string::npos);
  ASSERT_TRUE(WriteFileAtomically(first, yaml->substr(0, cut), 0600).ok());
  ASSERT_TRUE(WriteFileAtomically(node->StatePath("generations/2/meta.json"), "{\"generation\": 2, \"hash\"", 0600).ok());

  FabricPKeyTables before = Tables();
  const std::string partitions = node->PartitionsConf();
  SmctlResult history = node->Smctl({"--json", "history"});
  EXPECT_EQ(history.exit_code, 0) << history.Describe();
  json unreadable = history.Arguments().value("unreadable", json::array());
  ASSERT_EQ(unreadable.size(), 1u) << history.Describe();
  EXPECT_NE(unreadable[0].get<std::string>().find("generations/2"), std::string::npos) << history.Describe();

  for (const std::string target : {"1", "2"}) {
    SCOPED_TRACE("rollback " + target);
    SmctlResult rollback = node->Smctl({"rollback", target, "--wait", "--timeout", "30"}, kSmctlDeadline);
    EXPECT_EQ(rollback.exit_code, 1) << rollback.Describe();
    std::cout << "rollback " << target << ": " << rollback.err << rollback.out;
    EXPECT_NE((rollback.err + rollback.out).find("generation " + target), std::string::npos) << rollback.Describe();
    EXPECT_EQ(node->PartitionsConf(), partitions);
    EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
  }
  Result<json> status = node->StatusJson();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ((*status)["config"].value("generation", 0ull), 3u);
  EXPECT_EQ(MismatchesWith(node->config_path(), node->port_guid()), "");
}

}  // namespace
}  // namespace smsupd::testbed::faults
