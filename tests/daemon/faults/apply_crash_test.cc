// kill -9 of smsupd at every step of an apply. smsupd stops itself at the
// step named by SMSUPD_FAULT_STOP_AT (daemon/apply/apply_fault_point.h), the
// test kills it there, and then checks what an operator would find:
//   - right after the kill: no partial file in state_dir, every stored
//     generation whole, opensm.conf and partitions.conf both those of one
//     stored generation (never one of each), the current pointer naming a
//     stored generation;
//   - after the next start: it adopts the running OpenSM and logs no error,
//     state_dir holds exactly one current generation (the installed files
//     are its files, it is the config file on disk, nothing newer lies
//     around), the fabric's P_Key tables are what it says, and the next
//     reload is verified.
#include <gtest/gtest.h>
#include <signal.h>

#include <future>

#include "common/atomic_file.h"
#include "config/renderer.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

const std::vector<std::string> kSteps = {"generation-saved", "files-installed", "current-set",
                              "opensm-signalled", "verified",        "recorded"};

class ApplyCrashTest : public FaultTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(StartSmallFabric());
    node_ = AddNode(TenantConfig(fabric().topology().management_nodes()[0], "master"));
    ASSERT_NE(node_, nullptr);
  }

  // Reloads a changed config (tenant-c added) and kills smsupd once it has
  // stopped itself at the step under test.
  void CrashDuringReload() {
    AddTenantC(node_->config());
    ASSERT_TRUE(node_->WriteConfig().ok());
    std::future<SmctlResult> reload = std::async(std::launch::async, [&] {
      return node_->Smctl({"--json", "reload", "--wait", "--timeout", "30"}, kSmctlDeadline);
    });
    const pid_t pid = node_->pid();
    Status stopped = WaitFor("smsupd to stop itself at " + GetParam(),
                             [&] { return ProcessStateOf(pid) == 'T'; }, kStartDeadline, milliseconds(5));
    ASSERT_TRUE(node_->Signal(SIGKILL).ok());
    ASSERT_TRUE(node_->Wait(milliseconds(10000)).ok()) << "smsupd survived SIGKILL";
    SmctlResult reply = reload.get();
    ASSERT_TRUE(stopped.ok()) << stopped.message() << "\nsmctl: " << reply.Describe();
    EXPECT_NE(reply.exit_code, 0) << "smsupd answered although it was killed first: " << reply.Describe();
  }

  // Right after the kill: whole files only, and the installed pair is one
  // stored generation's. Between the install and the pointer the files are
  // already the new generation's: the pointer may lag them by that step.
  void ExpectWholeFilesAfterKill() {
    StateDirAudit crashed = AuditStateDir(node_->state_dir());
    std::cout << "after kill -9 at " << GetParam() << ": " << crashed.Describe() << "\n";
    EXPECT_TRUE(crashed.consistent()) << crashed.Describe();
    ASSERT_TRUE(crashed.installed.has_value()) << crashed.Describe();
    EXPECT_TRUE(*crashed.installed == crashed.current ||
                (*crashed.installed == crashed.current + 1 && crashed.generations.back() == *crashed.installed))
        << crashed.Describe();
    EXPECT_EQ(node_->OpenSmPid(), opensm_) << "OpenSM did not survive smsupd's kill -9";
  }

  // The next start (with node_->config() as the file): it adopts OpenSM and
  // logs no error; the current generation is the file, its files are the
  // installed ones, nothing newer is stored; the fabric holds it; the next
  // reload is verified.
  void RestartAndExpectClean() {
    const std::size_t log_from = OutputSize(*node_);
    ASSERT_NO_FATAL_FAILURE(StartAndWait(*node_, "MASTER"));
    Result<json> status = node_->StatusJson();
    ASSERT_TRUE(status.ok()) << status.error().message;
    EXPECT_EQ(node_->OpenSmPid(), opensm_) << "the restarted smsupd did not adopt OpenSM";
    EXPECT_EQ(ErrorLines(*node_, log_from), std::vector<std::string>{});
    EXPECT_EQ(EventsOfKind(*node_, "opensm-adopted").size(), 1u);
    Result<std::string> yaml = ReadWholeFile(node_->config_path());
    ASSERT_TRUE(yaml.ok());
    const std::uint64_t generation = (*status)["config"].value("generation", 0ull);
    EXPECT_EQ((*status)["config"].value("hash", std::string()), config::ConfigHash(*yaml));
    StateDirAudit restarted = AuditStateDir(node_->state_dir());
    EXPECT_TRUE(restarted.consistent()) << restarted.Describe();
    EXPECT_EQ(restarted.current, generation) << restarted.Describe();
    EXPECT_EQ(restarted.installed, generation) << restarted.Describe();
    EXPECT_EQ(restarted.generations.back(), generation)
        << "a generation newer than the current one: " << restarted.Describe();
    Result<std::string> stored = ReadWholeFile(node_->StatePath("generations/" + std::to_string(generation) +
                                                                "/smsupd.yaml"));
    EXPECT_EQ(stored.ok() ? *stored : "(missing)", *yaml) << "generation " << generation << " stores another config";
    Status matched = WaitForFabricToMatch(node_->config_path(), node_->port_guid());
    EXPECT_TRUE(matched.ok()) << matched.message();

    node_->config().Remove("tenant-b");
    ASSERT_TRUE(node_->WriteConfig().ok());
    SmctlResult next = node_->Smctl({"--json", "reload", "--wait", "--timeout", "30"}, kSmctlDeadline);
    EXPECT_EQ(next.exit_code, 0) << next.Describe();
    EXPECT_EQ(next.VerificationState(), "verified") << next.Describe();
    EXPECT_EQ(next.Arguments().value("generation", 0ull), generation + 1) << next.Describe();
    EXPECT_EQ(MismatchesWith(node_->config_path(), node_->port_guid()), "");
    StateDirAudit after = AuditStateDir(node_->state_dir());
    EXPECT_TRUE(after.consistent() && after.current == generation + 1) << after.Describe();
  }

  ManagementNode* node_ = nullptr;
  std::optional<pid_t> opensm_;
};

