// A Clock that moves only when a test moves it, so that "not yet" and
// "already" in a unit test depend on the steps the test takes, never on the
// speed of the machine.
#pragma once

#include <chrono>

#include "daemon/clock.h"

namespace smsupd {

class ManualClock : public Clock {
 public:
  TimePoint Now() const override { return now_; }
  void Advance(Duration by) { now_ += by; }

 private:
  // Far from the epoch: code that subtracts a duration stays positive.
  TimePoint now_ = TimePoint{} + std::chrono::hours(24);
};

}  // namespace smsupd
