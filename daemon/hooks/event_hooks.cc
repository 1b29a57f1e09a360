#include "daemon/hooks/event_hooks.h"

#include <spdlog/spdlog.h>

namespace smsupd {

EventHooks::EventHooks(Sources sources, Sinks sinks)
    : sources_(std::move(sources)), sinks_(std::move(sinks)), runner_(sinks_.ran) {}

EventHooks::~EventHooks() { Stop(); }

void EventHooks::Follow(EventLog& events) {
  events_ = &events;
  subscription_ = events.Subscribe([this](const control::EventWire& event) { OnEvent(event); });
}

void EventHooks::Stop() {
  if (events_ != nullptr) events_->Unsubscribe(subscription_);
  events_ = nullptr;
  runner_.Stop();
}

void EventHooks::OnEvent(const control::EventWire& event) {
  const config::HookSettings& settings = sources_.settings();
  if (settings.directory.empty()) return;
  HookJob job = MakeHookJob(event, sources_.status(), sources_.local_port, settings.directory,
                            std::chrono::milliseconds(settings.timeout_ms));
  if (runner_.Enqueue(std::move(job))) return;
  spdlog::warn("HOOK_EVENT_DROPPED event {} ({}) runs no hook: {} events already wait for the "
               "hooks (smctl events has it)",
               event.seq, event.kind, HookRunner::kDefaultCapacity);
  if (sinks_.dropped) sinks_.dropped();
}

}  // namespace smsupd
