#include "daemon/apply/background_jobs.h"

namespace smsupd {

BackgroundJobs::BackgroundJobs(std::size_t capacity)
    : capacity_(capacity), thread_([this] { Loop(); }) {}

BackgroundJobs::~BackgroundJobs() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    waiting_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

bool BackgroundJobs::Submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || waiting_.size() >= capacity_) return false;
    waiting_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void BackgroundJobs::Loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      job = std::move(waiting_.front());
      waiting_.pop_front();
    }
    job();
  }
}

}  // namespace smsupd
