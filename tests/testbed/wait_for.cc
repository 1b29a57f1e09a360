#include "tests/testbed/wait_for.h"

#include <thread>

namespace smsupd::testbed {

Status WaitFor(const std::string& what, const std::function<bool(std::string& why)>& condition,
               milliseconds deadline, milliseconds interval) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + deadline;
  std::string why;
  for (;;) {
    why.clear();
    if (condition(why)) return Status::Ok();
    const Clock::time_point now = Clock::now();
    if (now >= end) break;
    std::this_thread::sleep_for(std::min<Clock::duration>(interval, end - now));
  }
  std::string message = "timed out after " + std::to_string(deadline.count()) + " ms waiting for " + what;
  if (!why.empty()) message += " (last: " + why + ")";
  return Error{message};
}

Status WaitFor(const std::string& what, const std::function<bool()>& condition, milliseconds deadline,
               milliseconds interval) {
  return WaitFor(what, [&](std::string&) { return condition(); }, deadline, interval);
}

}  // namespace smsupd::testbed
