#include "daemon/control/control_session.h"
#include "common/control_wire.h"

#include <istream>

#include <boost/asio/read_until.hpp>
#include <boost/asio/write.hpp>

namespace smsupd::control {

namespace asio = boost::asio;

ControlSession::ControlSession(Socket socket, Caller caller, SessionLimits limits,
                               SessionHost& host)
    : socket_(std::move(socket)),
      caller_(caller),
      limits_(limits),
      host_(host),
      // +1: the line's '\n' is in the buffer too.
      input_(limits.max_request_bytes + 1),
      timer_(socket_.get_executor()) {}

void ControlSession::Start() { ReadRequest(); }

void ControlSession::ReadRequest() {
  if (closed_ || closing_) return;
  ArmIdleTimer();
  asio::async_read_until(socket_, input_, '\n',
                         [self = shared_from_this()](const boost::system::error_code& error,
                                                     std::size_t bytes) {
                           self->OnRequestRead(error, bytes);
                         });
}

void ControlSession::OnRequestRead(const boost::system::error_code& error, std::size_t bytes) {
  if (closed_) return;
  ++idle_generation_;
  timer_.cancel();
  if (error == asio::error::not_found) {  // no '\n' within the size cap
    Reply(MakeResponse(ResultCode::kTooLarge,
                       "request too large: the limit is " +
                           std::to_string(limits_.max_request_bytes) + " bytes per line"),
          /*close_after=*/true);
    return;
  }
  std::string line;
  if (error == asio::error::eof && input_.size() > 0) {
    // A last request without '\n' before the client shut down its side.
    bytes = input_.size();
    input_ended_ = true;
  } else if (error) {
    return Close();
  }
  line.resize(bytes);
  std::istream(&input_).read(line.data(), static_cast<std::streamsize>(bytes));
  if (!line.empty() && line.back() == '\n') line.pop_back();
  if (!line.empty() && line.back() == '\r') line.pop_back();

  auto parsed = ParseRequest(line);
  if (auto* refusal = std::get_if<Response>(&parsed)) {
    Reply(*refusal, input_ended_);
    return;
  }
  awaiting_reply_ = true;
  host_.OnRequest(shared_from_this(), std::move(std::get<Request>(parsed)));
}

void ControlSession::Reply(const Response& response, bool close_after) {
  if (closed_ || closing_) return;
  awaiting_reply_ = false;
  Enqueue(SerializeResponse(response));
  if (close_after || input_ended_) return CloseAfterWrites();
  if (!followed_) ReadRequest();
}

void ControlSession::Follow(EventLog& log) {
  if (closed_ || closing_) return;
  followed_ = &log;
  std::weak_ptr<ControlSession> weak = shared_from_this();
  subscription_ = log.Subscribe([weak](const EventWire& event) {
    if (auto self = weak.lock()) self->StreamEvent(event);
  });
  if (!input_ended_) WatchForHangup();
}

// A following client sends nothing more; reading tells us when it leaves.
void ControlSession::WatchForHangup() {
  socket_.async_read_some(asio::buffer(hangup_probe_),
                          [self = shared_from_this()](const boost::system::error_code& error,
                                                      std::size_t) {
                            if (self->closed_) return;
                            if (error) return self->Close();
                            self->WatchForHangup();
                          });
}

void ControlSession::StreamEvent(const EventWire& event) {
  if (closed_ || closing_) return;
  std::string line = ToJson(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (queued_bytes_ + line.size() + 1 > limits_.max_queued_bytes) {
    // The reader fell behind: tell it (after what it has not read yet) and go.
    Enqueue(SerializeResponse(MakeResponse(
        ResultCode::kTooSlow, "event stream dropped: the reader fell behind by more than " +
                                  std::to_string(limits_.max_queued_bytes) +
                                  " bytes; reconnect with --since " +
                                  std::to_string(event.seq - 1))));
    return CloseAfterWrites();
  }
  Enqueue(std::move(line));
}

void ControlSession::ArmIdleTimer() {
  // The generation guards against a wait that completed just before a cancel.
  std::uint64_t generation = ++idle_generation_;
  timer_.expires_after(limits_.idle_timeout);
  timer_.async_wait([self = shared_from_this(), generation](const boost::system::error_code& error) {
    if (error || self->closed_ || self->awaiting_reply_ || self->followed_) return;
    if (generation != self->idle_generation_) return;
    self->Reply(MakeResponse(ResultCode::kTimeout, "connection idle for too long; closing"),
                /*close_after=*/true);
  });
}

void ControlSession::Enqueue(std::string line) {
  line.push_back('\n');
  queued_bytes_ += line.size();
  outbound_.push_back(std::move(line));
  if (!writing_) WriteNext();
}

void ControlSession::WriteNext() {
  if (closed_ || outbound_.empty()) return;
  writing_ = true;
  asio::async_write(socket_, asio::buffer(outbound_.front()),
                    [self = shared_from_this()](const boost::system::error_code& error,
                                                std::size_t) {
                      self->writing_ = false;
                      if (self->closed_) return;
                      if (error) return self->Close();
                      self->queued_bytes_ -= self->outbound_.front().size();
                      self->outbound_.pop_front();
                      if (!self->outbound_.empty()) return self->WriteNext();
                      if (self->closing_) self->Close();
                    });
}

// Lets queued lines reach the client, but never waits longer than the idle
// timeout for a client that does not read them.
void ControlSession::CloseAfterWrites() {
  closing_ = true;
  ++idle_generation_;
  if (followed_) followed_->Unsubscribe(subscription_), followed_ = nullptr;
  if (!writing_ && outbound_.empty()) return Close();
  timer_.expires_after(limits_.idle_timeout);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    if (!error) self->Close();
  });
}

void ControlSession::Close() {
  if (closed_) return;
  auto self = shared_from_this();  // the host may drop its reference below
  closed_ = true;
  if (followed_) followed_->Unsubscribe(subscription_), followed_ = nullptr;
  timer_.cancel();
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_both, ignored);
  socket_.close(ignored);
  host_.OnClosed(this);
}

}  // namespace smsupd::control
