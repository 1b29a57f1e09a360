// Time behind an interface: the restart back-off and the
// crash-loop window are decided from Clock::Now(), so tests pass time in.
#pragma once

#include <chrono>

namespace smsupd {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  // Monotonic time: never jumps with the wall clock.
  virtual TimePoint Now() const = 0;
};

class SteadyClock : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace smsupd
