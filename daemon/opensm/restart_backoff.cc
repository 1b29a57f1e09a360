#include "daemon/opensm/restart_backoff.h"

#include <algorithm>

namespace smsupd {

Clock::Duration RestartBackoff::NextDelay(Clock::Duration ran_for) {
  if (ran_for > policy_.healthy_run) {
    next_ = policy_.initial;
    return Clock::Duration::zero();
  }
  Clock::Duration delay = next_;
  next_ = std::min(next_ * 2, policy_.max);
  return delay;
}

void CrashLoopDetector::RecordExit(Clock::TimePoint when) {
  exits_.push_back(when);
  while (static_cast<int>(exits_.size()) > policy_.exits) exits_.pop_front();
}

bool CrashLoopDetector::InLoop(Clock::TimePoint now) const {
  auto recent = std::count_if(exits_.begin(), exits_.end(),
                              [&](Clock::TimePoint exit) { return now - exit <= policy_.window; });
  return recent >= policy_.exits;
}

}  // namespace smsupd
