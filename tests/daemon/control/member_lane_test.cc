// MemberLane: the control group's session turns run one at a time, each
// behind what the event loop had queued, and all of them in the end.
#include "daemon/control/member_lane.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <string>
#include <vector>

namespace smsupd::control {
namespace {

// 200 members' turns queued, then root's work and a timer's: each runs after
// at most one member turn, not after the 200.
TEST(MemberLaneTest, WorkQueuedAfterAFloodOfTurnsWaitsForOneTurnAtMost) {
  boost::asio::io_context io;
  MemberLane lane(io);
  std::vector<std::string> order;
  for (int i = 0; i < 200; ++i) lane.Run([&order] { order.push_back("member"); });
  boost::asio::post(io, [&order] { order.push_back("root"); });
  boost::asio::post(io, [&order] { order.push_back("round"); });
  io.run();
  ASSERT_EQ(order.size(), 202u);
  const auto position = [&](const std::string& what) {
    for (std::size_t i = 0; i < order.size(); ++i)
      if (order[i] == what) return i;
    return order.size();
  };
  EXPECT_LE(position("root"), 1u);
  EXPECT_LE(position("round"), 2u);
  EXPECT_EQ(lane.waiting(), 0u);
}

// A turn that queues work (a reply's write) is followed by that work before
// the next member's turn; a turn may add turns of its own.
TEST(MemberLaneTest, ATurnsOwnWorkRunsBeforeTheNextTurn) {
  boost::asio::io_context io;
  MemberLane lane(io);
  std::vector<std::string> order;
  lane.Run([&] {
    order.push_back("a");
    boost::asio::post(io, [&order] { order.push_back("a's write"); });
    lane.Run([&order] { order.push_back("a again"); });
  });
  lane.Run([&order] { order.push_back("b"); });
  io.run();
  EXPECT_EQ(order, (std::vector<std::string>{"a", "a's write", "b", "a again"}));
}

}  // namespace
}  // namespace smsupd::control
