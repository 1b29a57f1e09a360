#include "daemon/control/member_lane.h"

#include <utility>

#include <boost/asio/post.hpp>

namespace smsupd::control {

MemberLane::MemberLane(boost::asio::io_context& io) : state_(std::make_shared<State>()) { state_->io = &io; }

void MemberLane::Run(std::function<void()> work) {
  state_->queue.push_back(std::move(work));
  if (!state_->scheduled) ScheduleTurn(state_);
}

void MemberLane::ScheduleTurn(const std::shared_ptr<State>& state) {
  state->scheduled = true;
  boost::asio::post(*state->io, [state] {
    state->scheduled = false;
    if (state->queue.empty()) return;
    std::function<void()> work = std::move(state->queue.front());
    state->queue.pop_front();
    work();
    // The next turn goes behind what `work` queued.
    if (!state->scheduled && !state->queue.empty()) ScheduleTurn(state);
  });
}

}  // namespace smsupd::control