TEST_P(ApplyCrashTest, KillNineLeavesOneConsistentGeneration) {
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node_, "MASTER", {{"SMSUPD_FAULT_STOP_AT", GetParam()}}));
  ASSERT_TRUE(WaitForFabricToMatch(node_->config_path(), node_->port_guid()).ok());
  opensm_ = node_->OpenSmPid();
  ASSERT_TRUE(opensm_.has_value());
  ASSERT_NO_FATAL_FAILURE(CrashDuringReload());
  ASSERT_NO_FATAL_FAILURE(ExpectWholeFilesAfterKill());
  ASSERT_NO_FATAL_FAILURE(RestartAndExpectClean());
}

// The operator edits the config while smsupd is down: the next start
// applies that file under a number of its own, whatever the interrupted
// apply had stored.
TEST_P(ApplyCrashTest, ConfigEditedWhileDownStartsCleanly) {
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*node_, "MASTER", {{"SMSUPD_FAULT_STOP_AT", GetParam()}}));
  ASSERT_TRUE(WaitForFabricToMatch(node_->config_path(), node_->port_guid()).ok());
  opensm_ = node_->OpenSmPid();
  ASSERT_TRUE(opensm_.has_value());
  ASSERT_NO_FATAL_FAILURE(CrashDuringReload());
  ASSERT_NO_FATAL_FAILURE(ExpectWholeFilesAfterKill());
  node_->config().Remove("tenant-a");
  ASSERT_NO_FATAL_FAILURE(RestartAndExpectClean());
}

INSTANTIATE_TEST_SUITE_P(EveryStep, ApplyCrashTest, ::testing::ValuesIn(kSteps),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace smsupd::testbed::faults
