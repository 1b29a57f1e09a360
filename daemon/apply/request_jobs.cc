#include "daemon/apply/request_jobs.h"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <new>

#include <spdlog/spdlog.h>

namespace smsupd {
namespace {

void LowerThisThread() {
  if (std::string why = MoveThisThreadToIdle(); !why.empty())
    spdlog::warn("JOB_PRIORITY_NOT_SET group members' jobs run at the daemon's priority: {}", why);
}

}  // namespace

std::string MoveThisThreadToIdle() {
  sched_param none{};
  if (::sched_setscheduler(0, SCHED_IDLE, &none) != 0) return std::strerror(errno);
  return "";
}

std::string RefusalText(RequestJobs::Submitted submitted) {
  switch (submitted) {
    case RequestJobs::Submitted::kQueued:
      return "";
    case RequestJobs::Submitted::kLaneFull:
      return "busy: too many plans and validations waiting; try again";
    case RequestJobs::Submitted::kCallerBusy:
      return "busy: your previous plan or validation is still waiting to run; wait for its answer";
  }
  return "busy";
}

RequestJobs::RequestJobs(std::size_t capacity, std::chrono::milliseconds time_limit)
    : capacity_(capacity),
      time_limit_(time_limit),
      owner_thread_([this] { Loop(Lane::kOwner); }),
      member_thread_([this] {
        LowerThisThread();
        Loop(Lane::kMember);
      }) {}

RequestJobs::~RequestJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    owner_.waiting.clear();
    member_.waiting.clear();
  }
  wake_.notify_all();
  owner_thread_.join();
  member_thread_.join();
}

RequestJobs::Submitted RequestJobs::Submit(Lane lane, uid_t uid, Job job, Failed failed) {
  {
    std::lock_guard lock(mutex_);
    Queue& queue = QueueOf(lane);
    if (stopping_ || queue.waiting.size() >= capacity_) return Submitted::kLaneFull;
    int& mine = queue.per_uid[uid];
    if (lane == Lane::kMember && mine > 0) return Submitted::kCallerBusy;
    ++mine;
    queue.waiting.push_back(Entry{uid, std::move(job), std::move(failed)});
  }
  wake_.notify_all();
  return Submitted::kQueued;
}

void RequestJobs::Loop(Lane lane) {
  Queue& queue = QueueOf(lane);
  for (;;) {
    Entry entry;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue.waiting.empty(); });
      if (stopping_) return;
      entry = std::move(queue.waiting.front());
      queue.waiting.pop_front();
      // No longer waiting: the caller may queue its next job. Freed here,
      // not after Run(): the job answers inside Run(), and a caller that
      // sends its next request on the answer must not find its slot still
      // taken by a job that has answered (this thread runs at SCHED_IDLE
      // and may wait long to get back here).
      if (--queue.per_uid[entry.uid] == 0) queue.per_uid.erase(entry.uid);
    }
    Run(entry);
  }
}

// Whatever the job throws ends the job, never the thread or the daemon.
void RequestJobs::Run(Entry& entry) {
  std::string why;
  try {
    entry.job(Deadline::After(time_limit_));
    return;
  } catch (const DeadlineExceeded&) {
    why = "stopped after " + std::to_string(time_limit_.count() / 1000) +
          " s, the time a request may take";
  } catch (const std::bad_alloc&) {
    why = "ran out of memory";
  } catch (const std::exception& error) {
    why = std::string("failed: ") + error.what();
  } catch (...) {
    why = "failed";
  }
  spdlog::warn("REQUEST_JOB_FAILED for uid {}: {}", entry.uid, why);
  if (entry.failed) entry.failed(why);
}

}  // namespace smsupd
