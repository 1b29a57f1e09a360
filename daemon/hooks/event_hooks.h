// The daemon's hooks part (docs/hooks.md): every event the event log gets
// becomes a HookJob (argv and environment fixed at that moment) queued for
// the HookRunner, when hooks.directory is set. Runs on the event loop; the
// only work done there is building the job and queueing it.
#pragma once

#include <functional>
#include <memory>

#include "common/control_wire.h"
#include "config/config.h"
#include "daemon/hooks/hook_runner.h"
#include "daemon/status/event_log.h"

namespace smsupd {

class EventHooks {
 public:
  struct Sources {
    std::function<control::StatusWire()> status;
    std::function<const config::HookSettings&()> settings;  // the running config's
    Guid local_port = 0;
  };
  // Told of a hook run's result (any thread) and of a dropped event (loop).
  struct Sinks {
    HookRunner::ResultSink ran;
    std::function<void()> dropped;
  };

  EventHooks(Sources sources, Sinks sinks);
  ~EventHooks();

  // Every event appended to `events` from now on runs the hooks.
  void Follow(EventLog& events);
  // Ends the runner (a running hook is killed); later events run nothing.
  void Stop();

 private:
  void OnEvent(const control::EventWire& event);

  Sources sources_;
  Sinks sinks_;
  HookRunner runner_;
  EventLog* events_ = nullptr;
  EventLog::SubscriptionId subscription_ = 0;
};

}  // namespace smsupd
