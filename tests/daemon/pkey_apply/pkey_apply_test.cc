// P_Key changes applied by `smctl reload --wait` without an OpenSM
// restart -- a partition added, removed, a host moved, a membership changed,
// a flag changed -- checked port by port with the test bed's own P_Key
// queries; an invalid file changes nothing.
#include <gtest/gtest.h>

#include "common/atomic_file.h"
#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;

class PKeyChangeTest : public PKeyApplyTest {};

TEST_F(PKeyChangeTest, AddAPartition) {
  FabricPKeyTables before = Tables();
  master().config().partitions.push_back(
      {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full"), HostMember("H1_3", "limited")}});
  ApplyAndExpectVerified();
  FabricPKeyTables after = Tables();
  // H2_4 gains 0x8030, H1_3 gains 0x0030: two ports change, nothing else.
  EXPECT_TRUE(after.entries[master().config().hosts["H2_4"]].count(0x8030));
  EXPECT_TRUE(after.entries[master().config().hosts["H1_3"]].count(0x0030));
  std::string differences = DescribePKeyDifferences(before, after);
  EXPECT_EQ(std::count(differences.begin(), differences.end(), '\n'), 2) << differences;
}

TEST_F(PKeyChangeTest, RemoveAPartition) {
  master().config().Remove("tenant-b");
  ApplyAndExpectVerified();
  FabricPKeyTables after = Tables();
  for (const auto& [guid, entries] : after.entries) {
    EXPECT_FALSE(entries.count(0x8020) || entries.count(0x0020)) << FormatGuid(guid) << " still in tenant-b";
  }
}

TEST_F(PKeyChangeTest, MoveAHostBetweenPartitions) {
  Guid h1_4 = master().config().hosts["H1_4"];
  ASSERT_TRUE(Tables().entries[h1_4].count(0x8010));
  auto& a = master().config().Find("tenant-a")->members;
  a.erase(std::find(a.begin(), a.end(), HostMember("H1_4", "full")));
  master().config().Find("tenant-b")->members.push_back(HostMember("H1_4", "full"));
  ApplyAndExpectVerified();
  FabricPKeyTables after = Tables();
  EXPECT_EQ(after.entries[h1_4], (std::set<std::uint16_t>{0x7fff, 0x8020})) << PKeyEntriesText(after.entries[h1_4]);
}

TEST_F(PKeyChangeTest, ChangeFullToLimitedAndBack) {
  Guid h1_3 = master().config().hosts["H1_3"];
  Guid h2_1 = master().config().hosts["H2_1"];
  auto& members = master().config().Find("tenant-a")->members;
  members = {HostMember("H1_3", "limited"), HostMember("H1_4", "full"), HostMember("H2_1", "full")};
  ApplyAndExpectVerified();
  FabricPKeyTables after = Tables();
  EXPECT_TRUE(after.entries[h1_3].count(0x0010) && !after.entries[h1_3].count(0x8010))
      << PKeyEntriesText(after.entries[h1_3]);
  EXPECT_TRUE(after.entries[h2_1].count(0x8010) && !after.entries[h2_1].count(0x0010))
      << PKeyEntriesText(after.entries[h2_1]);
}

TEST_F(PKeyChangeTest, ChangeAFlag) {
  FabricPKeyTables before = Tables();
  std::string conf_before = master().PartitionsConf();
  master().config().Find("tenant-a")->mtu = 4096;
  master().config().Find("tenant-b")->ipoib = true;
  json args = ApplyAndExpectVerified();
  // Flags are SA group settings: no table changes, but OpenSM got them.
  EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
  std::string conf = master().PartitionsConf();
  EXPECT_NE(conf, conf_before);
  EXPECT_NE(conf.find("mtu=5"), std::string::npos) << conf;  // IBTA code 5 = 4096 bytes
  EXPECT_NE(args.dump().find("mtu"), std::string::npos) << "the plan in the reply names the mtu change: "
                                                        << args.dump();
}

TEST_F(PKeyChangeTest, AnInvalidFileChangesNothing) {
  FabricPKeyTables before = Tables();
  std::string conf = master().PartitionsConf();
  std::uint64_t generation = Generation(master());
  std::optional<pid_t> opensm = master().OpenSmPid();
  // A member naming a host the inventory does not have, then broken YAML.
  master().config().Find("tenant-b")->members.push_back(HostMember("no-such-host", "full"));
  std::vector<std::string> invalid = {master().config().Yaml(), "version: 1\npartitions: [ {name: x\n"};
  for (const std::string& text : invalid) {
    ASSERT_TRUE(master().WriteConfigText(text).ok());
    SmctlResult reply = ApplyWithWait(master(), {"reload"});
    EXPECT_EQ(reply.exit_code, 4) << "invalid: " << reply.Describe();
    EXPECT_EQ(Generation(master()), generation);
    EXPECT_EQ(master().PartitionsConf(), conf);
    EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
    EXPECT_EQ(master().OpenSmPid(), opensm);
  }
  json history = History(master());
  EXPECT_EQ(history.value("current", 0ull), generation);
}

}  // namespace
}  // namespace smsupd::testbed::pkey
