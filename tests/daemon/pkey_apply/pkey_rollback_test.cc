// A change OpenSM rejects is rolled back automatically; `smctl rollback`
// restores the exact previous tables; `smctl history` lists the generations
// and who applied them.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <future>
#include <regex>

#include "common/atomic_file.h"
#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class PKeyRollbackTest : public PKeyApplyTest {
 protected:
  void AddTenantC() {
    master().config().partitions.push_back(
        {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full"), HostMember("H1_3", "limited")}});
  }
  std::string OpenSmLog() {
    return FileOr(master().config().OpenSmLog(), "");
  }
  static std::string FileOr(const std::string& path, const std::string& otherwise) {
    Result<std::string> text = ReadWholeFile(path);
    return text ? *text : otherwise;
  }
};

// OpenSM re-reads partitions.conf on the heavy sweep that follows the
// daemon's SIGHUP. To corrupt the file after smsupd validated and installed
// it, but before OpenSM reads it, OpenSM is stopped (SIGSTOP) around the
// install: the SIGHUP stays pending until SIGCONT. A comments-only file makes
// OpenSM 3.3.23 drop every partition ("Partition configuration in error;
// retrying with default config", docs/opensm-behaviour.md "partitions.conf errors:
// fallback to the default partition"): every port becomes a full
// member of 0x7fff, which the verification must catch and roll back.
TEST_F(PKeyRollbackTest, AChangeOpenSmRejectsIsRolledBackAutomatically) {
  FabricPKeyTables before = Tables();
  std::string conf_before = master().PartitionsConf();
  std::uint64_t generation = Generation(master());
  std::optional<pid_t> opensm = master().OpenSmPid();
  AddTenantC();
  SmctlResult reply = ReloadThatOpenSmReadsCorrupted();
  ASSERT_FALSE(HasFailure());

  EXPECT_EQ(reply.exit_code, 1) << reply.Describe();
  json args = reply.Arguments();
  ASSERT_TRUE(args.is_object()) << reply.Describe();
  EXPECT_TRUE(args.value("rolled_back", false)) << reply.Describe();
  EXPECT_EQ(args.value("rolled_back_to", 0ull), generation) << reply.Describe();
  EXPECT_EQ(reply.VerificationState(), "failed") << reply.Describe();
  // Rolled back means the previous tables are back, port by port.
  EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
  EXPECT_EQ(master().PartitionsConf(), conf_before);
  EXPECT_EQ(master().OpenSmPid(), opensm) << "OpenSM was restarted";

  json history = History(master());
  json failed = HistoryEntry(history, generation + 1);
  ASSERT_FALSE(failed.empty()) << history.dump(2);
  EXPECT_EQ(Text(failed, "verification"), "failed") << history.dump(2);
  json current = HistoryEntry(history, history.value("current", 0ull));
  ASSERT_FALSE(current.empty()) << history.dump(2);
  EXPECT_EQ(Text(current, "hash"), HistoryEntry(history, generation).value("hash", "x")) << history.dump(2);
  if (current.value("generation", 0ull) != generation) {
    EXPECT_NE(Text(current, "applied_by").find("rollback"), std::string::npos) << history.dump(2);
  }
  EXPECT_EQ(Generation(master()), history.value("current", 0ull));

  // OpenSM buffers its log (force_log_flush FALSE): read it once it exited.
  master().Stop();
  EXPECT_NE(OpenSmLog().find("Partition configuration in error"), std::string::npos)
      << "OpenSM did not reject the corrupted file: the test did not force what it means to";
}

TEST_F(PKeyRollbackTest, RollbackRestoresTheExactPreviousTables) {
  FabricPKeyTables first = Tables();
  std::string conf_first = master().PartitionsConf();
  std::optional<pid_t> opensm = master().OpenSmPid();
  AddTenantC();
  ApplyAndExpectVerified();
  FabricPKeyTables second = Tables();
  std::string conf_second = master().PartitionsConf();
  master().config().Remove("tenant-b");
  ApplyAndExpectVerified();
  ASSERT_NE(DescribePKeyDifferences(second, Tables()), "");

  SmctlResult back = ApplyWithWait(master(), {"rollback"});  // to the previous one: the second
  EXPECT_EQ(back.exit_code, 0) << back.Describe();
  EXPECT_EQ(back.VerificationState(), "verified") << back.Describe();
  EXPECT_EQ(DescribePKeyDifferences(second, Tables()), "");
  EXPECT_EQ(master().PartitionsConf(), conf_second);

  SmctlResult to_first = ApplyWithWait(master(), {"rollback", "1"});
  EXPECT_EQ(to_first.exit_code, 0) << to_first.Describe();
  EXPECT_EQ(DescribePKeyDifferences(first, Tables()), "");
  EXPECT_EQ(master().PartitionsConf(), conf_first);
  EXPECT_EQ(master().OpenSmPid(), opensm) << "OpenSM was restarted";

  json history = History(master());
  json current = HistoryEntry(history, history.value("current", 0ull));
  EXPECT_EQ(Text(current, "hash"), HistoryEntry(history, 1).value("hash", "x")) << history.dump(2);
  EXPECT_EQ(Text(current, "applied_by"), "rollback by uid 0") << history.dump(2);
}

TEST_F(PKeyRollbackTest, HistoryListsGenerationsWithWhoAppliedThem) {
  AddTenantC();
  ApplyAndExpectVerified();
  json history = History(master());
  EXPECT_EQ(history.value("current", 0ull), 2u) << history.dump(2);
  ASSERT_EQ(history.value("generations", json::array()).size(), 2u) << history.dump(2);
  const std::regex iso8601(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)");
  int current = 0;
  for (const json& entry : history.value("generations", json::array())) {
    EXPECT_TRUE(std::regex_match(Text(entry, "applied_at"), iso8601)) << entry.dump();
    EXPECT_EQ(Text(entry, "hash").size(), 64u) << entry.dump();
    EXPECT_TRUE(entry.contains("summary") && entry.contains("verification")) << entry.dump();
    current += entry.value("current", false);
  }
  EXPECT_EQ(current, 1) << history.dump(2);
  EXPECT_EQ(HistoryEntry(history, 1).value("applied_by", ""), "start") << history.dump(2);
  json second = HistoryEntry(history, 2);
  EXPECT_EQ(Text(second, "applied_by"), "uid 0") << history.dump(2);
  EXPECT_EQ(Text(second, "verification"), "verified") << history.dump(2);
  EXPECT_TRUE(second.value("current", false));

  // On disk: the generation's files are the running ones.
  std::string dir = master().StatePath("generations/2/");
  EXPECT_EQ(FileOr(dir + "partitions.conf", "missing"), master().PartitionsConf());
  EXPECT_EQ(FileOr(dir + "opensm.conf", "missing"),
            FileOr(master().StatePath("opensm.conf"), "x"));
  EXPECT_EQ(FileOr(dir + "smsupd.yaml", "missing"), master().config().Yaml());
  json meta = json::parse(FileOr(dir + "meta.json", ""), nullptr, false);
  ASSERT_TRUE(meta.is_object()) << dir << "meta.json";
  EXPECT_EQ(Text(meta, "reason"), "reload");
  EXPECT_EQ(meta.value("uid", -1), 0);

  SmctlResult text = master().Smctl({"history"});
  EXPECT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_NE(text.out.find("uid 0"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace smsupd::testbed::pkey
