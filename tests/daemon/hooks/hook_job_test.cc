// MakeHookJob: every documented SMSUPD_ variable, from the event and the
// status at the moment of the event (docs/hooks.md).
#include "daemon/hooks/hook_job.h"

#include <gtest/gtest.h>

#include <map>

namespace smsupd {
namespace {

constexpr Guid kLocal = 0x0002c90300000001;
constexpr Guid kPeer = 0x0002c90300000002;

std::map<std::string, std::string> Environment(const HookJob& job) {
  std::map<std::string, std::string> env;
  for (const std::string& variable : job.environment) {
    auto equals = variable.find('=');
    env[variable.substr(0, equals)] = variable.substr(equals + 1);
  }
  return env;
}

control::StatusWire Status() {
  control::StatusWire status;
  status.node = "mgmt1";
  status.local_sm = {"MASTER", 15, kLocal, 1, 42};
  status.master = control::MasterWire{kLocal, 1, 15, "mgmt1"};
  status.sms = {{kLocal, 1, "MASTER", 15, "mgmt1"}, {kPeer, 2, "STANDBY", 5, "mgmt2"}};
  status.config = {7, "abc123"};
  status.failover = control::FailoverWire{};
  status.failover->role = "master";
  return status;
}

TEST(HookJob, AMasterChangeCarriesOldNewAndPeer) {
  control::EventWire event{12, "2026-01-01T00:00:00.000Z", "master-changed",
                           {{"from", FormatGuid(kPeer)}, {"to", FormatGuid(kLocal)}, {"lid", 1}}};
  HookJob job = MakeHookJob(event, Status(), kLocal, "/etc/smsupd/hooks.d", std::chrono::milliseconds(500));
  EXPECT_EQ(job.event, "master-changed");
  EXPECT_EQ(job.directory, "/etc/smsupd/hooks.d");
  EXPECT_EQ(job.timeout, std::chrono::milliseconds(500));
  auto env = Environment(job);
  const std::map<std::string, std::string> expected = {
      {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"},
      {"SMSUPD_EVENT", "master-changed"},
      {"SMSUPD_SEQ", "12"},
      {"SMSUPD_TIME", "2026-01-01T00:00:00.000Z"},
      {"SMSUPD_NODE", "mgmt1"},
      {"SMSUPD_PORT_GUID", FormatGuid(kLocal)},
      {"SMSUPD_ROLE", "master"},
      {"SMSUPD_STATE", "MASTER"},
      {"SMSUPD_OLD_STATE", ""},
      {"SMSUPD_NEW_STATE", ""},
      {"SMSUPD_MASTER_GUID", FormatGuid(kLocal)},
      {"SMSUPD_OLD_MASTER_GUID", FormatGuid(kPeer)},
      {"SMSUPD_NEW_MASTER_GUID", FormatGuid(kLocal)},
      {"SMSUPD_PEER_GUID", FormatGuid(kPeer)},
      {"SMSUPD_GENERATION", "7"},
      {"SMSUPD_CONFIG_HASH", "abc123"},
      {"SMSUPD_TEXT", ""},
      {"SMSUPD_DETAILS", event.details.dump()}};
  EXPECT_EQ(env, expected);
}

TEST(HookJob, AStateChangeCarriesOldAndNewState) {
  control::EventWire event{3, "t", "sm-state-changed", {{"from", "STANDBY"}, {"to", "MASTER"}}};
  auto env = Environment(MakeHookJob(event, Status(), kLocal, "/h", std::chrono::milliseconds(1)));
  EXPECT_EQ(env["SMSUPD_OLD_STATE"], "STANDBY");
  EXPECT_EQ(env["SMSUPD_NEW_STATE"], "MASTER");
  EXPECT_EQ(env["SMSUPD_PEER_GUID"], FormatGuid(kPeer)) << "the standby, when this node is master";
}

TEST(HookJob, AnApplyCarriesItsGenerationAndText) {
  control::EventWire event{4, "t", "pkey-verified", {{"generation", 9}, {"text", "verified 40/40 ports"}}};
  auto env = Environment(MakeHookJob(event, Status(), kLocal, "/h", std::chrono::milliseconds(1)));
  EXPECT_EQ(env["SMSUPD_GENERATION"], "9");
  EXPECT_EQ(env["SMSUPD_TEXT"], "verified 40/40 ports");
}

TEST(HookJob, ThePeerOfAStandbyIsTheMaster) {
  control::StatusWire status = Status();
  status.master = control::MasterWire{kPeer, 2, 15, "mgmt2"};
  control::EventWire event{5, "t", "opensm-started", nlohmann::json::object()};
  EXPECT_EQ(PeerOf(event, status, kLocal), kPeer);
  status.master.reset();
  status.sms.clear();
  EXPECT_EQ(PeerOf(event, status, kLocal), 0u);
}

}  // namespace
}  // namespace smsupd
