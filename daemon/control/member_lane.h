// The control group's sessions take their turns on the event loop one at a
// time, each turn posted behind everything already queued there: root's
// requests, the failover rounds' results, the timers and OpenSM's output
// never wait behind more than one of them. A flood of members' connections
// (garbage, pipelined requests, long lines) then slows the members, not the
// failover. Work-conserving: with nothing else to run, turn follows turn.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>

#include <boost/asio/io_context.hpp>

namespace smsupd::control {

class MemberLane {
 public:
  explicit MemberLane(boost::asio::io_context& io);

  // Runs `work` in a turn of its own, after what the loop has queued.
  // Bounded by the callers: a session has at most two turns waiting (its
  // read and its write), so the lane at most twice the connection cap.
  void Run(std::function<void()> work);
  std::size_t waiting() const { return state_->queue.size(); }

 private:
  struct State {
    boost::asio::io_context* io = nullptr;
    std::deque<std::function<void()>> queue;
    bool scheduled = false;
  };
  static void ScheduleTurn(const std::shared_ptr<State>& state);

  // Shared with the posted turn: a turn still queued when the lane goes
  // finds the state, not freed memory.
  std::shared_ptr<State> state_;
};

}  // namespace smsupd::control
