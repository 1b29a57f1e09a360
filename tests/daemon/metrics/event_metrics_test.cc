// EventMetrics: which events count a failover (by cause, with its duration
// from detection to the new master) and an apply (by result, with its
// duration and port counts), on a ManualClock.
#include "daemon/metrics/event_metrics.h"

#include <gtest/gtest.h>

#include "daemon/status/event_log.h"
#include "tests/daemon/metrics/exposition_reader.h"
#include "tests/daemon/support/manual_clock.h"

namespace smsupd {
namespace {

using namespace std::chrono_literals;

class EventMetricsTest : public ::testing::Test {
 protected:
  void Event(const std::string& kind, nlohmann::json details = nlohmann::json::object()) {
    control::EventWire event;
    event.seq = ++seq_;
    event.kind = kind;
    event.details = std::move(details);
    events_.OnEvent(event);
  }
  double Value(const std::string& series) { return SampleValue(metrics_.Exposition(), series); }

  ManualClock clock_;
  DaemonMetrics metrics_{"0.1.0"};
  EventMetrics events_{metrics_, clock_};
  std::uint64_t seq_ = 0;
};

TEST_F(EventMetricsTest, AFailoverCountsByCauseOnceTheNewMasterIsSeen) {
  Event("master-lost", {{"text", "master 0x02 missed 3 polls"}});
  clock_.Advance(420ms);
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"master_lost\"}"), 0);
  Event("master-changed", {{"from", "0x0000000000000002"}, {"to", ""}});
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"master_lost\"}"), 0) << "no master is not a new master";
  clock_.Advance(80ms);
  Event("master-changed", {{"from", ""}, {"to", "0x0000000000000001"}});
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"master_lost\"}"), 1);
  EXPECT_DOUBLE_EQ(Value("smsupd_last_failover_duration_seconds"), 0.5);
  EXPECT_EQ(Value("smsupd_master_changes_total"), 1);
}

TEST_F(EventMetricsTest, CausesFollowTheDetectingEvent) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"no-master", "no_master"},        {"dual-master", "dual_master"},
      {"failover-requested", "operator"}, {"preempt", "preempt"},
      {"handover-sent", "opensm_exit"},  {"opensm-restart-requested", "restart"}};
  for (const auto& [kind, cause] : cases) {
    Event(kind);
    Event("handover-done", {{"text", "new master 0x01"}});
    EXPECT_EQ(Value("smsupd_failovers_total{cause=\"" + cause + "\"}"), 1) << kind;
  }
  Event("master-lost", {{"text", "local MASTER OpenSM exited (signal 9); no STANDBY"}});
  Event("master-changed", {{"from", ""}, {"to", "0x0000000000000001"}});
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"opensm_exit\"}"), 2);
}

TEST_F(EventMetricsTest, AFailedOrStaleDetectionIsNotAFailover) {
  Event("failover-requested");
  Event("handover-failed");
  Event("master-changed", {{"from", "0x01"}, {"to", "0x0000000000000002"}});
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"operator\"}"), 0);
  Event("no-master");
  clock_.Advance(61s);
  Event("master-changed", {{"from", ""}, {"to", "0x0000000000000002"}});
  EXPECT_EQ(Value("smsupd_failovers_total{cause=\"no_master\"}"), 0);
  EXPECT_EQ(Value("smsupd_master_changes_total"), 2);
}

TEST_F(EventMetricsTest, AppliesCountByResultWithDurationAndPorts) {
  Event("config-applied", {{"generation", 1}, {"at", "start"}});
  Event("config-applied", {{"generation", 2}});
  clock_.Advance(1500ms);
  Event("pkey-verified", {{"checked", 40}, {"mismatches", nlohmann::json::array()}});
  EXPECT_EQ(Value("smsupd_applies_total{result=\"verified\"}"), 1);
  EXPECT_DOUBLE_EQ(Value("smsupd_last_apply_duration_seconds"), 1.5);
  EXPECT_EQ(Value("smsupd_last_apply_verified_ports"), 40);
  EXPECT_EQ(Value("smsupd_last_apply_mismatched_ports"), 0);

  Event("config-applied", {{"generation", 3}});
  clock_.Advance(2s);
  Event("pkey-verify-failed", {{"checked", 40}, {"mismatches", {"H1_3 port 1: 0x8002 missing", "H1_4"}}});
  Event("config-rolled-back", {{"from", 3}, {"to", 2}});
  Event("config-rejected", {{"file", "x"}});
  Event("pkey-drift", {{"checked", 4}, {"mismatches", {"a"}}});
  Event("pkey-not-verified", {{"checked", 0}});
  EXPECT_EQ(Value("smsupd_applies_total{result=\"failed\"}"), 1);
  EXPECT_EQ(Value("smsupd_applies_total{result=\"rolled_back\"}"), 1);
  EXPECT_EQ(Value("smsupd_applies_total{result=\"rejected\"}"), 1);
  EXPECT_EQ(Value("smsupd_applies_total{result=\"drift\"}"), 1);
  EXPECT_EQ(Value("smsupd_applies_total{result=\"unverified\"}"), 1);
}

// An event lists only the first mismatches (BoundEventDetails); the metric
// counts them all.
TEST_F(EventMetricsTest, MismatchedPortsCountEveryPortOfABoundedEvent) {
  nlohmann::json mismatches = nlohmann::json::array();
  for (int i = 0; i < 3000; ++i) mismatches.push_back("port " + std::to_string(i));
  Event("config-applied", {{"generation", 2}});
  Event("pkey-verify-failed", BoundEventDetails({{"checked", 3000}, {"mismatches", mismatches}}));
  EXPECT_EQ(Value("smsupd_last_apply_mismatched_ports"), 3000);
  EXPECT_EQ(Value("smsupd_last_apply_verified_ports"), 0);
}

}  // namespace
}  // namespace smsupd
