#include "daemon/status/event_log.h"
#include "common/control_wire.h"
#include "common/printable_text.h"

#include <algorithm>
#include <chrono>

namespace smsupd {

namespace {

// Events are made by the daemon itself: a few levels deep at most. Deeper
// values are left alone here and caught by the size bound.
constexpr int kBoundDepth = 8;

void Bound(nlohmann::json& value, int depth) {
  if (depth > kBoundDepth) return;
  if (value.is_string()) {
    value = CutText(value.get<std::string>(), kMaxEventStringBytes);
  } else if (value.is_array()) {
    if (value.size() > kMaxEventListItems) value.erase(value.begin() + kMaxEventListItems, value.end());
    for (auto& item : value) Bound(item, depth + 1);
  } else if (value.is_object()) {
    std::vector<std::pair<std::string, std::size_t>> totals;
    for (auto& [key, item] : value.items())
      if (item.is_array() && item.size() > kMaxEventListItems) totals.emplace_back(key, item.size());
    for (auto& [key, item] : value.items()) Bound(item, depth + 1);
    for (const auto& [key, total] : totals)
      if (!value.contains(key + "_total")) value[key + "_total"] = total;
  }
}

}  // namespace

nlohmann::json BoundEventDetails(nlohmann::json details) {
  Bound(details, 0);
  const std::string text = details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() <= kMaxEventDetailsBytes) return details;
  const std::string said = details.contains("text") && details["text"].is_string()
                               ? details["text"].get<std::string>()
                               : text;
  return {{"text", CutText(said, kMaxEventStringBytes)}, {"cut", true}};
}

EventLog::EventLog(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

std::uint64_t EventLog::Append(std::string_view kind, nlohmann::json details) {
  if (!details.is_object()) details = nlohmann::json{{"value", std::move(details)}};
  details = BoundEventDetails(std::move(details));
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
