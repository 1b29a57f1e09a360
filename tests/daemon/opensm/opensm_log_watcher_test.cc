// OpenSmLogWatcher against a temporary file: line classification (the exact
// strings OpenSM 3.3.23 writes), start at the end, partial lines, truncation
// and rotation.
#include "daemon/opensm/opensm_log_watcher.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <vector>

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Kind = OpenSmLogEvent::Kind;

// Lines as OpenSM 3.3.23 wrote them on ibsim.
constexpr char kSubnetUp[] = "Dec 02 21:12:36 836120 [A8CE26C0] 0x02 -> SUBNET UP";
constexpr char kParseError[] =
    "Dec 02 21:12:24 781375 [A8CE26C0] 0x01 -> parse_part_conf: PARSE ERROR: line 2: no "
    "partition definition found";
constexpr char kInError[] =
    "Dec 02 21:12:24 781462 [A8CE26C0] 0x01 -> osm_prtn_make_partitions: Partition configuration "
    "in error; retrying with default config";
constexpr char kSmKey[] =
    "Dec 02 21:13:00 000001 [A8CE26C0] 0x01 -> sminfo_rcv_process_get_response: ERR 2F18: Got SM "
    "(LID 4) with sm_key 0x0000000000000002 that doesn't match our local sm_key. Ignoring SMInfo";
constexpr char kMaster[] = "Dec 02 21:11:42 585935 [A8CE26C0] 0x80 -> Entering MASTER state";
constexpr char kStandby[] = "Dec 02 21:11:42 585935 [A8CE26C0] 0x80 -> Entering STANDBY state";
constexpr char kInfo[] =
    "Dec 02 21:12:36 828534 [A8CE26C0] 0x02 -> osm_ucast_mgr_process: minhop tables configured on "
    "all switches";

TEST(ClassifyOpenSmLogLine, KnowsOpenSmsStrings) {
  EXPECT_EQ(ClassifyOpenSmLogLine(kSubnetUp), Kind::kSubnetUp);
  EXPECT_EQ(ClassifyOpenSmLogLine(kParseError), Kind::kPartitionConfigError);
  EXPECT_EQ(ClassifyOpenSmLogLine(kInError), Kind::kPartitionConfigError);
  EXPECT_EQ(ClassifyOpenSmLogLine(kSmKey), Kind::kSmKeyMismatch);
  EXPECT_EQ(ClassifyOpenSmLogLine(kMaster), Kind::kEnteringMaster);
  EXPECT_EQ(ClassifyOpenSmLogLine(kStandby), Kind::kEnteringStandby);
  EXPECT_EQ(ClassifyOpenSmLogLine(kInfo), std::nullopt);
  EXPECT_EQ(ClassifyOpenSmLogLine("Dec 02 21:12:36 836120 [A8CE26C0] 0x01 -> ERR 3E01: whatever"),
            Kind::kError);
}

TEST(ClassifyOpenSmLogLine, MessageBoxesAreNotSubnetUp) {
  // At VERBOSE level OpenSM also draws "SUBNET UP" in a box of stars: one
  // sweep must still count once.
  EXPECT_EQ(ClassifyOpenSmLogLine("************************** SUBNET UP ***************************"),
            std::nullopt);
  EXPECT_EQ(ClassifyOpenSmLogLine("Dec 02 21:12:36 836120 [A8CE26C0] 0x04 -> state_mgr_up_msg:"),
            std::nullopt);
  EXPECT_EQ(ClassifyOpenSmLogLine("********************* INITIATING HEAVY SWEEP *********************"),
            Kind::kHeavySweepRequested);
  EXPECT_EQ(ClassifyOpenSmLogLine("Dec 02 21:12:36 836120 [A8CE26C0] 0x02 -> SUBNET UP (sweep disabled)"),
            std::nullopt);
}

class LogWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/log-watcher-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    path_ = dir_ + "/opensm.log";
  }
  void TearDown() override {
    watcher_.reset();
    fs::remove_all(dir_);
  }
  void Append(const std::string& text, const std::string& path = "") {
    std::ofstream(path.empty() ? path_ : path, std::ios::app) << text;
  }
  void StartWatcher() {
    watcher_ = std::make_unique<OpenSmLogWatcher>(
        io_, path_, 10ms, [this](const OpenSmLogEvent& event) { seen_.push_back(event.kind); });
    watcher_->Start();
  }

  std::string dir_, path_;
  boost::asio::io_context io_;
  std::unique_ptr<OpenSmLogWatcher> watcher_;
  std::vector<Kind> seen_;
};

TEST_F(LogWatcherTest, StartsAtTheEndOfTheFile) {
  Append(std::string(kSubnetUp) + "\n" + kInError + "\n");
  StartWatcher();
  watcher_->PollNow();
  EXPECT_TRUE(seen_.empty());
  Append(std::string(kInfo) + "\n" + kSubnetUp + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp});
  EXPECT_EQ(watcher_->subnet_up_count(), 1u);
}

TEST_F(LogWatcherTest, HoldsAPartialLineUntilItsNewline) {
  StartWatcher();
  Append("Dec 02 21:12:36 836120 [A8CE26C0] 0x02 -> SUBNET");
  watcher_->PollNow();
  EXPECT_TRUE(seen_.empty());
  Append(" UP\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp});
}

TEST_F(LogWatcherTest, ReadsAFileCreatedAfterStartFromItsBeginning) {
  StartWatcher();
  watcher_->PollNow();
  Append(std::string(kMaster) + "\n" + kSubnetUp + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kEnteringMaster, Kind::kSubnetUp}));
}

TEST_F(LogWatcherTest, SurvivesTruncation) {
  Append(std::string(200, 'x') + "\n");
  StartWatcher();
  fs::resize_file(path_, 0);
  Append(std::string(kSmKey) + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSmKeyMismatch});
}

TEST_F(LogWatcherTest, SurvivesRotationAndReadsTheRestOfTheOldFile) {
  Append(std::string(kInfo) + "\n");
  StartWatcher();
  Append(std::string(kSubnetUp) + "\n");  // written just before logrotate's rename
  fs::rename(path_, path_ + ".1");
  Append(std::string(kParseError) + "\n" + kInError + "\n" + kSubnetUp + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kSubnetUp, Kind::kPartitionConfigError,
                                      Kind::kPartitionConfigError, Kind::kSubnetUp}));
  EXPECT_EQ(watcher_->subnet_up_count(), 2u);
}

// logrotate's rename + create, then SIGUSR1: OpenSM writes the renamed file
// until it reopens, and flushes its last lines there on the reopen itself.
TEST_F(LogWatcherTest, FollowsTheRenamedFileUntilOpenSmWritesTheNewOne) {
  Append(std::string(kInfo) + "\n");
  StartWatcher();
  watcher_->PollNow();
  fs::rename(path_, path_ + ".1");
  Append("");  // logrotate's `create`: a new, empty file
  Append(std::string(kMaster) + "\n", path_ + ".1");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kEnteringMaster}) << "the renamed file was left";
  EXPECT_TRUE(watcher_->following_rotated_file());
  Append(std::string(kSubnetUp) + "\n", path_ + ".1");  // flushed by the reopen's fclose
  Append(std::string(kStandby) + "\n");                 // OpenSM's first line after it
  watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kEnteringMaster, Kind::kSubnetUp,
                                      Kind::kEnteringStandby}));
  EXPECT_EQ(watcher_->rotations(), 1u);
  EXPECT_FALSE(watcher_->following_rotated_file());
  Append(std::string(kSubnetUp) + "\n", path_ + ".1");  // nobody writes there now
  Append(std::string(kSmKey) + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_.back(), Kind::kSmKeyMismatch);
  EXPECT_EQ(seen_.size(), 4u) << "the old file is no longer read";
}

