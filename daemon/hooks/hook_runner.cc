#include "daemon/hooks/hook_runner.h"

#include <spdlog/spdlog.h>

#include "daemon/hooks/hook_directory.h"
#include "daemon/hooks/hook_process.h"

namespace smsupd {

HookRunner::HookRunner(ResultSink results, std::size_t capacity)
    : results_(std::move(results)), capacity_(std::max<std::size_t>(capacity, 1)),
      thread_([this] { Loop(); }) {}

HookRunner::~HookRunner() { Stop(); }

bool HookRunner::Enqueue(HookJob job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void HookRunner::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

std::size_t HookRunner::Queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

void HookRunner::Loop() {
  for (;;) {
    HookJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    RunJob(job);
  }
}

void HookRunner::RunJob(const HookJob& job) {
  HookListing listing = ListHooks(job.directory);
  if (!listing.error.empty()) {
    Refused(job.directory, "HOOK_DIRECTORY_REFUSED no hook runs: " + listing.error);
    if (results_) results_("refused");
    return;
  }
  Forget(job.directory);
  for (const std::string& name : listing.names) {
    if (stopping_) return;
    OpenedHook hook = OpenHook(listing, job.directory, name);
    if (hook.kind == OpenedHook::Kind::kSkip) continue;
    if (hook.kind == OpenedHook::Kind::kRefused) {
      Refused(hook.path, "HOOK_REFUSED " + hook.refusal + "; it does not run (a hook must be a file owned by "
                            "root and writable by no one else, not a symbolic link)");
      if (results_) results_("refused");
      continue;
    }
    Forget(hook.path);
    RunOne(hook, job);
  }
}

void HookRunner::RunOne(const OpenedHook& hook, const HookJob& job) {
  const std::string& path = hook.path;
  auto output = [&path](bool from_stderr, const std::string& line) {
    spdlog::log(from_stderr ? spdlog::level::warn : spdlog::level::info, "HOOK_OUTPUT {}: {}", path, line);
  };
  HookOutcome outcome = RunHook(path, hook.fd.get(), job, output, stopping_);
  switch (outcome.kind) {
    case HookOutcome::Kind::kOk:
      spdlog::info("HOOK_RAN {} {} ({} ms)", path, job.event, outcome.took.count());
      if (results_) results_("ok");
      break;
    case HookOutcome::Kind::kTimeout:
      spdlog::warn("HOOK_TIMEOUT {} {}: killed after {} ms ({}; hooks.timeout_ms {})", path, job.event,
                   outcome.took.count(), outcome.text, job.timeout.count());
      if (results_) results_("timeout");
      break;
    case HookOutcome::Kind::kFailed:
    case HookOutcome::Kind::kNotStarted:
      spdlog::warn("HOOK_FAILED {} {}: {}", path, job.event, outcome.text);
      if (results_) results_("failed");
      break;
  }
}

void HookRunner::Refused(const std::string& path, const std::string& what) {
  auto [it, inserted] = refusals_logged_.try_emplace(path, what);
  if (!inserted && it->second == what) return;
  it->second = what;
  spdlog::error("{}", what);
}

void HookRunner::Forget(const std::string& path) { refusals_logged_.erase(path); }

}  // namespace smsupd
