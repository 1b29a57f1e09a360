// The decision behind `smctl why A B` and the names it accepts: table-driven,
// memberships in, answer and reason out.
#include "daemon/pkey/why_decision.h"

#include <gtest/gtest.h>

#include "daemon/pkey/why_names.h"

namespace smsupd {
namespace {

using M = WhyMembership;

WhyEnd End(const std::string& name) {
  WhyEnd end;
  end.name = name;
  end.guid = name == "gpu01" ? 0x10 : 0x20;
  end.lid = name == "gpu01" ? 5 : 6;
  return end;
}

// Intent and fact the same on both sides.
WhyPartition Same(std::uint16_t pkey, const std::string& name, M a, M b) {
  return {pkey, name, a, b, a, b, std::nullopt};
}

TEST(WhyDecisionTest, LimitedWithLimitedIsNoWithThatReason) {
  WhyAnswer answer = DecideWhy(End("gpu01"), End("stor01"),
                               {Same(0x0030, "tenant-c", M::kLimited, M::kLimited),
                                Same(0x7fff, "Default", M::kLimited, M::kLimited)});
  EXPECT_FALSE(answer.yes);
  EXPECT_EQ(answer.FirstLine(),
            "no: gpu01 is a limited member of 0x0030 (tenant-c), 0x7fff (default) and stor01 too; "
            "they share no partition with a full member");
  ASSERT_EQ(answer.partitions.size(), 2u);
  EXPECT_TRUE(answer.partitions[0].LimitedWithLimited());
  EXPECT_EQ(answer.notes, std::vector<std::string>{"the fabric's tables are as the config says"});
}

TEST(WhyDecisionTest, FullWithLimitedIsYesNamingThePartitionAndBothMemberships) {
  WhyAnswer answer = DecideWhy(End("gpu01"), End("stor01"),
                               {Same(0x7fff, "", M::kFull, M::kLimited),
                                Same(0x0010, "tenant-a", M::kFull, M::kLimited)});
  EXPECT_TRUE(answer.yes);
  EXPECT_EQ(answer.FirstLine(),
            "yes: gpu01 and stor01 share 0x0010 (tenant-a): gpu01 full, stor01 limited "
            "(1 more usable partition(s) below)");
  EXPECT_EQ(answer.partitions.front().pkey, 0x0010) << "a named partition before the default one";
}

TEST(WhyDecisionTest, OnlyTheDefaultPartitionIsSaidSo) {
  WhyAnswer answer = DecideWhy(End("gpu01"), End("stor01"),
                               {Same(0x7fff, "", M::kFull, M::kLimited),
                                Same(0x0020, "tenant-b", M::kFull, M::kNone)});
  EXPECT_TRUE(answer.yes);
  EXPECT_EQ(answer.FirstLine(),
            "yes: gpu01 and stor01 share only the default partition 0x7fff (default): gpu01 full, stor01 limited");
}

TEST(WhyDecisionTest, NothingSharedListsWhatEachHolds) {
  WhyAnswer answer = DecideWhy(End("gpu01"), End("stor01"),
                               {Same(0x0010, "tenant-a", M::kFull, M::kNone),
                                Same(0x0020, "tenant-b", M::kNone, M::kFull)});
  EXPECT_EQ(answer.FirstLine(),
            "no: gpu01 and stor01 share no partition (gpu01: 0x0010 (tenant-a); stor01: 0x0020 (tenant-b))");
}

TEST(WhyDecisionTest, IntentAndFactDisagreeingIsSaidExplicitly) {
  // The config made gpu01 a full member; the fabric still has it limited.
  WhyPartition p{0x0030, "tenant-c", M::kFull, M::kLimited, M::kLimited, M::kLimited, 4};
  WhyAnswer answer = DecideWhy(End("gpu01"), End("stor01"), {p});
  EXPECT_FALSE(answer.yes);
  EXPECT_NE(answer.reason.find("the config differs: it makes them share 0x0030 (tenant-c)"), std::string::npos)
      << answer.reason;
  ASSERT_EQ(answer.notes.size(), 1u);
  EXPECT_EQ(answer.notes[0], "0x0030 (tenant-c): gpu01 is full in the config but limited on the fabric");

  // The other way round: the fabric allows what the config does not.
  WhyPartition q{0x0030, "tenant-c", M::kLimited, M::kLimited, M::kFull, M::kLimited, 4};
  WhyAnswer stale = DecideWhy(End("gpu01"), End("stor01"), {q});
  EXPECT_TRUE(stale.yes);
  EXPECT_NE(stale.reason.find("the config differs: by it they share no usable partition"), std::string::npos)
      << stale.reason;
}

TEST(WhyDecisionTest, AHostWithNoPortInTheFabricIsAClearNo) {
  WhyEnd missing = End("stor09");
  missing.in_fabric = false;
  WhyAnswer answer = DecideWhy(End("gpu01"), missing, {Same(0x0010, "tenant-a", M::kFull, M::kFull)});
  EXPECT_FALSE(answer.yes);
  EXPECT_EQ(answer.FirstLine(), "no: stor09 has no port in the fabric (not discovered)");
}

TEST(WhyDecisionTest, ATableNotReadIsNeverHealthy) {
  WhyEnd slow = End("stor01");
  slow.read_error = "timed out: not read within 5000 ms";
  WhyPartition p{0x0010, "tenant-a", M::kFull, M::kFull, M::kFull, M::kUnread, std::nullopt};
  WhyAnswer answer = DecideWhy(End("gpu01"), slow, {p});
  EXPECT_FALSE(answer.yes);
  EXPECT_EQ(answer.FirstLine(),
            "no: the P_Key table of stor01 was not read (timed out: not read within 5000 ms): "
            "whether they share a partition is not known");
  EXPECT_EQ(std::string(FactName(answer.partitions[0].fact_b)), "unread");
  EXPECT_FALSE(answer.partitions[0].Usable());
}

TEST(WhyDecisionTest, JsonCarriesBothSidesIntentAndFact) {
  WhyPartition p{0x7fff, "", M::kLimited, M::kFull, M::kLimited, M::kNone, 3};
  nlohmann::json json = ToJson(p);
  EXPECT_EQ(json["pkey"], "0x7fff");
  EXPECT_EQ(json["a"]["intent"], "limited");
  EXPECT_EQ(json["b"]["intent"], "full");
  EXPECT_EQ(json["b"]["fact"], "absent");
  EXPECT_EQ(json["default"], true);
  EXPECT_EQ(json["generation"], 3);
  EXPECT_EQ(json["usable"], false);
}

std::vector<DiscoveredPort> Ports() {
  DiscoveredPort a{0x10, 0x1, NodeType::kCa, 1, 5, "gpu01 HCA-1", false, 2};
  DiscoveredPort b{0x11, 0x1, NodeType::kCa, 2, 7, "gpu01 HCA-1", false, 2};
  DiscoveredPort c{0x20, 0x2, NodeType::kCa, 1, 6, "stor01 HCA-1", false, 2};
  return {a, b, c};
}

const Inventory kHosts = {{"gpu01", {0x10, 0x11}}, {"stor01", {0x20}}, {"stor09", {0x99}}};

TEST(WhyNamesTest, HostNodeDescriptionGuidAndLidResolve) {
  auto host = std::get<NamedPorts>(ResolveWhyName("gpu01", kHosts, Ports()));
  EXPECT_EQ(host.name, "gpu01");
  EXPECT_EQ(host.ports.size(), 2u) << "every port of the host";
  auto described = std::get<NamedPorts>(ResolveWhyName("stor01 HCA-1", kHosts, Ports()));
  EXPECT_EQ(described.name, "stor01");
  auto guid = std::get<NamedPorts>(ResolveWhyName("0x0000000000000011", kHosts, Ports()));
  ASSERT_EQ(guid.ports.size(), 1u);
  EXPECT_EQ(guid.ports[0].port_num, 2);
  auto lid = std::get<NamedPorts>(ResolveWhyName("6", kHosts, Ports()));
  ASSERT_EQ(lid.ports.size(), 1u);
  EXPECT_EQ(lid.name, "stor01");
}

TEST(WhyNamesTest, AnInventoryHostNotDiscoveredIsKnownWithoutPorts) {
  auto named = std::get<NamedPorts>(ResolveWhyName("stor09", kHosts, Ports()));
  EXPECT_TRUE(named.ports.empty());
  EXPECT_EQ(named.missing, std::vector<Guid>{0x99});
  auto by_guid = std::get<NamedPorts>(ResolveWhyName("0x0000000000000099", kHosts, Ports()));
  EXPECT_EQ(by_guid.name, "stor09");
  EXPECT_TRUE(by_guid.ports.empty());
  EXPECT_TRUE(std::holds_alternative<UnknownName>(ResolveWhyName("0x0000000000000098", kHosts, Ports())))
      << "a GUID nobody has";
}

TEST(WhyNamesTest, AnUnknownNameGetsTheClosestNames) {
  auto unknown = std::get<UnknownName>(ResolveWhyName("stor1", kHosts, Ports()));
  ASSERT_FALSE(unknown.suggestions.empty());
  EXPECT_EQ(unknown.suggestions.front(), "stor01");
  EXPECT_LE(unknown.suggestions.size(), kMaxWhySuggestions);
  EXPECT_TRUE(std::holds_alternative<UnknownName>(ResolveWhyName("12345", kHosts, Ports())))
      << "a LID nobody has";
  EXPECT_TRUE(std::get<UnknownName>(ResolveWhyName("zzzzzzzzzzzz", kHosts, Ports())).suggestions.empty());
}

}  // namespace
}  // namespace smsupd
