#include "daemon/status/event_log.h"
#include "common/control_wire.h"

#include <algorithm>
#include <chrono>

namespace smsupd {

EventLog::EventLog(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

std::uint64_t EventLog::Append(std::string_view kind, nlohmann::json details) {
  if (!details.is_object()) details = nlohmann::json{{"value", std::move(details)}};
  EventWire event{next_seq_++, control::FormatRfc3339Millis(std::chrono::system_clock::now()),
                  std::string(kind), std::move(details)};
  events_.push_back(event);
  if (events_.size() > capacity_) events_.pop_front();
  // Copy the ids first: a subscriber may unsubscribe itself or others.
  std::vector<SubscriptionId> ids;
  for (const auto& [id, subscriber] : subscribers_) ids.push_back(id);
  for (SubscriptionId id : ids) {
    auto it = subscribers_.find(id);
    if (it == subscribers_.end()) continue;
    Subscriber subscriber = it->second;  // survives Unsubscribe inside the call
    subscriber(event);
  }
  return event.seq;
}

std::vector<control::EventWire> EventLog::Since(std::uint64_t seq) const {
  auto first = std::find_if(events_.begin(), events_.end(),
                            [seq](const control::EventWire& event) { return event.seq > seq; });
  return {first, events_.end()};
}

std::uint64_t EventLog::first_seq() const {
  return events_.empty() ? next_seq_ : events_.front().seq;
}

EventLog::SubscriptionId EventLog::Subscribe(Subscriber subscriber) {
  SubscriptionId id = next_subscription_++;
  subscribers_.emplace(id, std::move(subscriber));
  return id;
}

void EventLog::Unsubscribe(SubscriptionId id) { subscribers_.erase(id); }

}  // namespace smsupd
