// Work done for control requests off the event loop: validating and planning
// a config text (a config of 10,000 hosts takes a quarter of a second of
// CPU, a text at the bounds of config/yaml_bounds.h several seconds; the
// loop meanwhile keeps watching the master, answering status and pinging
// the watchdog).
//
// Two lanes, one thread each, jobs in order within a lane:
//   kOwner   root and the daemon's own user: config management's plans and
//            validations, at the daemon's own priority;
//   kMember  control.group's members (read-only): at most one job per uid
//            waiting (and the one running), on a thread of SCHED_IDLE (it
//            runs only on CPU time nothing else on the machine wants);
// so a member's jobs never delay root's, nor one member another's for more
// than two jobs. At most `capacity` jobs wait per lane; Submit refuses more.
//
// Each job gets a Deadline of `time_limit` from the moment it starts, which
// the validator and the planner check in their loops. A job that throws
// (DeadlineExceeded past its deadline, std::bad_alloc, anything else) is
// answered by its `failed` callback with the reason; the thread goes on.
// Memory is bounded by the inputs' bounds (docs/reliability.md).
//
// A job must carry copies of what it reads and answer through something
// thread-safe (a control reply is).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "common/deadline.h"

namespace smsupd {

// Moves the calling thread to SCHED_IDLE: it runs only when no other thread
// of the machine wants the CPU, and a waking OpenSM or MAD thread preempts
// it at once (Linux schedules threads: this thread only). Returns why it
// could not, or "".
std::string MoveThisThreadToIdle();

class RequestJobs {
 public:
  enum class Lane { kOwner, kMember };
  enum class Submitted { kQueued, kLaneFull, kCallerBusy };
  using Job = std::function<void(const Deadline&)>;
  using Failed = std::function<void(const std::string& why)>;

  static constexpr std::size_t kCapacity = 4;
  static constexpr std::chrono::milliseconds kTimeLimit{20000};

  explicit RequestJobs(std::size_t capacity = kCapacity,
                       std::chrono::milliseconds time_limit = kTimeLimit);
  // Lets the running jobs finish; the waiting ones are dropped.
  ~RequestJobs();
  RequestJobs(const RequestJobs&) = delete;
  RequestJobs& operator=(const RequestJobs&) = delete;

  // `job` runs later on the lane's thread, unless refused (then never).
  Submitted Submit(Lane lane, uid_t uid, Job job, Failed failed);

 private:
  struct Entry {
    uid_t uid;
    Job job;
    Failed failed;
  };
  struct Queue {
    std::deque<Entry> waiting;
    std::map<uid_t, int> per_uid;  // waiting
  };

  void Loop(Lane lane);
  void Run(Entry& entry);
  Queue& QueueOf(Lane lane) { return lane == Lane::kOwner ? owner_ : member_; }

  const std::size_t capacity_;
  const std::chrono::milliseconds time_limit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Queue owner_;
  Queue member_;
  bool stopping_ = false;
  std::thread owner_thread_;
  std::thread member_thread_;
};

// "refused: ..." text for a Submitted other than kQueued.
std::string RefusalText(RequestJobs::Submitted submitted);

}  // namespace smsupd
