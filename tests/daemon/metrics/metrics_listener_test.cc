// The HTTP listener's bounds (docs/metrics.md "Listener"): clients that hold
// a connection without finishing a request (a local user needs no privilege
// for that) neither stop a scrape nor keep their connection past the request
// timeout.
#include "daemon/metrics/metrics_listener.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <vector>

#include "daemon/metrics/metrics_service.h"
#include "tests/daemon/metrics/http_get.h"
#include "tests/daemon/metrics/slow_client.h"

namespace smsupd {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kRequestTimeout{kMetricsRequestTimeoutMs};
// Far past the request timeout, far below civetweb's default of 30 s.
constexpr milliseconds kCutOffDeadline = 4 * kRequestTimeout;

class MetricsListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_ = std::make_shared<prometheus::Registry>();
    prometheus::BuildCounter()
        .Name("test_scrapes_total")
        .Help("a family to find")
        .Register(*registry_)
        .Add({});
    ASSERT_TRUE(listener_.Start("127.0.0.1:0", registry_).ok());
    ASSERT_GT(listener_.port(), 0);
  }
  std::vector<std::unique_ptr<SlowClient>> HoldConnections(int count) {
    std::vector<std::unique_ptr<SlowClient>> clients;
    for (int i = 0; i < count; ++i) {
      const auto mode = i % 2 ? SlowClient::Mode::kOneByteAtATime : SlowClient::Mode::kSilent;
      clients.push_back(std::make_unique<SlowClient>(listener_.port(), mode));
      EXPECT_TRUE(clients.back()->connected());
    }
    return clients;
  }

  std::shared_ptr<prometheus::Registry> registry_;
  MetricsListener listener_;
};

TEST_F(MetricsListenerTest, AScrapeIsAnsweredWhileSlowClientsHoldAllButOneWorker) {
  static_assert(kMetricsListenerThreads >= 3, "several slow clients and a scrape");
  auto slow = HoldConnections(kMetricsListenerThreads - 1);

  Result<std::string> text = HttpGet(listener_.port(), "/metrics", kRequestTimeout);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("test_scrapes_total"), std::string::npos) << *text;
  for (const auto& client : slow)
    EXPECT_TRUE(client->StillOpen()) << "the scrape waited for a slow client";

  for (const auto& client : slow)
    EXPECT_TRUE(client->WaitClosedByServer(kCutOffDeadline)) << "a slow client kept its connection";
}

TEST_F(MetricsListenerTest, SlowClientsOnEveryWorkerDelayAScrapeOnlyUntilTheyAreCutOff) {
  auto slow = HoldConnections(kMetricsListenerThreads);

  Result<std::string> text = HttpGet(listener_.port(), "/metrics", kCutOffDeadline);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_NE(text->find("test_scrapes_total"), std::string::npos) << *text;
  for (const auto& client : slow)
    EXPECT_TRUE(client->WaitClosedByServer(kCutOffDeadline)) << "a slow client kept its connection";
}

// Keep-alive is off: a scraper that keeps its connection open after the
// answer holds no worker.
TEST_F(MetricsListenerTest, TheConnectionIsClosedAfterTheAnswer) {
  SlowClient idle(listener_.port(), SlowClient::Mode::kSilent);
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(
      idle.Send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n"));
  EXPECT_TRUE(idle.WaitClosedByServer(kCutOffDeadline))
      << "the connection stayed open after the answer";
}

// The packaged units drop IP traffic but to and from localhost: the daemon
// says so, naming the drop-in, whenever it starts a listener elsewhere.
TEST(MetricsServiceListener, ANonLoopbackListenerIsWarnedAboutNamingTheDropIn) {
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
      "test", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  SteadyClock clock;
  MetricsService service("test", clock);
  config::MetricsSettings settings;
  // A documentation address (RFC 5737), never one of this host's: the bind
  // fails, and nothing listens beyond loopback.
  settings.listen = "192.0.2.1:9662";
  settings.allow_remote = true;
  EXPECT_FALSE(service.StartListener(settings).ok());
  settings.listen = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  EXPECT_TRUE(service.StartListener(settings).ok());
  spdlog::set_default_logger(previous);

  const std::string text = log.str();
  const size_t warning = text.find("METRICS_LISTEN_REMOTE 192.0.2.1:9662");
  ASSERT_NE(warning, std::string::npos) << text;
  EXPECT_EQ(text.find("METRICS_LISTEN_REMOTE", warning + 1), std::string::npos)
      << "loopback is no remote:\n"
      << text;
  EXPECT_NE(text.find("/etc/systemd/system/smsupd.service.d/metrics-listen.conf", warning),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("METRICS_LISTENING"), std::string::npos) << text;
}

}  // namespace
}  // namespace smsupd
