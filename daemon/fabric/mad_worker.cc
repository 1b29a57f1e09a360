#include "daemon/fabric/mad_worker.h"

#include <future>

namespace smsupd {

struct MadWorker::Shared {
  explicit Shared(std::shared_ptr<Fabric> f) : fabric(std::move(f)) {}
  std::shared_ptr<Fabric> fabric;
  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<Job> queue;
  bool stopping = false;
  // Deadline of the running call; time_point::max() when idle.
  std::atomic<std::chrono::steady_clock::time_point> running_deadline{
      std::chrono::steady_clock::time_point::max()};
  std::promise<void> exited;
};

MadWorker::MadWorker(boost::asio::io_context& io, std::shared_ptr<Fabric> fabric)
    : MadWorker(io, std::move(fabric), Options()) {}

MadWorker::MadWorker(boost::asio::io_context& io, std::shared_ptr<Fabric> fabric,
                     Options options)
    : io_(io),
      options_(options),
      shared_(std::make_shared<Shared>(std::move(fabric))),
      outlet_(std::make_shared<Outlet>(io)),
      thread_(&MadWorker::Loop, shared_) {}

MadWorker::~MadWorker() { Stop(); }

void MadWorker::Enqueue(Job job) {
  {
    std::lock_guard lock(shared_->mutex);
    if (shared_->stopping) return;
    shared_->queue.push_back(std::move(job));
  }
  shared_->wake.notify_one();
}

void MadWorker::Loop(std::shared_ptr<Shared> shared) {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(shared->mutex);
      shared->wake.wait(lock, [&] { return shared->stopping || !shared->queue.empty(); });
      if (shared->stopping) break;
      job = std::move(shared->queue.front());
      shared->queue.pop_front();
    }
    // Already answered by the watchdog while queued: sending its MADs now
    // would only delay the calls behind it.
    if (job.settled->load()) continue;
    shared->running_deadline.store(job.deadline);
    job.run(*shared->fabric);
    shared->running_deadline.store(std::chrono::steady_clock::time_point::max());
  }
  shared->exited.set_value();
}

void MadWorker::Stop() {
  if (!thread_.joinable()) return;
  outlet_->Close();
  std::future<void> exited = shared_->exited.get_future();
  {
    std::lock_guard lock(shared_->mutex);
    shared_->stopping = true;
    shared_->queue.clear();
  }
  shared_->wake.notify_one();
  if (exited.wait_for(options_.stop_grace) == std::future_status::ready) {
    thread_.join();
  } else {
    // A call stuck in the fabric: leave the thread behind with what it owns
    // (Shared keeps the Fabric alive) rather than hang the daemon's exit.
    thread_.detach();
  }
}

bool MadWorker::Stuck() const {
  return std::chrono::steady_clock::now() > shared_->running_deadline.load();
}

size_t MadWorker::Queued() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->queue.size();
}

}  // namespace smsupd
