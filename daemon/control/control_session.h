// One client connection of the control socket (internal to ControlServer).
//
// Life of a session: read one request line (idle timer armed) -> hand it to
// the host -> queue the one reply -> once it is written, read the next line.
// Requests are handled one at a time: a client that pipelines requests and
// never reads the replies is not read from, so it holds one reply and the
// socket's own buffers, never a growing queue; a reply not written within
// the idle timeout closes the connection. A session switched to follow mode
// instead streams events and only watches for the client closing.
//
// Every buffer has a bound: a request line up to max_request_bytes; a longer
// one (only `plan` carries a config text) up to max_upload_bytes, and only
// while the server's budget for such lines across all sessions allows
// (SessionHost::ReserveUpload); the outbound byte cap while streaming.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/control/command_handler.h"
#include "daemon/status/event_log.h"

namespace smsupd::control {

class ControlSession;

struct SessionLimits {
  std::size_t max_request_bytes = kMaxRequestBytes;
  std::size_t max_upload_bytes = kMaxUploadBytes;  // a request that carries a config text
  std::chrono::milliseconds idle_timeout{5000};
  std::size_t max_queued_bytes = 256 * 1024;
  // After a refused request (not a request, or answered "busy") the session
  // reads the next one only after this pause, doubled for each refusal in a
  // row up to max_refusal_pause: a client sending garbage, or asking again
  // the instant it is told "busy", as fast as it can gets a few answers a
  // second, and the loop stays with everyone else. Zero: no pause.
  std::chrono::milliseconds refusal_pause{50};
  std::chrono::milliseconds max_refusal_pause{1000};
};

// What a session needs from the server that owns it.
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  virtual void OnRequest(const std::shared_ptr<ControlSession>& session, Request request) = 0;
  virtual void OnClosed(ControlSession* session) = 0;
  // A request line beyond max_request_bytes needs `bytes` more of the
  // server's budget for such lines; false when it is spent. Released with
  // ReleaseUpload when the line is handled or the session ends.
  virtual bool ReserveUpload(std::size_t bytes) = 0;
  virtual void ReleaseUpload(std::size_t bytes) = 0;
  // Runs the session's handling of what it read or wrote: at once for root,
  // in the members' lane for others (MemberLane).
  virtual void RunTurn(const Caller& /*caller*/, std::function<void()> work) { work(); }
};

class ControlSession : public std::enable_shared_from_this<ControlSession> {
 public:
  using Socket = boost::asio::local::stream_protocol::socket;

  ControlSession(Socket socket, Caller caller, SessionLimits limits, SessionHost& host);

  const Caller& caller() const { return caller_; }
  bool closed() const { return closed_; }
  // Bytes held for this client: replies and events not yet written, and
  // what was read but not yet handled.
  std::size_t buffered_bytes() const { return queued_bytes_ + input_.size(); }

  // Starts reading requests.
  void Start();

  // Queues the reply to the current request and, unless `close_after` is set
  // or the session follows events, reads the next request.
  void Reply(const Response& response, bool close_after = false);
  // The same with the response already serialized (SerializeResponse) on
  // the thread that produced it: a large reply costs the loop no CPU.
  void ReplyLine(ResultCode result, std::string line, bool close_after = false);

  // Streams every event `log` receives from now on, after the reply that is
  // about to be queued; from here on the session reads no more requests.
  void Follow(EventLog& log);

  // Closes at once; pending writes are dropped. Safe to call twice.
  void Close();

 private:
  void ReadRequest();
  void OnRead(const boost::system::error_code& error, std::size_t bytes);
  void HandleRead(const boost::system::error_code& error, std::size_t bytes);
  void OnWritten(const boost::system::error_code& error);
  // Takes the next whole line out of input_ and hands it on; false if none.
  bool HandleBufferedLine();
  // `in_a_row`: the refusals of this kind in a row, this one included.
  void PauseAfterRefusal(int in_a_row);
  bool ReserveFor(std::size_t line_bytes);
  void ReleaseReserved();
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
  std::string input_;        // bytes read, not yet handled (at most one line and a chunk)
  std::array<char, 16384> chunk_{};
  std::size_t reserved_ = 0;  // upload budget held for a long line
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer write_timer_;
  boost::asio::steady_timer pause_timer_;
  int refusals_in_a_row_ = 0;  // lines that were not requests
  int busy_in_a_row_ = 0;      // requests answered kBusy
  bool pausing_ = false;  // after a refusal: the next read waits for pause_timer_
  std::deque<std::string> outbound_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool reading_ = false;
  bool line_timer_armed_ = false;  // the idle timer runs for the line being read
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
