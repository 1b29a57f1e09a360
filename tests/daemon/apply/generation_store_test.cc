// GenerationStore on a temporary state_dir: numbering (continuing the legacy
// counter), save/list/load, verification updates, pruning that spares the
// current generation, interrupted saves.
#include "daemon/apply/generation_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "config/renderer.h"
#include "daemon/apply/running_config.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;

class GenerationStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/generation-store-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  GenerationMeta Meta(std::uint64_t number, const std::string& reason = "reload") {
    GenerationMeta meta;
    meta.generation = number;
    meta.applied_at = "2026-12-02T21:30:00.000Z";
    meta.applied_by = "uid 0";
    meta.uid = 0;
    meta.reason = reason;
    meta.hash = config::ConfigHash(Files(number).yaml);
    meta.source_path = "/etc/smsupd/smsupd.yaml";
    meta.plan_summary = "+1 partition";
    return meta;
  }
  GenerationFiles Files(std::uint64_t number) {
    std::string n = std::to_string(number);
    return {"yaml " + n + "\n", "opensm " + n + "\n", "partitions " + n + "\n"};
  }

  std::string dir_;
};

TEST_F(GenerationStoreTest, NumberingContinuesTheLegacyCounter) {
  GenerationStore store(dir_);
  EXPECT_EQ(store.NextNumber(), 1u);
  ASSERT_TRUE(WriteGeneration(StatePaths{dir_}, {7, "abc"}));
  EXPECT_EQ(store.Current(), 7u);
  EXPECT_EQ(store.NextNumber(), 8u);
  ASSERT_TRUE(store.Save(Meta(12), Files(12)));
  EXPECT_EQ(store.NextNumber(), 13u);
}

TEST_F(GenerationStoreTest, SavesListsAndLoadsWholeGenerations) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1, "start"), Files(1)));
  ASSERT_TRUE(store.Save(Meta(2), Files(2)));
  EXPECT_FALSE(store.Save(Meta(2), Files(2))) << "a generation is never overwritten";
  auto list = store.List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].generation, 1u);
  EXPECT_EQ(list[0].reason, "start");
  EXPECT_EQ(list[1].VerificationState(), "pending");
  auto loaded = store.Load(2);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->files.yaml, "yaml 2\n");
  EXPECT_EQ(loaded->files.opensm_conf, "opensm 2\n");
  EXPECT_EQ(loaded->files.partitions_conf, "partitions 2\n");
  EXPECT_EQ(loaded->meta.uid, std::optional<std::uint32_t>(0));
  EXPECT_FALSE(store.Load(3));
  struct stat info {};
  ASSERT_EQ(::stat((store.DirOf(2) + "/opensm.conf").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "opensm.conf may hold the SM_Key";
}

TEST_F(GenerationStoreTest, RecordsVerificationLater) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1), Files(1)));
  ASSERT_TRUE(store.SetVerification(1, {{"state", "verified"}, {"checked", 4}, {"expected", 4}}));
  auto list = store.List();
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].VerificationState(), "verified");
  EXPECT_EQ(list[0].verification["checked"], 4);
  EXPECT_EQ(store.Load(1)->files.yaml, "yaml 1\n");
}

TEST_F(GenerationStoreTest, PruneKeepsTheNewestAndNeverTheCurrent) {
  GenerationStore store(dir_);
  for (std::uint64_t n = 1; n <= 6; ++n) ASSERT_TRUE(store.Save(Meta(n), Files(n)));
  ASSERT_TRUE(store.Prune(3, /*current=*/2));
  std::vector<std::uint64_t> left;
  for (const auto& meta : store.List()) left.push_back(meta.generation);
  EXPECT_EQ(left, (std::vector<std::uint64_t>{2, 5, 6}));
}

TEST_F(GenerationStoreTest, InterruptedSavesAreInvisibleAndCleanedUp) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1), Files(1)));
  fs::create_directories(store.DirOf(2) + ".tmp");
  std::ofstream(store.DirOf(2) + ".tmp/smsupd.yaml") << "half";
  EXPECT_EQ(store.List().size(), 1u);
  EXPECT_FALSE(store.Exists(2));
  ASSERT_TRUE(store.Save(Meta(2), Files(2))) << "a stale .tmp does not block the save";
  fs::create_directories(store.DirOf(3) + ".tmp");
  ASSERT_TRUE(store.Prune(20, 2));
  EXPECT_FALSE(fs::exists(store.DirOf(3) + ".tmp"));
}

