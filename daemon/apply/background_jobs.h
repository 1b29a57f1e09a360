// One thread for work the event loop must not wait for: validating and
// planning a config text a caller sent (a config of 10,000 hosts takes about
// a second of CPU; the loop meanwhile keeps watching the master and
// answering status). Jobs run one at a time, in order; at most `capacity`
// wait, and Submit refuses more, so a caller cannot queue work without bound.
// A job must carry copies of what it reads and answer through something
// thread-safe (a control reply is).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace smsupd {

class BackgroundJobs {
 public:
  explicit BackgroundJobs(std::size_t capacity = 4);
  // Lets the running job finish; the waiting ones are dropped.
  ~BackgroundJobs();
  BackgroundJobs(const BackgroundJobs&) = delete;
  BackgroundJobs& operator=(const BackgroundJobs&) = delete;

  // False, and `job` never runs, when `capacity` jobs already wait.
  bool Submit(std::function<void()> job);

 private:
  void Loop();

  const std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> waiting_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace smsupd
