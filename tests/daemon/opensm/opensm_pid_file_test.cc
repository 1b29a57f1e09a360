#include "daemon/opensm/opensm_pid_file.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

OpenSmPidRecord Record() {
  return {4242, 987654, "/usr/sbin/opensm", "/usr/sbin/opensm", 0x0002c90300a1b2c3,
          "/var/lib/smsupd/opensm.conf"};
}

ProcessFacts MatchingFacts() {
  ProcessFacts facts;
  facts.exe = "/usr/sbin/opensm";
  facts.cmdline = {"/usr/sbin/opensm", "-F", "/var/lib/smsupd/opensm.conf"};
  facts.start_ticks = 987654;
  return facts;
}

OpenSmIdentity Wanted() {
  return {"/usr/sbin/opensm", 0x0002c90300a1b2c3, "/var/lib/smsupd/opensm.conf", "/usr/sbin/opensm"};
}

TEST(OpenSmPidFileTest, RecordSurvivesFormatAndParse) {
  auto parsed = ParsePidRecord(FormatPidRecord(Record()));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->pid, 4242);
  EXPECT_EQ(parsed->start_ticks, 987654u);
  EXPECT_EQ(parsed->exe, "/usr/sbin/opensm");
  EXPECT_EQ(parsed->port_guid, 0x0002c90300a1b2c3u);
  EXPECT_EQ(parsed->conf_path, "/var/lib/smsupd/opensm.conf");
}

TEST(OpenSmPidFileTest, IncompleteOrGarbledRecordsAreRefused) {
  EXPECT_FALSE(ParsePidRecord("").ok());
  EXPECT_FALSE(ParsePidRecord("pid=12\n").ok());
  std::string text = FormatPidRecord(Record());
  EXPECT_FALSE(ParsePidRecord(text.replace(text.find("4242"), 4, "42x2")).ok());
}

TEST(OpenSmPidFileTest, AdoptsOnlyWhenEveryFactMatches) {
  EXPECT_TRUE(CheckAdoptable(Record(), MatchingFacts(), Wanted()).ok());
}

// A script runs its interpreter: what it shows cannot be known up front,
// and the record's own facts decide.
TEST(OpenSmPidFileTest, AScriptIsJudgedByItsRecord) {
  OpenSmPidRecord record = Record();
  ProcessFacts facts = MatchingFacts();
  OpenSmIdentity wanted = Wanted();
  record.exe = facts.exe = "/usr/bin/dash";
  wanted.exe = "";
  EXPECT_TRUE(CheckAdoptable(record, facts, wanted).ok());
}

TEST(OpenSmPidFileTest, ReplacedBinaryStillCounts) {
  ProcessFacts facts = MatchingFacts();
  facts.exe += " (deleted)";
  EXPECT_TRUE(CheckAdoptable(Record(), facts, Wanted()).ok());
}

struct Mismatch {
  const char* name;
  void (*change)(OpenSmPidRecord&, ProcessFacts&, OpenSmIdentity&);
  const char* reason;
};

TEST(OpenSmPidFileTest, RefusesWithAReasonWhenAnythingDiffers) {
  const Mismatch cases[] = {
      {"reused pid", [](auto&, auto& f, auto&) { f.start_ticks = 1; }, "pid was reused"},
      {"other program", [](auto&, auto& f, auto&) { f.exe = "/usr/bin/sleep"; }, "runs /usr/bin/sleep"},
      // A record written for another program, by mistake or on purpose:
      // everything matches but what the process runs.
      {"record of another program",
       [](auto& r, auto& f, auto&) { r.exe = f.exe = "/usr/bin/bash"; },
       "runs /usr/bin/bash, not the configured /usr/sbin/opensm"},
      {"binary behind a symlink", [](auto&, auto&, auto& w) { w.exe = "/usr/lib/opensm/opensm"; },
       "not the configured /usr/sbin/opensm"},
      {"other conf", [](auto&, auto& f, auto&) { f.cmdline[2] = "/etc/opensm/opensm.conf"; },
       "not started with -F"},
      {"no -F", [](auto&, auto& f, auto&) { f.cmdline = {"/usr/sbin/opensm"}; },
       "not started with -F"},
      {"other port", [](auto&, auto&, auto& w) { w.port_guid = 0x1234; }, "serves port"},
      {"binary changed", [](auto&, auto&, auto& w) { w.binary = "/opt/opensm"; },
       "config names /opt/opensm"},
      {"state dir moved", [](auto&, auto&, auto& w) { w.conf_path = "/srv/opensm.conf"; },
       "not /srv/opensm.conf"},
  };
  for (const auto& c : cases) {
    OpenSmPidRecord record = Record();
    ProcessFacts facts = MatchingFacts();
    OpenSmIdentity wanted = Wanted();
    c.change(record, facts, wanted);
    Status status = CheckAdoptable(record, facts, wanted);
    ASSERT_FALSE(status.ok()) << c.name;
    EXPECT_NE(status.message().find(c.reason), std::string::npos) << c.name << ": " << status.message();
  }
}

}  // namespace
}  // namespace smsupd
