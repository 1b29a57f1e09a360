// On the standby, whose OpenSM does not program the fabric, a reload
// verifies that the fabric matches the standby's own config and reports
// drift when it does not (a failover would change the isolation).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

class PKeyDriftTest : public PKeyApplyTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(PKeyApplyTest::SetUp());
    // Started once the master is MASTER (two SMs started together may both
    // become master).
    standby_ = StartNode(fabric().topology().management_nodes()[1], "standby", "STANDBY");
    ASSERT_NE(standby_, nullptr);
    ASSERT_FALSE(HasFailure());
  }
  bool Mentions(const SmctlResult& result, const std::string& word) {
    return Lower(result.out).find(word) != std::string::npos;
  }
  ManagementNode* standby_ = nullptr;
};

TEST_F(PKeyDriftTest, StandbyReportsDriftWhenItsConfigDiffersFromTheMasters) {
  FabricPKeyTables before = Tables();
  SmctlResult same = ApplyWithWait(*standby_, {"reload"});
  EXPECT_EQ(same.exit_code, 0) << same.Describe();
  EXPECT_EQ(same.VerificationState(), "verified") << same.Describe();
  EXPECT_FALSE(Mentions(standby_->Smctl({"--json", "status"}), "drift"));

  standby_->config().partitions.push_back(
      {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_4", "full")}});
  ASSERT_TRUE(standby_->WriteConfig().ok());
  SmctlResult drift = ApplyWithWait(*standby_, {"reload"});
  json args = drift.Arguments();
  ASSERT_TRUE(args.is_object()) << drift.Describe();
  EXPECT_EQ(drift.VerificationState(), "drift") << drift.Describe();
  EXPECT_FALSE(args.value("rolled_back", false)) << "a standby has nothing to roll back: " << drift.Describe();
  EXPECT_TRUE(Mentions(standby_->Smctl({"--json", "status"}), "drift")) << standby_->Smctl({"--json", "status"}).out;
  EXPECT_TRUE(Mentions(standby_->Smctl({"--json", "events"}), "drift")) << standby_->Smctl({"--json", "events"}).out;
  json history = History(*standby_);
  EXPECT_EQ(Text(HistoryEntry(history, history.value("current", 0ull)), "verification"), "drift")
      << history.dump(2);
  // The standby's OpenSM programs nothing: the fabric is still the master's.
  EXPECT_EQ(DescribePKeyDifferences(before, Tables()), "");
  EXPECT_EQ(MismatchesWith(master()), "");

  // The same change on the master too: no drift any more.
  master().config().partitions.push_back(standby_->config().partitions.back());
  ApplyAndExpectVerified();
  SmctlResult agreed = ApplyWithWait(*standby_, {"reload"});
  EXPECT_EQ(agreed.exit_code, 0) << agreed.Describe();
  EXPECT_EQ(agreed.VerificationState(), "verified") << agreed.Describe();
  EXPECT_FALSE(Mentions(standby_->Smctl({"--json", "status"}), "drift")) << standby_->Smctl({"--json", "status"}).out;
}

}  // namespace
}  // namespace smsupd::testbed::pkey
