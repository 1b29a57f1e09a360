// Runs the hooks of each queued event on its own thread, one hook at a time,
// events in order: the event loop only queues (Enqueue never blocks), so a
// slow or hung hook never delays a failover or an apply. The queue is
// bounded: an event that finds it full runs no hook and Enqueue says so
// (the caller logs HOOK_EVENT_DROPPED and counts it). Hooks can therefore be
// missed; `smctl events --follow --json` is the reliable channel
// (docs/hooks.md "When hooks are missed").
//
// Journal lines: HOOK_RAN, HOOK_FAILED, HOOK_TIMEOUT, HOOK_REFUSED,
// HOOK_DIRECTORY_REFUSED, HOOK_OUTPUT (docs/log-messages.md).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <map>
#include <string>
#include <string_view>
#include <thread>

#include "daemon/hooks/hook_directory.h"
#include "daemon/hooks/hook_job.h"

namespace smsupd {

class HookRunner {
 public:
  // Told the result of every hook run ("ok", "failed", "timeout",
  // "refused"), on the runner's thread.
  using ResultSink = std::function<void(std::string_view result)>;

  static constexpr std::size_t kDefaultCapacity = 64;

  explicit HookRunner(ResultSink results, std::size_t capacity = kDefaultCapacity);
  ~HookRunner();  // Stop()
  HookRunner(const HookRunner&) = delete;
  HookRunner& operator=(const HookRunner&) = delete;

  // False when the queue is full or the runner stopped: the job is dropped.
  bool Enqueue(HookJob job);
  // Drops the queued jobs, kills a running hook's process group (what the
  // hook left running included), joins.
  void Stop();
  std::size_t Queued() const;

 private:
  void Loop();
  void RunJob(const HookJob& job);
  void RunOne(const OpenedHook& hook, const HookJob& job);
  // Logs the refusal of `path` (the directory or a hook) once until it
  // changes (every event would repeat it).
  void Refused(const std::string& path, const std::string& what);
  // `path` is usable again: a later refusal of it is logged again.
  void Forget(const std::string& path);

  ResultSink results_;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<HookJob> queue_;
  std::atomic<bool> stopping_{false};
  std::map<std::string, std::string> refusals_logged_;  // path -> refusal logged; runner thread only
  std::thread thread_;
};

}  // namespace smsupd
