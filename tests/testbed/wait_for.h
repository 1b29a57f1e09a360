// Waiting for a condition with a deadline: the only way tests synchronise
// with the simulated fabric (never a bare sleep).
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "common/result.h"

namespace smsupd::testbed {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Polls `condition` every `interval` until it returns true or `deadline`
// passes. The condition is evaluated at least once, and once more at the
// deadline. On failure the error says what was awaited, for how long, and
// the last `why` the condition gave (if it sets one).
Status WaitFor(const std::string& what, const std::function<bool(std::string& why)>& condition,
               milliseconds deadline, milliseconds interval = milliseconds(20));

// The same for conditions that have nothing to explain.
Status WaitFor(const std::string& what, const std::function<bool()>& condition, milliseconds deadline,
               milliseconds interval = milliseconds(20));

}  // namespace smsupd::testbed
