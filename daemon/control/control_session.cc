#include "daemon/control/control_session.h"

#include <boost/asio/write.hpp>

#include <algorithm>

#include "common/bounded_json.h"
#include "common/control_wire.h"

namespace smsupd::control {

namespace asio = boost::asio;

namespace {

// A long line is a request only for a command that carries a config text.
// A line too deep to tell goes on to ParseRequest, which refuses it as a bad
// request.
bool TooLargeForItsCommand(const std::string& line) {
  const Result<nlohmann::json> parsed = ParseBoundedJson(line);
  if (!parsed) return parsed.error().message == kNotJsonError;
  if (!parsed->is_object()) return true;
  const auto command = parsed->find("command");
  return command == parsed->end() || !command->is_string() ||
         !CarriesConfigText(command->get<std::string>());
}

}  // namespace

ControlSession::ControlSession(Socket socket, Caller caller, SessionLimits limits,
                               SessionHost& host)
    : socket_(std::move(socket)),
      caller_(caller),
      limits_(limits),
      host_(host),
      timer_(socket_.get_executor()),
      write_timer_(socket_.get_executor()),
      pause_timer_(socket_.get_executor()) {}

void ControlSession::Start() { ReadRequest(); }

// The next request: one already buffered, or read more. Not while a reply is
// still being written: a client that does not read its replies is not read.
void ControlSession::ReadRequest() {
  if (closed_ || closing_ || followed_ || awaiting_reply_ || reading_ || pausing_) return;
  if (writing_ || !outbound_.empty()) return;  // WriteNext calls back when done
  if (HandleBufferedLine()) return;
  if (input_ended_) return CloseAfterWrites();
  if (!line_timer_armed_) ArmIdleTimer();  // once per line: trickling bytes do not extend it
  reading_ = true;
  socket_.async_read_some(asio::buffer(chunk_),
                          [self = shared_from_this()](const boost::system::error_code& error,
                                                      std::size_t bytes) {
                            self->OnRead(error, bytes);
                          });
}

// A closed session no longer touches its host: the server may be gone.
void ControlSession::OnRead(const boost::system::error_code& error, std::size_t bytes) {
  if (closed_) return;
  host_.RunTurn(caller_, [self = shared_from_this(), error, bytes] { self->HandleRead(error, bytes); });
}

// chunk_ holds the bytes until then: no read is asked before this runs.
void ControlSession::HandleRead(const boost::system::error_code& error, std::size_t bytes) {
  reading_ = false;
  if (closed_) return;
  if (error == asio::error::eof) {
    input_ended_ = true;  // a last request may come without its '\n'
  } else if (error) {
    return Close();
  }
  const std::size_t line_bytes = input_.find('\n') == std::string::npos ? input_.size() + bytes
                                                                         : input_.find('\n');
  if (!ReserveFor(line_bytes)) {
    ++idle_generation_;
    timer_.cancel();
    const bool budget = line_bytes <= limits_.max_upload_bytes;
    return Reply(MakeResponse(budget ? ResultCode::kBusy : ResultCode::kTooLarge,
                              budget ? "busy: too many large requests in flight; try again"
                                     : "request too large: the limit is " +
                                           std::to_string(limits_.max_request_bytes) +
                                           " bytes per line (" +
                                           std::to_string(limits_.max_upload_bytes) +
                                           " for a config text)"),
                 /*close_after=*/true);
  }
  input_.append(chunk_.data(), bytes);
  ReadRequest();
}

// A line longer than max_request_bytes holds budget from the server for the
// part beyond it; nothing is read past max_upload_bytes.
bool ControlSession::ReserveFor(std::size_t line_bytes) {
  if (line_bytes <= limits_.max_request_bytes + reserved_) return true;
  if (line_bytes > limits_.max_upload_bytes) return false;
  const std::size_t more = line_bytes - limits_.max_request_bytes - reserved_;
  if (!host_.ReserveUpload(more)) return false;
  reserved_ += more;
  return true;
}

void ControlSession::ReleaseReserved() {
  if (reserved_ == 0) return;
  host_.ReleaseUpload(reserved_);
  reserved_ = 0;
}

bool ControlSession::HandleBufferedLine() {
  std::size_t newline = input_.find('\n');
  if (newline == std::string::npos && !(input_ended_ && !input_.empty())) return false;
  ++idle_generation_;  // the line is complete: its timer is done
  timer_.cancel();
  line_timer_armed_ = false;
  std::string line = newline == std::string::npos ? std::move(input_) : input_.substr(0, newline);
  input_.erase(0, newline == std::string::npos ? input_.size() : newline + 1);
  const bool last = input_ended_ && input_.empty();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > limits_.max_request_bytes && TooLargeForItsCommand(line)) {
    ReleaseReserved();
    Reply(MakeResponse(ResultCode::kTooLarge, "request too large: the limit is " +
                                                  std::to_string(limits_.max_request_bytes) +
                                                  " bytes per line (a plan's config text excepted)"),
          /*close_after=*/true);
    return true;
  }
  auto parsed = ParseRequest(line);
  ReleaseReserved();
  if (auto* refusal = std::get_if<Response>(&parsed)) {
    PauseAfterRefusal(++refusals_in_a_row_);
    Reply(*refusal, last);
    return true;
  }
  refusals_in_a_row_ = 0;
  awaiting_reply_ = true;
  host_.OnRequest(shared_from_this(), std::move(std::get<Request>(parsed)));
  return true;
}

