// `events` and `events --follow` through the server, and the EventLog itself.
#include "daemon/status/event_log.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/daemon/control/control_test_support.h"
#include "common/control_wire.h"

namespace smsupd::control {
namespace {

using testing::LineClient;
using testing::RunningServer;
using testing::WaitFor;

TEST(EventLogTest, SequenceGrowsAndRingIsBounded) {
  EventLog log(3);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(log.Append("tick", {{"i", i}}), static_cast<std::uint64_t>(i + 1));
  EXPECT_EQ(log.size(), 3u);
  EXPECT_EQ(log.first_seq(), 3u);
  EXPECT_EQ(log.last_seq(), 5u);
  auto since = log.Since(3);
  ASSERT_EQ(since.size(), 2u);
  EXPECT_EQ(since[0].seq, 4u);
  EXPECT_EQ(since[1].details["i"], 4);
  EXPECT_EQ(log.Since(0).size(), 3u);
  EXPECT_TRUE(log.Since(5).empty());
  EXPECT_EQ(log.Since(0)[0].time.size(), 24u);  // 2026-12-02T17:33:04.123Z
}

TEST(EventLogTest, NonObjectDetailsAreWrapped) {
  EventLog log;
  log.Append("note", "plain text");
  EXPECT_EQ(log.Since(0)[0].details["value"], "plain text");
}

TEST(EventLogTest, SubscribersSeeLaterEventsAndMayUnsubscribeThemselves) {
  EventLog log;
  log.Append("before");
  std::vector<std::uint64_t> seen;
  EventLog::SubscriptionId id = 0;
  id = log.Subscribe([&](const EventWire& event) {
    seen.push_back(event.seq);
    if (seen.size() == 2) log.Unsubscribe(id);
  });
  log.Append("a");
  log.Append("b");
  log.Append("c");
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(log.subscriber_count(), 0u);
}

// A verification that fails on thousands of ports makes an event that a
// hook's environment (E2BIG past 128 KiB) and a follower's queue could not
// take: its lists keep their first entries and say how many there were.
TEST(EventLogTest, LargeDetailsAreBoundedAndSayWhatWasLeftOut) {
  EventLog log;
  nlohmann::json mismatches = nlohmann::json::array();
  for (int i = 0; i < 3000; ++i) mismatches.push_back("port " + std::to_string(i) + " lacks 0x8001");
  log.Append(kEventPKeyVerifyFailed,
             {{"text", std::string(100000, 'x')}, {"mismatches", mismatches}, {"generation", 7}});
  const nlohmann::json details = log.Since(0)[0].details;
  ASSERT_EQ(details["mismatches"].size(), kMaxEventListItems);
  EXPECT_EQ(details["mismatches"][0], "port 0 lacks 0x8001");
  EXPECT_EQ(details["mismatches_total"], 3000);
  EXPECT_EQ(details["generation"], 7);
  EXPECT_LE(details["text"].get<std::string>().size(), kMaxEventStringBytes);
  EXPECT_LE(details.dump().size(), kMaxEventDetailsBytes);

  // Details that are many small fields still end within the bound.
  nlohmann::json wide = nlohmann::json::object();
  for (int i = 0; i < 5000; ++i) wide["field" + std::to_string(i)] = std::string(100, 'w');
  wide["text"] = "wide";
  log.Append("wide", wide);
  const nlohmann::json cut = log.Since(1)[0].details;
  EXPECT_LE(cut.dump().size(), kMaxEventDetailsBytes);
  EXPECT_EQ(cut["text"], "wide");
  EXPECT_EQ(cut["cut"], true);
}

TEST(EventLogTest, BoundedDetailsAreValidUtf8WhenCutInsideACharacter) {
  std::string text = "a";  // so that the cut falls inside a two-byte character
  while (text.size() < 6 * kMaxEventStringBytes) text += "\xc3\xa9";
  nlohmann::json details = BoundEventDetails({{"text", text}});
  EXPECT_NO_THROW(details.dump());
  EXPECT_LE(details["text"].get<std::string>().size(), kMaxEventStringBytes);
  details = BoundEventDetails({{"text", std::string(kMaxEventStringBytes - 4, 'a') + "\xe2\x82\xac\xe2\x82\xac"}});
  EXPECT_NO_THROW(details.dump());
}

TEST(ControlEventsTest, ListsEventsSinceN) {
  RunningServer server;
  server.OnLoop([&] {
    server.events.Append(kEventOpenSmStarted, {{"pid", 10}});
    server.events.Append(kEventMasterChanged, {{"guid", "0x0000000000000002"}});
    return server.events.Append(kEventConfigApplied, {{"generation", 2}});
  });
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto response = client.Call(R"({"version":1,"command":"events","arguments":{"since":1}})");
  ASSERT_TRUE(response);
  ASSERT_EQ(response->arguments["events"].size(), 2u);
  EXPECT_EQ(response->arguments["events"][0]["kind"], "master-changed");
  EXPECT_EQ(response->arguments["last_seq"], 3);
}

TEST(ControlEventsTest, FollowStreamsNewEventsInOrder) {
  RunningServer server;
  server.OnLoop([&] { return server.events.Append(kEventOpenSmStarted); });
  LineClient follower;
  ASSERT_TRUE(follower.Connect(server.socket_path()));
  auto response = follower.Call(R"({"version":1,"command":"events","arguments":{"follow":true}})");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->arguments["events"].size(), 1u);
  // A stream carries no more requests: this one is ignored, not answered.
  ASSERT_TRUE(follower.Send(R"({"version":1,"command":"status"})" "\n"));
  server.OnLoop([&] {
    for (int i = 0; i < 20; ++i) server.events.Append(kEventSmStateChanged, {{"i", i}});
    return 0;
  });
  for (std::uint64_t seq = 2; seq <= 21; ++seq) {
    auto line = follower.ReadLine();
    ASSERT_TRUE(line) << "missing event " << seq;
    auto event = ParseEventWire(nlohmann::json::parse(*line));
    ASSERT_TRUE(event.ok()) << *line;
    EXPECT_EQ(event->seq, seq);
    EXPECT_EQ(event->kind, "sm-state-changed");
  }
  // Following is not idle: the idle timeout does not end the stream, and a
  // client that goes away is noticed.
  EXPECT_EQ(server.ConnectionCount(), 1u);
  follower.Close();
  EXPECT_TRUE(WaitFor([&] { return server.ConnectionCount() == 0; }));
  EXPECT_TRUE(WaitFor([&] { return server.OnLoop([&] { return server.events.subscriber_count(); }) == 0; }));
}

// The largest event the daemon can make reaches a follower whole: before the
// bound, one event over the follower's queue dropped every follower.
TEST(ControlEventsTest, TheLargestEventReachesAFollower) {
  RunningServer server;
  LineClient follower;
  ASSERT_TRUE(follower.Connect(server.socket_path()));
  ASSERT_TRUE(follower.Call(R"({"version":1,"command":"events","arguments":{"follow":true}})"));
  nlohmann::json mismatches = nlohmann::json::array();
  for (int i = 0; i < 20000; ++i) mismatches.push_back("port " + std::to_string(i) + std::string(40, 'm'));
  server.OnLoop([&] { return server.events.Append(kEventPKeyVerifyFailed, {{"mismatches", mismatches}}); });
  auto line = follower.ReadLine();
  ASSERT_TRUE(line);
  auto event = ParseEventWire(nlohmann::json::parse(*line));
  ASSERT_TRUE(event.ok()) << line->substr(0, 200);
  EXPECT_EQ(event->details["mismatches_total"], 20000);
  EXPECT_EQ(server.ConnectionCount(), 1u);
}

TEST(ControlEventsTest, SlowFollowerIsDroppedWhileOthersAreServed) {
  ControlServerOptions options;
  options.max_queued_bytes = 16 * 1024;
  RunningServer server(options);
  LineClient slow;
  ASSERT_TRUE(slow.Connect(server.socket_path()));
  ASSERT_TRUE(slow.Call(R"({"version":1,"command":"events","arguments":{"follow":true}})"));
  // A burst far beyond what the socket and the queue hold, without reading.
  std::string padding(1024, 'p');
  server.OnLoop([&] {
    for (int i = 0; i < 2000; ++i) server.events.Append(kEventSmStateChanged, {{"pad", padding}});
    return 0;
  });

  LineClient other;
  ASSERT_TRUE(other.Connect(server.socket_path()));
  EXPECT_EQ(other.Call(R"({"version":1,"command":"status"})")->result, ResultCode::kSuccess);

  std::optional<std::string> last, line;
  int events = 0;
  while ((line = slow.ReadLine())) {
    last = line;
    if (line->find("\"seq\"") != std::string::npos) ++events;
  }
  ASSERT_TRUE(last);
  auto final_line = ParseResponse(*last);
  ASSERT_TRUE(final_line.ok()) << *last;
  EXPECT_EQ(final_line->result, ResultCode::kTooSlow);
  EXPECT_NE(final_line->text.find("fell behind"), std::string::npos);
  EXPECT_LT(events, 2000);
  EXPECT_TRUE(WaitFor([&] { return server.ConnectionCount() == 1; }));
}

}  // namespace
}  // namespace smsupd::control
