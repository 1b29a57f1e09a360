// Which generation last changed a partition (`smctl why`'s GEN column): the
// oldest of the unbroken run of identical definitions ending at the
// current generation, with a bounded scan.
#include "daemon/apply/why_generations.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "config/renderer.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;

constexpr char kDefault[] = "Default=0x7fff, ipoib :\n    ALL=limited ;\n";

std::string Conf(const std::string& tenant_members) {
  return std::string("# rendered by smsupd\n") + kDefault + "tenant-c=0x0030 :\n    " + tenant_members + " ;\n";
}

class WhyGenerationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/why-generations-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Save(GenerationStore& store, std::uint64_t number, const std::string& conf) {
    GenerationMeta meta;
    meta.generation = number;
    meta.applied_at = "2026-12-02T21:30:00.000Z";
    meta.applied_by = "uid 0";
    meta.uid = 0;
    meta.reason = "reload";
    meta.hash = config::ConfigHash("yaml " + std::to_string(number) + "\n");
    meta.source_path = "/etc/smsupd/smsupd.yaml";
    ASSERT_TRUE(store.Save(meta, {"yaml " + std::to_string(number) + "\n", "opensm\n", conf}));
  }
  std::string dir_;
};

TEST(PartitionDefinitionTest, FindsTheDefinitionOfOneKeyWithoutComments) {
  std::string conf = Conf("0x0002c90300001031=limited # gpu01");
  EXPECT_EQ(PartitionDefinition(conf, 0x0030), "tenant-c=0x0030 : 0x0002c90300001031=limited ;");
  EXPECT_EQ(PartitionDefinition(conf, 0x7fff), "Default=0x7fff, ipoib : ALL=limited ;");
  EXPECT_EQ(PartitionDefinition(conf, 0x0010), "");
}

TEST_F(WhyGenerationsTest, TheOldestGenerationOfTheUnbrokenRunIsNamed) {
  GenerationStore store(dir_);
  Save(store, 1, Conf("0x01=limited"));
  Save(store, 2, Conf("0x01=full"));  // tenant-c changed here
  Save(store, 3, Conf("0x01=full"));  // something else changed
  auto generations = LastChangedGenerations(store, 3, {0x0030, 0x7fff, 0x0010});
  EXPECT_EQ(generations.at(0x0030), 2u);
  EXPECT_EQ(generations.at(0x7fff), 1u);
  EXPECT_EQ(generations.count(0x0010), 0u) << "a partition the current generation does not define";
}

TEST_F(WhyGenerationsTest, TheScanIsBoundedAndGenerationsAfterTheCurrentOneAreIgnored) {
  GenerationStore store(dir_);
  for (std::uint64_t n = 1; n <= 6; ++n) Save(store, n, Conf(n == 6 ? "0x02=full" : "0x01=full"));
  EXPECT_EQ(LastChangedGenerations(store, 5, {0x0030}).at(0x0030), 1u) << "generation 6 is not current";
  EXPECT_EQ(LastChangedGenerations(store, 5, {0x0030}, 2).at(0x0030), 4u) << "two generations read";
}

}  // namespace
}  // namespace smsupd
