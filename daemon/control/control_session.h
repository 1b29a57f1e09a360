// One client connection of the control socket (internal to ControlServer).
//
// Life of a session: read one request line (idle timer armed) -> hand it to
// the host -> queue the one reply -> read the next line. A session switched
// to follow mode instead streams events and only watches for the client
// closing. Every wait has a bound: the idle timer while waiting for a line,
// the outbound byte cap while streaming, and a close deadline for a client
// that stops reading while the last lines are queued.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/streambuf.hpp>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/control/command_handler.h"
#include "daemon/status/event_log.h"

namespace smsupd::control {

class ControlSession;

struct SessionLimits {
  std::size_t max_request_bytes = kMaxRequestBytes;
  std::chrono::milliseconds idle_timeout{5000};
  std::size_t max_queued_bytes = 256 * 1024;
};

// What a session needs from the server that owns it.
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual void OnRequest(const std::shared_ptr<ControlSession>& session, Request request) = 0;
  virtual void OnClosed(ControlSession* session) = 0;
};

class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;

  ControlSession(Socket socket, Caller caller, SessionLimits limits, SessionHost& host);

  const Caller& caller() const { return caller_; }
  bool closed() const { return closed_; }

  // Starts reading requests.
  void Start();

  // Queues the reply to the current request and, unless `close_after` is set
  // or the session follows events, reads the next request.
  void Reply(const Response& response, bool close_after = false);

  // Streams every event `log` receives from now on, after the reply that is
  // about to be queued; from here on the session reads no more requests.
  void Follow(EventLog& log);

  // Closes at once; pending writes are dropped. Safe to call twice.
  void Close();

 private:
  void ReadRequest();
  void OnRequestRead(const boost::system::error_code& error, std::size_t bytes);
  void WatchForHangup();
  void ArmIdleTimer();
  void StreamEvent(const EventWire& event);
  void Enqueue(std::string line);
  void WriteNext();
  void CloseAfterWrites();

  Socket socket_;
  Caller caller_;
  SessionLimits limits_;
  SessionHost& host_;
  boost::asio::streambuf input_;
  boost::asio::steady_timer timer_;
  std::deque<std::string> outbound_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool awaiting_reply_ = false;
  bool input_ended_ = false;
  bool closing_ = false;  // close once the queue is written
  bool closed_ = false;
  std::uint64_t idle_generation_ = 0;
  EventLog* followed_ = nullptr;
  EventLog::SubscriptionId subscription_ = 0;
  char hangup_probe_[256];
};

}  // namespace smsupd::control
