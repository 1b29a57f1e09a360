// A state_dir that is full (a small tmpfs filled up to a few pages) or
// read-only when a reload comes: the reload is refused with the reason, and
// nothing changes -- not the files in state_dir, not the generation in
// force, not the fabric's P_Key tables, not OpenSM. Once there is room
// again, the same reload goes through.
//
// The test runs in a mount namespace of its own, so its tmpfs disappears
// with its processes whatever happens to the test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include "common/atomic_file.h"
#include "tests/daemon/faults/fault_fixture.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr char kFiller[] = "filler";
constexpr std::size_t kPage = 4096;
// Room for OpenSM's cache and smsupd's files of this fabric, several times.
constexpr std::size_t kTmpfsBytes = 4 * 1024 * 1024;

// What must not change when an apply is refused.
struct Snapshot {
  std::map<std::string, std::string> files;  // state_dir, without OpenSM's own directories
  std::uint64_t generation = 0;
  std::string hash;
  FabricPKeyTables tables;
  std::optional<pid_t> opensm;
};

class StorageFaultTest : public FaultTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(::unshare(CLONE_NEWNS), 0) << std::strerror(errno);
    ASSERT_EQ(::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr), 0) << std::strerror(errno);
    ASSERT_NO_FATAL_FAILURE(StartSmallFabric());
    node_ = AddNode(TenantConfig(fabric().topology().management_nodes()[0], "master"));
    ASSERT_NE(node_, nullptr);
    node_state_dir_ = node_->state_dir();
    ASSERT_EQ(::mkdir(node_->state_dir().c_str(), 0700), 0);
    const std::string options = "size=" + std::to_string(kTmpfsBytes) + ",mode=0700";
    ASSERT_EQ(::mount("tmpfs", node_->state_dir().c_str(), "tmpfs", 0, options.c_str()), 0) << std::strerror(errno);
    mounted_ = true;
    ASSERT_NO_FATAL_FAILURE(StartAndWait(*node_, "MASTER"));
    ASSERT_TRUE(WaitForFabricToMatch(node_->config_path(), node_->port_guid()).ok());
  }

  void TearDown() override {
    while (!nodes_.empty()) nodes_.pop_back();
    if (mounted_) ::umount2(node_state_dir_.c_str(), MNT_DETACH);
    FaultTest::TearDown();
  }

  Snapshot Take() {
    Snapshot snapshot;
    std::error_code error;
    for (fs::recursive_directory_iterator it(node_->state_dir(), error), end; !error && it != end;
         it.increment(error)) {
      const std::string name = it->path().filename().string();
      if (it.depth() == 0 && (name == "opensm-tmp" || name == "opensm-cache" || name == kFiller)) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file()) continue;
      Result<std::string> text = ReadWholeFile(it->path());
      snapshot.files[it->path().string()] = text ? *text : "(unreadable)";
    }
    Result<json> status = node_->StatusJson();
    EXPECT_TRUE(status.ok()) << status.error().message;
    if (status.ok()) {
      snapshot.generation = (*status)["config"].value("generation", 0ull);
      snapshot.hash = (*status)["config"].value("hash", std::string());
    }
    snapshot.tables = Tables();
    snapshot.opensm = node_->OpenSmPid();
    return snapshot;
  }

  void ExpectUnchanged(const Snapshot& before, const std::string& what) {
    Snapshot after = Take();
    EXPECT_EQ(after.generation, before.generation) << what;
    EXPECT_EQ(after.hash, before.hash) << what;
    EXPECT_EQ(after.opensm, before.opensm) << what << ": OpenSM was restarted";
    EXPECT_EQ(DescribePKeyDifferences(before.tables, after.tables), "") << what;
    for (const auto& [path, text] : before.files) {
      auto found = after.files.find(path);
      EXPECT_TRUE(found != after.files.end() && found->second == text) << what << ": " << path << " changed";
    }
    for (const auto& [path, text] : after.files)
      EXPECT_TRUE(before.files.count(path)) << what << ": " << path << " appeared";
  }

  // Leaves `pages` pages free on the state_dir's tmpfs.
  void FillLeaving(std::size_t pages) {
    const std::string filler = node_->StatePath(kFiller);
    ::unlink(filler.c_str());
    struct statvfs fs {};
    ASSERT_EQ(::statvfs(node_->state_dir().c_str(), &fs), 0);
    const std::size_t free = fs.f_bavail * fs.f_bsize;
    ASSERT_GT(free, pages * kPage);
    int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(::posix_fallocate(fd, 0, static_cast<off_t>(free - pages * kPage)), 0);
    ::close(fd);
  }

  SmctlResult Reload() {
    return node_->Smctl({"--json", "reload", "--wait", "--timeout", "30"}, kSmctlDeadline);
  }

  ManagementNode* node_ = nullptr;
  std::string node_state_dir_;
  bool mounted_ = false;
};

