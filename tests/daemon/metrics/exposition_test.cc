// The exposition as Prometheus reads it: promtool (Prometheus' own parser
// and linter) accepts it, the names follow the conventions, and
// docs/metrics.md, docs/hooks.md and the alert rules name only what exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "daemon/hooks/hook_job.h"
#include "daemon/metrics/daemon_metrics.h"
#include "tests/daemon/metrics/exposition_reader.h"

namespace smsupd {
namespace {

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(SMSUPD_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void ExpectKnownMetrics(const std::string& text);

// A registry with every kind of series in it, as a daemon after a failover
// and an apply has it.
std::string BusyExposition() {
  DaemonMetrics metrics("0.1.0");
  metrics.SetLocalSm("MASTER", 15);
  metrics.SetSubnet("fabric-a", "0xfe80000000000000", "0x0002c90300000001", "mgmt1");
  metrics.SetOpenSmStartTime(1.7e9);
  metrics.SetMaster("0x0002c90300000001", 1, "mgmt1");
  metrics.SetSmCount("MASTER", 1);
  metrics.SetSmCount("STANDBY", 1);
  metrics.MasterChanged();
  metrics.FailoverDone("master_lost", std::chrono::milliseconds(480));
  metrics.SetRaceCount("dual_master", 2);
  metrics.SetOpenSm(true, std::chrono::seconds(30), 1);
  metrics.SetConfig(3, "9f86d081884c7d65");
  metrics.ApplyEnded("verified");
  metrics.SetLastApply(std::chrono::milliseconds(900), 40, 0);
  metrics.SetProblem("NO_STANDBY", true);
  metrics.ObserveSmInfoPoll(std::chrono::microseconds(350));
  metrics.SetMadTotals(100, 3, 1, 250);
  metrics.SetControlConnections(2);
  metrics.ControlRequest("status", "success");
  metrics.HookRun("ok");
  metrics.HookEventDropped();
  return metrics.Exposition();
}

TEST(Exposition, PromtoolParsesAndLintsItClean) {
  const std::string exposition = BusyExposition();
  EXPECT_EQ(PromtoolProblems(exposition), "") << exposition;
}

// The load smsupd adds to the fabric, every MAD of the walk included.
TEST(Exposition, CountsEveryMadSent) {
  const std::string exposition = BusyExposition();
  EXPECT_NE(exposition.find("\nsmsupd_mad_sent_total 250\n"), std::string::npos) << exposition;
  EXPECT_NE(exposition.find("\nsmsupd_mad_requests_total 100\n"), std::string::npos) << exposition;
}

TEST(Exposition, NamesFollowPrometheusConventions) {
  const std::string exposition = BusyExposition();
  for (const std::string& name : FamilyNames(exposition)) {
    // process_*: the process collector's standard names.
    EXPECT_TRUE(name.rfind("smsupd_", 0) == 0 || name.rfind("process_", 0) == 0) << name;
    EXPECT_EQ(name.find("_ms"), std::string::npos) << name << ": base units (seconds)";
  }
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::string name = line.substr(7, line.rfind(' ') - 7);
    bool counter = line.substr(line.rfind(' ') + 1) == "counter";
    bool total = name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0;
    EXPECT_EQ(counter, total) << line;
  }
  EXPECT_EQ(SampleValue(exposition,
                        "smsupd_master_info{guid=\"0x0002c90300000001\",lid=\"1\",node=\"mgmt1\"}"),
            1);
  EXPECT_EQ(SampleValue(exposition, "smsupd_failovers_total{cause=\"master_lost\"}"), 1);
  EXPECT_DOUBLE_EQ(SampleValue(exposition, "smsupd_last_failover_duration_seconds"), 0.48);
}

TEST(Exposition, AMasterChangeReplacesTheInfoSeries) {
  DaemonMetrics metrics("0.1.0");
  metrics.SetMaster("0x01", 1, "a");
  metrics.SetMaster("0x02", 2, "b");
  std::string exposition = metrics.Exposition();
  EXPECT_TRUE(std::isnan(SampleValue(exposition, "smsupd_master_info{guid=\"0x01\",lid=\"1\",node=\"a\"}")));
  EXPECT_EQ(SampleValue(exposition, "smsupd_master_info{guid=\"0x02\",lid=\"2\",node=\"b\"}"), 1);
  metrics.SetMaster("", 0, "");
  exposition = metrics.Exposition();
  EXPECT_EQ(exposition.find("smsupd_master_info{"), std::string::npos);
  EXPECT_EQ(SampleValue(exposition, "smsupd_master_present"), 0);
}

TEST(Exposition, DocsListEveryMetric) {
  const std::string docs = ReadSource("docs/metrics.md");
  ASSERT_FALSE(docs.empty()) << "docs/metrics.md is missing";
  for (const std::string& name : FamilyNames(BusyExposition()))
    EXPECT_NE(docs.find("`" + name + "`"), std::string::npos) << name << " is not in docs/metrics.md";
}

TEST(Exposition, DocsListEveryHookVariable) {
  const std::string docs = ReadSource("docs/hooks.md");
  ASSERT_FALSE(docs.empty()) << "docs/hooks.md is missing";
  control::EventWire event{1, "t", "master-changed", nlohmann::json::object()};
  HookJob job = MakeHookJob(event, control::StatusWire{}, 1, "/h", std::chrono::milliseconds(1));
  for (const std::string& variable : job.environment) {
    std::string name = variable.substr(0, variable.find('='));
    EXPECT_NE(docs.find("`" + name + "`"), std::string::npos) << name << " is not in docs/hooks.md";
  }
}

TEST(Exposition, AlertRulesAndTheDashboardNameOnlyMetricsThatExist) {
  for (const char* file : {"deploy/prometheus/smsupd-alerts.yml", "deploy/grafana/smsupd-pair.json"}) {
    SCOPED_TRACE(file);
    const std::string rules = ReadSource(file);
    ASSERT_FALSE(rules.empty()) << file << " is missing";
    ExpectKnownMetrics(rules);
  }
}

void ExpectKnownMetrics(const std::string& rules) {
  const std::set<std::string> names = FamilyNames(BusyExposition());
  std::regex metric("(smsupd|process)_[a-z_]+");
  int seen = 0;
  for (auto it = std::sregex_iterator(rules.begin(), rules.end(), metric); it != std::sregex_iterator(); ++it) {
    std::string name = it->str();
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!names.count(name) && name.size() > std::strlen(suffix) &&
          name.compare(name.size() - std::strlen(suffix), std::string::npos, suffix) == 0)
        name.resize(name.size() - std::strlen(suffix));
    EXPECT_TRUE(names.count(name)) << it->str() << " is no metric smsupd exports";
    ++seen;
  }
  EXPECT_GT(seen, 8);
}

}  // namespace
}  // namespace smsupd