// A rotation with `nocreate`: OpenSM creates the file when it reopens.
TEST_F(LogWatcherTest, FollowsTheRenamedFileWhileThePathIsMissing) {
  Append(std::string(kInfo) + "\n");
  StartWatcher();
  watcher_->PollNow();
  fs::rename(path_, path_ + ".1");
  Append(std::string(kSubnetUp) + "\n", path_ + ".1");
  watcher_->PollNow();
  Append(std::string(kMaster) + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kSubnetUp, Kind::kEnteringMaster}));
}

// copytruncate, and OpenSM wrote more than had been read before the next
// poll: the size alone does not show it.
TEST_F(LogWatcherTest, SeesACopytruncateThatTheFileHasOutgrown) {
  StartWatcher();
  Append(std::string(kInfo) + "\n");
  watcher_->PollNow();
  fs::resize_file(path_, 0);
  Append(std::string(kStandby) + "\n" + kInfo + "\n" + kSubnetUp + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kEnteringStandby, Kind::kSubnetUp}));
}

// Finishing the old file is bounded per poll like any read, and the new
// file waits until the old one is done.
TEST_F(LogWatcherTest, FinishesALargeRenamedFileOverSeveralPollsInOrder) {
  Append(std::string(kInfo) + "\n");
  StartWatcher();
  watcher_->PollNow();
  std::string text;
  while (text.size() < 2 * OpenSmLogWatcher::kMaxReadPerPoll) text += std::string(kInfo) + "\n";
  Append(text + kMaster + "\n");
  fs::rename(path_, path_ + ".1");
  Append(std::string(kSubnetUp) + "\n");
  watcher_->PollNow();
  EXPECT_TRUE(seen_.empty());
  for (int i = 0; i < 4 && seen_.size() < 2; ++i) watcher_->PollNow();
  EXPECT_EQ(seen_, (std::vector<Kind>{Kind::kEnteringMaster, Kind::kSubnetUp}));
}

// One poll read a whole new log on the event loop, however large.
TEST_F(LogWatcherTest, APollReadsABoundedAmountAndCatchesUpLater) {
  StartWatcher();
  watcher_->PollNow();
  const std::string filler = std::string(kInfo) + "\n";
  std::string text;
  while (text.size() < 3 * OpenSmLogWatcher::kMaxReadPerPoll) text += filler;
  Append(text + kSubnetUp + "\n");
  watcher_->PollNow();
  EXPECT_TRUE(seen_.empty()) << "read more than one poll's share";
  for (int i = 0; i < 4 && seen_.empty(); ++i) watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp});
}

TEST_F(LogWatcherTest, AFarBacklogIsSkippedToTheEnd) {
  StartWatcher();
  watcher_->PollNow();
  Append(std::string(kMaster) + "\n");
  Append(std::string(OpenSmLogWatcher::kMaxBacklog, 'x') + "\n");
  watcher_->PollNow();
  EXPECT_TRUE(seen_.empty()) << "the skipped part was read";
  Append(std::string(kSubnetUp) + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp});
}

// The partial line grew without bound.
TEST_F(LogWatcherTest, AnEndlessLineIsDroppedNotBuffered) {
  StartWatcher();
  watcher_->PollNow();
  for (int i = 0; i < 8; ++i) {
    Append(std::string(OpenSmLogWatcher::kMaxLineBytes / 2, 'y'));
    watcher_->PollNow();
    EXPECT_LE(watcher_->buffered_bytes(), OpenSmLogWatcher::kMaxLineBytes);
  }
  Append(" 0x02 -> SUBNET UP\n" + std::string(kSubnetUp) + "\n");
  watcher_->PollNow();
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp}) << "only the line after the long one counts";
}

TEST_F(LogWatcherTest, PollsOnItsOwnTimer) {
  StartWatcher();
  Append(std::string(kSubnetUp) + "\n");
  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (seen_.empty() && std::chrono::steady_clock::now() < deadline) io_.run_for(20ms);
  EXPECT_EQ(seen_, std::vector<Kind>{Kind::kSubnetUp});
  watcher_->Stop();
  Append(std::string(kSubnetUp) + "\n");
  io_.restart();
  io_.run_for(50ms);
  EXPECT_EQ(seen_.size(), 1u) << "no events after Stop()";
}

}  // namespace
}  // namespace smsupd
