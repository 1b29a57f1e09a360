// `smctl why A B` on the simulated fabric with the real smsupd and OpenSM:
// the answer comes from the P_Key tables read at request time, the config's
// intent beside it, and the exit code tells yes (0), no (1) and an unknown
// name (4) apart.
#include <gtest/gtest.h>

#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;

// An inventory host whose GUID no port of the fabric has.
constexpr Guid kAbsentGuid = 0x0002c90300ffff01;

class PKeyWhyTest : public PKeyApplyTest {
 protected:
  // tenant-c: H1_3 and H2_2 both limited; they share nothing else but the
  // default partition, where both are limited too. stor09 is not cabled.
  void ConfigureNode(SmsupdConfig& config) override {
    config.partitions.push_back(
        {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H1_3", "limited"), HostMember("H2_2", "limited")}});
    config.hosts["stor09"] = kAbsentGuid;
  }

  SmctlResult Why(const std::string& a, const std::string& b) {
    return master().Smctl({"why", a, b, "--json"}, std::chrono::milliseconds(60000));
  }

  static json Partition(const json& reply, const std::string& pkey) {
    for (const json& p : reply.value("partitions", json::array()))
      if (Text(p, "pkey") == pkey) return p;
    return json::object();
  }
};

TEST_F(PKeyWhyTest, LimitedOnlyPartitionIsNoUntilAReloadMakesOneAFullMember) {
  SmctlResult no = Why("H1_3", "H2_2");
  ASSERT_EQ(no.exit_code, 1) << no.Describe();
  json reply = no.Json();
  EXPECT_EQ(Text(reply, "answer"), "no") << no.Describe();
  EXPECT_EQ(Text(reply, "reason"),
            "H1_3 is a limited member of 0x0030 (tenant-c), 0x7fff (default) and H2_2 too; "
            "they share no partition with a full member")
      << no.Describe();
  EXPECT_TRUE(reply.value("ok", false)) << "a 'no' is an answer, not an error";
  for (const char* key : {"name", "guid", "lid", "node_description"}) {
    EXPECT_TRUE(reply["a"].contains(key)) << key << " " << no.Describe();
    EXPECT_TRUE(reply["b"].contains(key)) << key << " " << no.Describe();
  }
  EXPECT_EQ(Text(reply["a"], "name"), "H1_3");
  json c = Partition(reply, "0x0030");
  ASSERT_FALSE(c.empty()) << no.Describe();
  EXPECT_EQ(Text(c, "name"), "tenant-c");
  EXPECT_EQ(Text(c["a"], "intent"), "limited");
  EXPECT_EQ(Text(c["a"], "fact"), "limited");
  EXPECT_EQ(Text(c["b"], "fact"), "limited");
  EXPECT_FALSE(c.value("usable", true));
  EXPECT_EQ(c.value("generation", 0ull), Generation(master()));
  EXPECT_FALSE(Partition(reply, "0x7fff").empty()) << "the default partition's part";

  // The same ports by GUID and by LID.
  SmctlResult by_address = Why(Text(reply["a"], "guid"), Text(reply["b"], "lid"));
  EXPECT_EQ(by_address.exit_code, 1) << by_address.Describe();
  EXPECT_EQ(Text(by_address.Json(), "reason"), Text(reply, "reason"));

  // The text form: the answer first.
  SmctlResult text = master().Smctl({"why", "H1_3", "H2_2"}, std::chrono::milliseconds(60000));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out.rfind("no: H1_3 is a limited member of 0x0030 (tenant-c)", 0), 0u) << text.Describe();

  master().config().Find("tenant-c")->members = {HostMember("H1_3", "full"), HostMember("H2_2", "limited")};
  ApplyAndExpectVerified();
  SmctlResult yes = Why("H1_3", "H2_2");
  ASSERT_EQ(yes.exit_code, 0) << yes.Describe();
  json after = yes.Json();
  EXPECT_EQ(Text(after, "answer"), "yes");
  EXPECT_EQ(Text(after, "reason"), "H1_3 and H2_2 share 0x0030 (tenant-c): H1_3 full, H2_2 limited")
      << yes.Describe();
  json changed = Partition(after, "0x0030");
  EXPECT_EQ(Text(changed["a"], "intent"), "full");
  EXPECT_EQ(Text(changed["a"], "fact"), "full");
  EXPECT_TRUE(changed.value("usable", false));
  EXPECT_EQ(changed.value("generation", 0ull), Generation(master())) << "the reload changed it";
}

TEST_F(PKeyWhyTest, AHostWithNoPortInTheFabricGetsAClearAnswer) {
  SmctlResult result = Why("H1_3", "stor09");
  EXPECT_EQ(result.exit_code, 1) << result.Describe();
  json reply = result.Json();
  EXPECT_TRUE(reply.value("ok", false)) << result.Describe();
  EXPECT_EQ(Text(reply, "reason"), "stor09 has no port in the fabric (not discovered)") << result.Describe();
  EXPECT_FALSE(reply["b"].value("in_fabric", true));
  SmctlResult text = master().Smctl({"why", "stor09", "H1_3"}, std::chrono::milliseconds(60000));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out.rfind("no: stor09 has no port in the fabric (not discovered)\n", 0), 0u) << text.Describe();
}

TEST_F(PKeyWhyTest, AnUnknownNameExits4WithTheClosestNames) {
  SmctlResult result = Why("H1_33", "H2_2");
  EXPECT_EQ(result.exit_code, 4) << result.Describe();
  json reply = result.Json();
  EXPECT_FALSE(reply.value("ok", true));
  EXPECT_EQ(Text(reply["error"], "code"), "unknown-name") << result.Describe();
  EXPECT_NE(Text(reply["error"], "message").find("closest: H1_3"), std::string::npos) << result.Describe();
  SmctlResult text = master().Smctl({"why", "H2_22", "H1_3"}, std::chrono::milliseconds(60000));
  EXPECT_EQ(text.exit_code, 4);
  EXPECT_NE(text.err.find("unknown name 'H2_22'"), std::string::npos) << text.Describe();
  EXPECT_NE(text.err.find("closest: H2_2"), std::string::npos) << text.Describe();
}

}  // namespace
}  // namespace smsupd::testbed::pkey
