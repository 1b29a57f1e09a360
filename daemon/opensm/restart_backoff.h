// When to restart a crashed OpenSM, and when to call it a crash loop.
// keepalived's rule for children: at once if it ran more than 60 s (a crash
// after a long healthy run is news, not a pattern), else 1 s doubling to 60 s.
#pragma once

#include <chrono>
#include <deque>

#include "daemon/clock.h"

namespace smsupd {

struct BackoffPolicy {
  Clock::Duration initial = std::chrono::seconds(1);
  Clock::Duration max = std::chrono::seconds(60);
  Clock::Duration healthy_run = std::chrono::seconds(60);
};

class RestartBackoff {
 public:
  explicit RestartBackoff(BackoffPolicy policy = {}) : policy_(policy), next_(policy.initial) {}

  // The delay before restarting a process that exited after running for
  // `ran_for`. Each short run doubles the next delay up to the maximum; a
  // long run resets it.
  Clock::Duration NextDelay(Clock::Duration ran_for);

 private:
  BackoffPolicy policy_;
  Clock::Duration next_;
};

struct CrashLoopPolicy {
  int exits = 5;
  Clock::Duration window = std::chrono::minutes(5);
};

// "5 exits in 5 minutes": a sliding window of exit times.
class CrashLoopDetector {
 public:
  explicit CrashLoopDetector(CrashLoopPolicy policy = {}) : policy_(policy) {}

  void RecordExit(Clock::TimePoint when);
  // True while the window ending at `now` holds at least policy.exits exits.
  bool InLoop(Clock::TimePoint now) const;

 private:
  CrashLoopPolicy policy_;
  std::deque<Clock::TimePoint> exits_;
};

}  // namespace smsupd
