// A real Prometheus scrapes both smsupds of a master/standby pair on the
// simulated fabric (metrics.listen on loopback) while the master's node
// dies: through Prometheus' query API the new master, the failover counter
// and the failover's duration appear, as a dashboard or an alert sees them.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/daemon/failover/prometheus_server.h"
#include "tests/daemon/metrics/http_get.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

class FailoverPrometheusTest : public FailoverTest {
 protected:
  // Waits until `promql` has a series whose value satisfies `good`.
  double ExpectQuery(const std::string& promql, const std::function<bool(double)>& good) {
    double seen = 0;
    Status s = WaitFor(
        "Prometheus to answer " + promql,
        [&](std::string& why) {
          auto value = prometheus_->Scalar(promql);
          if (!value) {
            why = value.error().message;
            return false;
          }
          seen = *value;
          why = "value " + std::to_string(seen);
          return good(seen);
        },
        kFailoverDeadline, milliseconds(200));
    EXPECT_TRUE(s.ok()) << s.message() << "\n" << prometheus_->LogTail();
    return seen;
  }

  // Prometheus runs under the fabric's directory: it goes before the
  // fabric's check that nothing outlived it.
  void TearDown() override {
    prometheus_.reset();
    FailoverTest::TearDown();
  }

  std::unique_ptr<PrometheusServer> prometheus_;
};

TEST_F(FailoverPrometheusTest, PrometheusSeesTheMasterChangeTheFailoverAndItsDuration) {
  const int ports[2] = {FreeLoopbackPort(), FreeLoopbackPort()};
  FailoverBedOptions options;
  options.preempt = false;
  options.configure = [&ports](int index, SmsupdConfig& config) {
    config.extra += "metrics:\n  listen: 127.0.0.1:" + std::to_string(ports[index]) + "\n";
  };
  ASSERT_NO_FATAL_FAILURE(StartPair(options));
  const std::string dir = fabric().dir() + "/prometheus";
  auto started = PrometheusServer::Start(dir, {{"master", ports[0]}, {"standby", ports[1]}}, milliseconds(250));
  ASSERT_TRUE(started) << started.error().message;
  prometheus_ = std::move(*started);

  const std::string master_guid = FormatGuid(master().port_guid());
  const std::string standby_guid = FormatGuid(standby().port_guid());
  // Both daemons are scraped and agree on the master.
  ExpectQuery("count(smsupd_master_info{guid=\"" + master_guid + "\"})", [](double n) { return n == 2; });
  ExpectQuery("smsupd_local_sm_state{instance=\"standby\",state=\"STANDBY\"}", [](double v) { return v == 1; });

  master().Kill();  // smsupd and OpenSM of the master's node, at once

  ExpectQuery("smsupd_master_info{instance=\"standby\",guid=\"" + standby_guid + "\"}",
              [](double v) { return v == 1; });
  ExpectQuery("smsupd_local_sm_state{instance=\"standby\",state=\"MASTER\"}", [](double v) { return v == 1; });
  ExpectQuery("sum(smsupd_failovers_total{instance=\"standby\"})", [](double n) { return n >= 1; });
  ExpectQuery("smsupd_master_changes_total{instance=\"standby\"}", [](double n) { return n >= 1; });
  double took = ExpectQuery("smsupd_last_failover_duration_seconds{instance=\"standby\"}",
                            [](double seconds) { return seconds > 0; });
  // Detection to the new master confirmed: about one watch round or two.
  EXPECT_LT(took, 5.0);
  ExpectQuery("up{instance=\"master\"}", [](double v) { return v == 0; });
  ExpectSoleMaster(standby_name());
}

}  // namespace
}  // namespace smsupd::testbed
