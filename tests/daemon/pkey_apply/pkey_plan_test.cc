// `smctl plan [FILE] [--json] [--exit-code]` previews a change against the
// applied generation and changes nothing; config management tells
// "no change" (0), "changes" (1) and "invalid" (4) apart.
#include <gtest/gtest.h>

#include "common/atomic_file.h"
#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;

class PKeyPlanTest : public PKeyApplyTest {
 protected:
  std::string WriteCandidate(const std::string& text) {
    std::string path = master().dir() + "/candidate.yaml";
    EXPECT_TRUE(WriteFileAtomically(path, text).ok());
    return path;
  }
  // Moves H1_4 from tenant-a to tenant-b in master().config().
  void MoveH1_4() {
    auto& a = master().config().Find("tenant-a")->members;
    a.erase(std::find(a.begin(), a.end(), HostMember("H1_4", "full")));
    master().config().Find("tenant-b")->members.push_back(HostMember("H1_4", "full"));
  }
  // The plan's entry for partition `name` (empty when absent).
  static json FindPartition(const json& plan, const std::string& name) {
    for (const json& p : plan.value("partitions", json::array()))
      if (Text(p, "name") == name) return p;
    return json::object();
  }
};

TEST_F(PKeyPlanTest, ExitCodesTellNoChangeChangesAndInvalidApart) {
  std::uint64_t generation = Generation(master());
  std::string conf = master().PartitionsConf();
  std::string same = WriteCandidate(master().config().Yaml());
  EXPECT_EQ(master().Smctl({"plan", same, "--exit-code"}).exit_code, 0);

  MoveH1_4();
  std::string changed = WriteCandidate(master().config().Yaml());
  SmctlResult with_code = master().Smctl({"plan", changed, "--exit-code"});
  EXPECT_EQ(with_code.exit_code, 1) << with_code.Describe();
  EXPECT_EQ(master().Smctl({"plan", changed}).exit_code, 0) << "changes without --exit-code";

  std::string invalid = WriteCandidate(master().config().Yaml() + "no_such_key: 1\n");
  SmctlResult refused = master().Smctl({"plan", invalid, "--exit-code"});
  EXPECT_EQ(refused.exit_code, 4) << refused.Describe();
  EXPECT_EQ(master().Smctl({"plan", master().dir() + "/missing.yaml", "--exit-code"}).exit_code, 6)
      << "unreadable";

  // Without FILE the daemon plans its config file on disk.
  ASSERT_TRUE(master().WriteConfig().ok());
  EXPECT_EQ(master().Smctl({"plan", "--exit-code"}).exit_code, 1);

  // Planning applied nothing.
  EXPECT_EQ(Generation(master()), generation);
  EXPECT_EQ(master().PartitionsConf(), conf);
  EXPECT_NE(MismatchesWith(master()), "") << "the fabric changed without a reload";
}

TEST_F(PKeyPlanTest, JsonNamesPartitionsMembersPortsAndOptions) {
  MoveH1_4();
  master().config().partitions.push_back({"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full")}});
  master().config().Remove("tenant-b");
  master().config().Find("tenant-a")->mtu = 2048;
  master().config().opensm_options["sweep_interval"] = "17";
  std::string path = WriteCandidate(master().config().Yaml());
  SmctlResult result = master().Smctl({"plan", path, "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.Describe();
  json plan = result.Arguments();
  ASSERT_TRUE(plan.is_object()) << result.Describe();
  for (const char* key : {"changed", "summary", "partitions", "options", "ports_changed", "needs_restart",
                          "other", "valid", "diagnostics"})
    EXPECT_TRUE(plan.contains(key)) << "no '" << key << "' in " << plan.dump(2);
  EXPECT_TRUE(plan.value("changed", false));
  EXPECT_TRUE(plan.value("valid", false));
  EXPECT_FALSE(plan.value("needs_restart", true)) << "sweep_interval is re-read on SIGHUP";

  json added = FindPartition(plan, "tenant-c");
  json removed = FindPartition(plan, "tenant-b");
  json changed = FindPartition(plan, "tenant-a");
  EXPECT_EQ(Text(added, "kind"), "added") << plan.dump(2);
  EXPECT_EQ(Text(removed, "kind"), "removed") << plan.dump(2);
  EXPECT_EQ(Text(changed, "kind"), "changed") << plan.dump(2);
  EXPECT_NE(changed.dump().find("mtu"), std::string::npos) << changed.dump(2);
  bool h1_4_left = false;
  for (const json& member : changed.value("members", json::array()))
    h1_4_left |= Text(member, "host") == "H1_4" && Text(member, "guid") == FormatGuid(master().config().hosts["H1_4"]) &&
                 Text(member, "before") == "full" && Text(member, "after") == "";
  EXPECT_TRUE(h1_4_left) << changed.dump(2);

  // Ports whose table changes: H2_2, H2_3 (tenant-b gone), H2_4 (tenant-c),
  // H1_4 (leaves tenant-a, tenant-b gone).
  EXPECT_EQ(plan.value("ports_changed", -1), 4) << plan.dump(2);
  bool sweep_interval = false;
  for (const json& option : plan.value("options", json::array()))
    sweep_interval |= Text(option, "name") == "sweep_interval" && Text(option, "after") == "17" &&
                      Text(option, "needs_restart") == "false";
  EXPECT_TRUE(sweep_interval) << plan.dump(2);

  SmctlResult text = master().Smctl({"plan", path});
  EXPECT_EQ(text.exit_code, 0) << text.Describe();
  EXPECT_NE(text.out.find("tenant-c"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("H1_4"), std::string::npos) << text.out;
}

TEST_F(PKeyPlanTest, AStartupOnlyOptionNeedsARestart) {
  master().config().opensm_options["routing_engine"] = "ftree";
  std::string path = WriteCandidate(master().config().Yaml());
  SmctlResult result = master().Smctl({"plan", path, "--json", "--exit-code"});
  EXPECT_EQ(result.exit_code, 1) << result.Describe();
  json plan = result.Arguments();
  ASSERT_TRUE(plan.is_object()) << result.Describe();
  EXPECT_TRUE(plan.value("needs_restart", false)) << plan.dump(2);
  EXPECT_EQ(plan.value("ports_changed", -1), 0) << plan.dump(2);
}

}  // namespace
}  // namespace smsupd::testbed::pkey
