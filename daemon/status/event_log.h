// What happened, in order: a bounded ring of events with a sequence number
// that only grows, read by `smctl events --since N` and streamed to
// `smctl events --follow` subscribers. The status board (status_board.h)
// appends; the control server reads and subscribes.
//
// Not thread-safe: use it on the daemon's io_context thread only (post from
// other threads). Subscribers run synchronously inside Append.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/control_protocol.h"
#include "common/control_wire.h"

namespace smsupd {

// An event goes to every `events --follow` client (256 KiB queued each) and
// to each hook in its environment (the kernel takes at most 128 KiB in one
// variable): its details are bounded where events are made.
inline constexpr std::size_t kMaxEventListItems = 20;      // of any list in the details
inline constexpr std::size_t kMaxEventStringBytes = 2048;  // of any string in the details
inline constexpr std::size_t kMaxEventDetailsBytes = 32 * 1024;  // the details as JSON

// `details` within the bounds above: a longer list keeps its first
// kMaxEventListItems entries and gains "<key>_total" with the whole count
// (the whole list stays where it was made, e.g. the generation's meta.json);
// a longer string is cut with "..."; details still over
// kMaxEventDetailsBytes become {"text": <cut>, "cut": true}.
nlohmann::json BoundEventDetails(nlohmann::json details);

class EventLog {
 public:
  using EventWire = control::EventWire;
  using Subscriber = std::function<void(const EventWire&)>;
  using SubscriptionId = std::uint64_t;

  // Keeps the newest `capacity` events (at least 1).
  explicit EventLog(std::size_t capacity = 1000);

  // Stamps the event with the next seq (the first is 1) and the current UTC
  // time, stores it, hands it to every subscriber and returns its seq.
  // `details` should be a JSON object (anything else is wrapped as
  // {"value": details}); it is bounded first (BoundEventDetails).
  std::uint64_t Append(std::string_view kind, nlohmann::json details = nlohmann::json::object());

  // Events still held with seq > `seq`, oldest first. Events older than the
  // ring's capacity are gone: compare first_seq() to notice the gap.
  std::vector<EventWire> Since(std::uint64_t seq) const;

  std::uint64_t last_seq() const { return next_seq_ - 1; }
  // Seq of the oldest event held; last_seq() + 1 when empty.
  std::uint64_t first_seq() const;
  std::size_t size() const { return events_.size(); }

  // A subscriber sees every event appended after Subscribe returns, in seq
  // order. Unsubscribing inside a callback is allowed.
  SubscriptionId Subscribe(Subscriber subscriber);
  void Unsubscribe(SubscriptionId id);
  std::size_t subscriber_count() const { return subscribers_.size(); }

 private:
  std::size_t capacity_;
  std::deque<EventWire> events_;
  std::uint64_t next_seq_ = 1;
  std::map<SubscriptionId, Subscriber> subscribers_;
  SubscriptionId next_subscription_ = 1;
};

}  // namespace smsupd