void ControlSession::PauseAfterRefusal(int in_a_row) {
  if (limits_.refusal_pause.count() <= 0) return;
  std::chrono::milliseconds pause = limits_.refusal_pause * (1 << std::min(in_a_row - 1, 20));
  pause = std::min(pause, limits_.max_refusal_pause);
  pausing_ = true;
  pause_timer_.expires_after(pause);
  pause_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& error) {
    self->pausing_ = false;
    if (!error) self->ReadRequest();
  });
}

void ControlSession::Reply(const Response& response, bool close_after) {
  if (closed_ || closing_) return;
  ReplyLine(response.result, SerializeResponse(response), close_after);
}

void ControlSession::ReplyLine(ResultCode result, std::string line, bool close_after) {
  if (closed_ || closing_) return;
  if (awaiting_reply_) {  // the answer to a request: "busy" slows its asker down
    busy_in_a_row_ = result == ResultCode::kBusy ? busy_in_a_row_ + 1 : 0;
    if (busy_in_a_row_ > 0 && !pausing_) PauseAfterRefusal(busy_in_a_row_);
  }
  awaiting_reply_ = false;
  Enqueue(std::move(line));
  if (close_after || (input_ended_ && input_.empty())) return CloseAfterWrites();
  ReadRequest();
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
  line_timer_armed_ = true;
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

// A reply the client does not take within the idle timeout ends the
// connection (its slot is not held for ever). A follower is bounded by
// max_queued_bytes instead.
void ControlSession::WriteNext() {
  if (closed_ || outbound_.empty()) return;
  writing_ = true;
  if (!followed_) {
    write_timer_.expires_after(limits_.idle_timeout);
    write_timer_.async_wait([weak = weak_from_this()](const boost::system::error_code& error) {
      auto self = weak.lock();
      if (!error && self && self->writing_) self->Close();
    });
  }
  asio::async_write(socket_, asio::buffer(outbound_.front()),
                    [self = shared_from_this()](const boost::system::error_code& error,
                                                std::size_t) {
                      if (self->closed_) return;
                      self->host_.RunTurn(self->caller_, [self, error] { self->OnWritten(error); });
                    });
}

void ControlSession::OnWritten(const boost::system::error_code& error) {
  writing_ = false;
  write_timer_.cancel();
  if (closed_) return;
  if (error) return Close();
  queued_bytes_ -= outbound_.front().size();
  outbound_.pop_front();
  if (!outbound_.empty()) return WriteNext();
  if (closing_) return Close();
  ReadRequest();
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
  ReleaseReserved();
  timer_.cancel();
  write_timer_.cancel();
  pause_timer_.cancel();
  boost::system::error_code ignored;
  socket_.shutdown(Socket::shutdown_both, ignored);
  socket_.close(ignored);
  host_.OnClosed(this);
}

}  // namespace smsupd::control
