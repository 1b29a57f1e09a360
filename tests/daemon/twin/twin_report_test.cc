// The live tables against the twin's: what changes, by name and count.
#include <gtest/gtest.h>

#include <random>

#include "daemon/twin/twin_report.h"

namespace smsupd::twin {
namespace {

StatePort Ca(Guid guid, uint16_t lid, std::vector<uint16_t> pkeys) {
  StatePort p;
  p.port_guid = guid;
  p.node_guid = guid;
  p.port_num = 1;
  p.lid = lid;
  p.name = "host" + std::to_string(guid);
  p.pkeys = std::move(pkeys);
  p.read = true;
  return p;
}

StateSwitch Sw(Guid guid, uint16_t lid, std::vector<uint8_t> lft) {
  StateSwitch s;
  s.guid = guid;
  s.lid = lid;
  s.name = "leaf" + std::to_string(guid);
  s.lft = std::move(lft);
  s.read = true;
  return s;
}

// Two hosts (LIDs 2, 3) on one switch (LID 1): exits 0 (itself), 1, 2.
FabricState Live() {
  FabricState s;
  StatePort sw0 = Ca(0xa0, 1, {0xffff});
  sw0.is_switch = true;
  s.ports = {Ca(0x11, 2, {0xffff, 0x8010}), Ca(0x21, 3, {0x7fff}), sw0};
  s.switches = {Sw(0xa0, 1, {255, 0, 1, 2})};
  return s;
}

TEST(TwinReportTest, NoChangeWhenTheTablesAgree) {
  TableComparison t = CompareFabricStates(Live(), Live());
  EXPECT_EQ(t.pkey_changes_total, 0);
  EXPECT_EQ(t.entries_moved, 0);
  EXPECT_EQ(t.switches_compared, 1);
  EXPECT_EQ(t.unreachable_total, 0);
}

TEST(TwinReportTest, PKeyTablesCompareAsSetsOfEntries) {
  FabricState twin = Live();
  twin.ports[0].pkeys = {0x8010, 0x0000, 0xffff, 0x8000};  // same entries, other order, empty slots
  twin.ports[1].pkeys = {0x7fff, 0x0020};
  TableComparison t = CompareFabricStates(Live(), twin);
  ASSERT_EQ(t.pkey_changes_total, 1);
  EXPECT_EQ(t.pkey_changes[0].guid, 0x21u);
  EXPECT_EQ(t.pkey_changes[0].after, (std::set<uint16_t>{0x0020, 0x7fff}));
}

TEST(TwinReportTest, MovedEntriesAreMatchedByGuidWhenLidsDiffer) {
  FabricState twin = Live();
  // The twin gave the hosts each other's LIDs; routes to them are the same.
  twin.ports[0].lid = 3;
  twin.ports[1].lid = 2;
  twin.switches[0].lft = {255, 0, 2, 1};
  TableComparison t = CompareFabricStates(Live(), twin);
  EXPECT_EQ(t.entries_moved, 0);
  EXPECT_EQ(t.lid_changes, 2);
  twin.switches[0].lft = {255, 0, 2, 2};  // host 0x11 (twin LID 3) now out of port 2
  t = CompareFabricStates(Live(), twin);
  EXPECT_EQ(t.entries_moved, 1);
  EXPECT_EQ(t.switches_changed, 1);
}

TEST(TwinReportTest, UnreachableLidsAndTheLmcRange) {
  FabricState twin = Live();
  twin.switches[0].lft = {255, 0, 1};  // LID 3 beyond the table
  TableComparison t = CompareFabricStates(Live(), twin);
  ASSERT_EQ(t.unreachable_total, 1);
  EXPECT_EQ(t.unreachable[0].lid, 3);
  EXPECT_EQ(t.entries_moved, 1);
  FabricState lmc = Live();
  lmc.ports[0].lmc = 1;  // LIDs 2 and 3 for host 0x11 in the twin: one more entry
  TableComparison more = CompareFabricStates(Live(), lmc);
  EXPECT_EQ(more.entries_moved, 1);
}

TEST(TwinReportTest, ReportSaysFallbackAndChanged) {
  TwinReport r;
  r.tables = CompareFabricStates(Live(), Live());
  r.engine_asked = "ftree";
  r.opensm.engine_used = "minhop";
  r.opensm.engines_failed = {"ftree: cannot build lid matrices"};
  EXPECT_TRUE(r.engine_fallback());
  EXPECT_TRUE(r.changed());
  std::string text = FormatTwinReport(r);
  EXPECT_NE(text.find("ftree asked, minhop used (fallback)"), std::string::npos) << text;
  EXPECT_NE(text.find("ftree: cannot build lid matrices"), std::string::npos) << text;
  r.opensm.engine_used = "ftree";
  EXPECT_FALSE(r.changed());
  r.live_unread = 3;  // an incomplete comparison is never "no change"
  EXPECT_TRUE(r.changed());
  EXPECT_NE(FormatTwinReport(r).find("INCOMPLETE: 3 live"), std::string::npos);
  EXPECT_EQ(ToJson(r)["routing"]["fallback"], false);
}

TEST(TwinReportTest, StateJsonRoundTripsAndRefusesWhatIsOutOfShape) {
  FabricState live = Live();
  auto back = FabricStateFromJson(ToJson(live));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(CompareFabricStates(live, *back).pkey_changes_total, 0);
  nlohmann::json bad = ToJson(live);
  bad["ports"][0]["lid"] = 70000;
  EXPECT_FALSE(FabricStateFromJson(bad).ok());
  bad = ToJson(live);
  bad["switches"][0]["lft"] = nlohmann::json::array({1, 2, 300});
  EXPECT_FALSE(FabricStateFromJson(bad).ok());
  bad = ToJson(live);
  bad["ports"][0]["guid"] = 5;
  EXPECT_FALSE(FabricStateFromJson(bad).ok());
  EXPECT_FALSE(FabricStateFromJson(nlohmann::json::array()).ok());
}

TEST(TwinReportTest, MutatedStateFilesNeverThrow) {
  const std::string text = ToJson(Live()).dump();
  std::mt19937 random(11);
  for (int round = 0; round < 500; ++round) {
    std::string mutated = text;
    for (int i = 0; i < 4; ++i) mutated[random() % mutated.size()] = static_cast<char>(random() % 128);
    auto json = nlohmann::json::parse(mutated, nullptr, false);
    if (json.is_discarded()) continue;
    auto state = FabricStateFromJson(json);
    if (state.ok()) (void)CompareFabricStates(Live(), *state);
  }
}

}  // namespace
}  // namespace smsupd::twin
