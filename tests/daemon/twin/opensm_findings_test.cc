// OpenSM's log, stdout and SA dump as the twin reads them.
#include <gtest/gtest.h>

#include <random>

#include "daemon/twin/opensm_findings.h"

namespace smsupd::twin {
namespace {

constexpr char kFallbackLog[] =
    "Dec 06 01:50:00 100000 [5C0A7740] 0x03 -> OpenSM 3.3.23\n"
    "Dec 06 01:50:00 120000 [5C0A7740] 0x80 -> Entering DISCOVERING state\n"
    "Dec 06 01:50:00 130000 [5C0A7740] 0x01 -> construct_fabric: ERR AB2B: Found more than one root on fabric with maximum rank 0\n"
    "Dec 06 01:50:00 131000 [5C0A7740] 0x01 -> ucast_mgr_route: ftree: cannot build lid matrices\n"
    "Dec 06 01:50:00 132000 [5C0A7740] 0x02 -> osm_ucast_mgr_process: minhop tables configured on all switches\n"
    "Dec 06 01:50:00 140000 [5C0A7740] 0x80 -> Entering MASTER state\n"
    "Dec 06 01:50:00 350000 [5C0A7740] 0x02 -> SUBNET UP\n"
    "Dec 06 01:50:10 350000 [5C0A7740] 0x02 -> osm_ucast_mgr_process: updn tables configured on all switches\n";

TEST(OpenSmFindingsTest, RoutingFallbackAndFirstSweep) {
  OpenSmFindings f = ReadOpenSmFindings(kFallbackLog, "");
  EXPECT_TRUE(f.subnet_up);
  EXPECT_EQ(f.engine_used, "minhop");  // the first sweep's, not a later one's
  ASSERT_EQ(f.engines_failed.size(), 1u);
  EXPECT_NE(f.engines_failed[0].find("ftree: cannot build lid matrices"), std::string::npos);
  EXPECT_EQ(f.errors_total, 2);
  ASSERT_TRUE(f.first_sweep_ms);
  EXPECT_EQ(static_cast<int>(*f.first_sweep_ms + 0.5), 250);
  EXPECT_FALSE(f.default_partition_fallback);
}

TEST(OpenSmFindingsTest, PartitionsRefused) {
  std::string log =
      "Dec 06 01:50:00 100000 [1] 0x01 -> parse_part_conf: PARSE ERROR: line 3: unknown flag\n"
      "Dec 06 01:50:00 100001 [1] 0x01 -> osm_prtn_make_partitions: Partition configuration in error; retrying "
      "with default config\n";
  OpenSmFindings f = ReadOpenSmFindings(log, "");
  EXPECT_TRUE(f.default_partition_fallback);
  EXPECT_EQ(f.partition_errors.size(), 2u);
  EXPECT_FALSE(f.subnet_up);
}

TEST(OpenSmFindingsTest, KeepsOnlyTheComplaintsOfStdout) {
  std::string out =
      "-------------------------------------------------\n"
      "OpenSM 3.3.23\n"
      " Loading Cached Option:lmc = 9\n"
      " Invalid Cached Option Value:lmc = 9:Using Default:0\n"
      " Unrecognized token: \"bogus_option\"\n";
  OpenSmFindings f = ReadOpenSmFindings("", out);
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_NE(f.warnings[0].find("lmc = 9"), std::string::npos);
}

// The lines echoing what OpenSM read name paths: words in a path (a
// directory called ...Warning... or ...error...) are no complaint.
TEST(OpenSmFindingsTest, PathsInTheEchoedLinesAreNoComplaint) {
  std::string out =
      "Command Line Arguments:\n"
      " Config file is `/run/AdvisoryWarning/twin-x/opensm.conf`:\n"
      " Reading Cached Option File: /run/AdvisoryWarning/twin-x/opensm.conf\n"
      " Loading Cached Option:partition_config_file = /run/error-dir/twin-x/partitions.conf\n"
      " Log File: /run/Invalid/opensm.log\n"
      " Invalid Cached Option Value:lmc = 9:Using Default:0\n";
  OpenSmFindings f = ReadOpenSmFindings("", out);
  ASSERT_EQ(f.warnings.size(), 1u) << f.warnings.front();
  EXPECT_NE(f.warnings[0].find("lmc = 9"), std::string::npos);
}

TEST(OpenSmFindingsTest, EveryListIsBoundedAndPrintable) {
  std::string log;
  for (int i = 0; i < 1000; ++i) log += "Dec 06 01:50:00 100000 [1] 0x01 -> ERR 0000: \x1b[31m" + std::string(1000, 'y') + "\n";
  OpenSmFindings f = ReadOpenSmFindings(log, log);
  EXPECT_EQ(f.errors.size(), kMaxFindingLines);
  EXPECT_EQ(f.errors_total, 1000);
  EXPECT_LE(f.warnings.size(), kMaxFindingLines);
  for (const auto& line : f.errors) {
    EXPECT_LE(line.size(), kMaxFindingLineBytes + 3);
    EXPECT_EQ(line.find('\x1b'), std::string::npos);
  }
}

TEST(OpenSmFindingsTest, ArbitraryBytesNeverThrowOrGrowWithoutBound) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    std::string bytes(static_cast<std::size_t>(random() % 4096), '\0');
    for (char& c : bytes) c = static_cast<char>(random() % 256);
    if (round % 2) bytes = std::string(kFallbackLog).substr(0, random() % sizeof kFallbackLog) + bytes;
    OpenSmFindings f = ReadOpenSmFindings(bytes, bytes);
    EXPECT_LE(f.errors.size(), kMaxFindingLines);
    EXPECT_LE(ReadMulticastGroups(bytes).size(), kMaxMulticastGroups);
    (void)ToJson(f).dump();
  }
}

TEST(OpenSmFindingsTest, MulticastGroupsOfTheSaDump) {
  std::string dump =
      "MC Group 0xc000 (well known): mgid=0xff12401bffff0000:0x00000000ffffffff "
      "port_gid=0x0000000000000000:0x0000000000000000 qkey=0x0000000b mlid=0xc000 mtu=0x84 tclass=0x00 "
      "pkey=0xffff rate=0x83 pkt_life=0x00 sl_flow_hop=0x00000000 scope_state=0x21 proxy_join=0x0\n\n"
      "mcm_port: port_gid=0xfe80000000000000:0x0000000000100001 scope_state=0x21 proxy_join=0x0\n\n";
  auto groups = ReadMulticastGroups(dump);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].mlid, 0xc000);
  EXPECT_EQ(groups[0].pkey, 0xffff);
  EXPECT_EQ(groups[0].mtu, 4);   // 2048 bytes, selector bits dropped
  EXPECT_EQ(groups[0].rate, 3);  // 10 Gb/s
  EXPECT_EQ(groups[0].mgid, "0xff12401bffff0000:0x00000000ffffffff");
}

TEST(OpenSmFindingsTest, AskedEngine) {
  EXPECT_EQ(AskedEngine(""), "minhop");
  EXPECT_EQ(AskedEngine("(null)"), "minhop");
  EXPECT_EQ(AskedEngine("ftree,updn"), "ftree");
  EXPECT_EQ(RoutingEngineOption("# routing_engine x\nrouting_engine (null)\nrouting_engine_x 1\nrouting_engine ftree\n"),
            "ftree");
}

}  // namespace
}  // namespace smsupd::twin