// From no free page up: every reload that cannot write all it needs is
// refused and changes nothing; the first that can is applied and verified.
TEST_F(StorageFaultTest, DiskFullRefusesTheApplyAndChangesNothing) {
  AddTenantC(node_->config());
  ASSERT_TRUE(node_->WriteConfig().ok());
  int refused = 0;
  bool applied = false;
  for (std::size_t pages = 0; pages <= 16 && !applied; ++pages) {
    SCOPED_TRACE(std::to_string(pages) + " free pages");
    ASSERT_NO_FATAL_FAILURE(FillLeaving(pages));
    Snapshot before = Take();
    SmctlResult reply = Reload();
    std::cout << pages << " free pages: reload exit " << reply.exit_code << ", "
              << reply.Json().value("text", reply.err) << "\n";
    if (reply.exit_code == 0) {
      applied = true;
      EXPECT_EQ(reply.VerificationState(), "verified") << reply.Describe();
      StateDirAudit audit = AuditStateDir(node_->state_dir());
      EXPECT_TRUE(audit.consistent()) << audit.Describe();
      EXPECT_EQ(MismatchesWith(node_->config_path(), node_->port_guid()), "");
      continue;
    }
    ++refused;
    EXPECT_EQ(reply.exit_code, 1) << reply.Describe();
    EXPECT_NE((reply.out + reply.err).find("No space left on device"), std::string::npos) << reply.Describe();
    ExpectUnchanged(before, "a reload refused for lack of space");
  }
  EXPECT_GT(refused, 0) << "no reload was refused: the tmpfs was not full";
  if (!applied) {
    ::unlink(node_->StatePath(kFiller).c_str());
    SmctlResult reply = Reload();
    EXPECT_EQ(reply.exit_code, 0) << reply.Describe();
    EXPECT_EQ(reply.VerificationState(), "verified") << reply.Describe();
  }
}

TEST_F(StorageFaultTest, ReadOnlyStateDirRefusesTheApplyAndChangesNothing) {
  AddTenantC(node_->config());
  ASSERT_TRUE(node_->WriteConfig().ok());
  Snapshot before = Take();
  ASSERT_EQ(::mount(nullptr, node_->state_dir().c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0)
      << std::strerror(errno);
  SmctlResult reply = Reload();
  EXPECT_EQ(reply.exit_code, 1) << reply.Describe();
  EXPECT_NE((reply.out + reply.err).find("Read-only file system"), std::string::npos) << reply.Describe();
  ExpectUnchanged(before, "a reload refused on a read-only state_dir");

  ASSERT_EQ(::mount(nullptr, node_->state_dir().c_str(), nullptr, MS_REMOUNT, nullptr), 0) << std::strerror(errno);
  SmctlResult again = Reload();
  EXPECT_EQ(again.exit_code, 0) << again.Describe();
  EXPECT_EQ(again.VerificationState(), "verified") << again.Describe();
  EXPECT_EQ(MismatchesWith(node_->config_path(), node_->port_guid()), "");
}

}  // namespace
}  // namespace smsupd::testbed::faults
