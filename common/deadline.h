// A point in time after which work done for a caller is abandoned. Checked
// at the loops of long work (the YAML scan, the validator's sections, the
// plan), so a request's time is bounded even when its text is not small.
#pragma once

#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>

namespace smsupd {

// Thrown by Deadline::Check and caught where the bounded work started (a
// background job, ValidateText): it unwinds the work's own frames only.
class DeadlineExceeded : public std::runtime_error {
 public:
  DeadlineExceeded() : std::runtime_error("took longer than its time limit") {}
};

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // No limit: what the daemon's own start-up and offline commands use.
  static Deadline Never() { return Deadline(Clock::time_point::max()); }
  static Deadline After(std::chrono::milliseconds limit) { return Deadline(Clock::now() + limit); }
  explicit Deadline(Clock::time_point at) : at_(at) {}

  bool unlimited() const { return at_ == Clock::time_point::max(); }
  bool Passed() const { return !unlimited() && Clock::now() >= at_; }
  // Throws DeadlineExceeded once the deadline passed. Reads the clock only
  // every `kStride` calls, so it costs nothing inside tight loops.
  void Check() const {
    if (unlimited() || ++calls_ % kStride != 0) return;
    if (Clock::now() >= at_) throw DeadlineExceeded();
  }
  // Like Check, but reads the clock every time: between stages of work.
  void CheckNow() const {
    if (Passed()) throw DeadlineExceeded();
  }

 private:
  static constexpr std::size_t kStride = 256;
  Clock::time_point at_;
  mutable std::size_t calls_ = 0;
};

}  // namespace smsupd