// What smsupd killed in the middle of an apply leaves: a generation saved
// but never made current, a half-written generation, the atomic writer's
// temporary files. The start removes them; finished generations, even
// newer ones, and everything when the current one is unknown, stay.
TEST_F(GenerationStoreTest, TheStartRemovesWhatAnInterruptedApplyLeft) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1), Files(1)));
  ASSERT_TRUE(store.Save(Meta(2), Files(2)));
  ASSERT_TRUE(store.SetVerification(2, {{"state", "verified"}}));
  ASSERT_TRUE(store.Save(Meta(3), Files(3)));  // "pending": never finished
  fs::create_directories(store.DirOf(4) + ".tmp");
  std::ofstream(dir_ + "/partitions.conf.tmp.a1B2c3") << "half";
  std::ofstream(store.DirOf(2) + "/meta.json.tmp.Zz0987") << "half";
  std::ofstream(dir_ + "/partitions.conf") << "whole";

  EXPECT_TRUE(store.RemoveInterrupted(0).size() == 3u) << "temporaries only when the current one is unknown";
  EXPECT_TRUE(store.Exists(3));
  std::vector<std::string> removed = store.RemoveInterrupted(1);
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_NE(removed[0].find("generation 3"), std::string::npos) << removed[0];
  EXPECT_FALSE(store.Exists(3));
  EXPECT_TRUE(store.Exists(1) && store.Exists(2)) << "a finished generation is never discarded";
  EXPECT_FALSE(fs::exists(store.DirOf(4) + ".tmp"));
  EXPECT_FALSE(fs::exists(dir_ + "/partitions.conf.tmp.a1B2c3"));
  EXPECT_FALSE(fs::exists(store.DirOf(2) + "/meta.json.tmp.Zz0987"));
  EXPECT_TRUE(fs::exists(dir_ + "/partitions.conf"));
  EXPECT_EQ(store.NextNumber(), 3u);
}

TEST_F(GenerationStoreTest, StartNumbersANewConfigPastEveryStoredGeneration) {
  EXPECT_EQ(NextGenerationAtStart({4, "a"}, "a", 9).number, 4u);
  EXPECT_EQ(NextGenerationAtStart({4, "a"}, "b", 9).number, 9u);
  EXPECT_EQ(NextGenerationAtStart({4, "a"}, "b", 2).number, 5u);
  EXPECT_EQ(NextGenerationAtStart({0, ""}, "b", 1).number, 1u);
}

// A generation whose YAML is not the one its meta.json recorded (cut short
// on a full disk, edited by hand) is never loaded, even if it validates.
TEST_F(GenerationStoreTest, ADamagedGenerationIsNotLoaded) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1), Files(1)));
  std::ofstream(store.DirOf(1) + "/smsupd.yaml", std::ios::trunc) << "yaml";
  auto loaded = store.Load(1);
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("generation 1 is damaged"), std::string::npos) << loaded.error().message;
  GenerationMeta other = Meta(2);
  other.generation = 3;
  fs::create_directories(store.DirOf(2));
  for (const char* name : {"smsupd.yaml", "opensm.conf", "partitions.conf"})
    std::ofstream(store.DirOf(2) + "/" + name) << "x";
  std::ofstream(store.DirOf(2) + "/meta.json") << other.ToJson().dump();
  EXPECT_FALSE(store.Load(2)) << "a meta.json of another generation";
}

TEST_F(GenerationStoreTest, SkipsAndNamesUnreadableGenerations) {
  GenerationStore store(dir_);
  ASSERT_TRUE(store.Save(Meta(1), Files(1)));
  fs::create_directories(store.DirOf(2));
  std::ofstream(store.DirOf(2) + "/meta.json") << "{not json";
  std::vector<std::string> skipped;
  EXPECT_EQ(store.List(&skipped).size(), 1u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("/2"), std::string::npos);
}

}  // namespace
}  // namespace smsupd
