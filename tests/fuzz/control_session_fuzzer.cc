// Fuzz target: the control socket's framing, driven through a real
// ControlSession on a socketpair in this process. The first input byte picks
// where the rest is cut into writes; the session reads between the writes;
// then the client shuts down its write side. The host answers `version`,
// `list-commands` and `events` at once (as ControlServer does) and every
// other command from a later loop turn (as a CommandHandler reply is posted);
// an `events` follow gets one event streamed after its reply. The host's
// budget for long lines never runs out, and a line may grow far beyond
// max_request_bytes, so the session's answers depend on the lines alone.
//
// Properties, for any bytes and any cuts:
// - no crash, and the client's EOF ends the session within a bound;
// - the session answers exactly what a line-by-line reading predicts: each
//   line up to '\n' (a trailing '\r' dropped), and a last one without '\n',
//   gets ParseRequest's refusal or the host's answer, in order; a line over
//   max_request_bytes that is not a `plan` gets `too-large` and ends the
//   session; after an accepted `events` follow only its event comes, and the
//   unterminated last line is answered and ends the session;
// - every byte of long-line budget the session took is given back.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/bounded_json.h"
#include "common/control_arguments.h"
#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/control/control_session.h"
#include "daemon/status/event_log.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::control {
namespace {

namespace asio = boost::asio;

// Small, so that short inputs reach the size limit; uploads (a plan's long
// line) never hit theirs.
constexpr std::size_t kLineLimit = 300;
constexpr std::size_t kUploadLimit = 1 << 20;
// Marks the line where the streamed event is expected.
constexpr std::string_view kEventLine = "<event>";

bool IsFollow(const Request& request) {
  auto args = ParseEventsArguments(request.arguments);
  return request.command == "events" && args.ok() && args->follow;
}

Response HostAnswer(const Request& request) {
  return MakeResponse(ResultCode::kSuccess, "handled " + request.command);
}

class Host : public SessionHost {
 public:
  Host(asio::io_context& io, EventLog& log) : io_(io), log_(log) {}

  void OnRequest(const std::shared_ptr<ControlSession>& session, Request request) override {
    if (request.command == "events") {
      bool follow = IsFollow(request);
      if (follow) session->Follow(log_);
      session->Reply(HostAnswer(request));
      if (follow) log_.Append(kEventOpenSmStarted, {{"pid", 1}});
    } else if (request.command == "version" || request.command == "list-commands") {
      session->Reply(HostAnswer(request));
    } else {
      std::weak_ptr<ControlSession> weak = session;
      asio::post(io_, [weak, answer = HostAnswer(request)] {
        if (auto live = weak.lock()) live->Reply(answer);
      });
    }
  }
  void OnClosed(ControlSession*) override {
    closed_ = true;
    session_.reset();
  }
  bool ReserveUpload(std::size_t bytes) override {
    reserved_ += bytes;
    return true;
  }
  void ReleaseUpload(std::size_t bytes) override {
    FUZZ_CHECK(bytes <= reserved_, "released more upload budget than was reserved");
    reserved_ -= bytes;
  }
  std::size_t reserved() const { return reserved_; }
  bool closed() const { return closed_; }
  // Like ControlServer, the host owns the session until it closes.
  void Own(std::shared_ptr<ControlSession> session) { session_ = std::move(session); }

 private:
  asio::io_context& io_;
  EventLog& log_;
  std::shared_ptr<ControlSession> session_;
  std::size_t reserved_ = 0;
  bool closed_ = false;
};

// A long line is a request only for a command that carries a config text;
// one nested too deep to tell goes on to ParseRequest (refused there).
bool MayBeLong(std::string_view line) {
  if (line.find('\0') != std::string_view::npos || !nlohmann::json::accept(line)) return false;
  if (fuzz::JsonNesting(line) > kMaxJsonDepth) return true;
  auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("command") || !json["command"].is_string()) return false;
  return CarriesConfigText(json["command"].get<std::string>());
}

// What the session must write for `input`: one line each, kEventLine where
// the followed event goes.
std::vector<std::string> Predict(std::string_view input) {
  std::vector<std::string> lines;
  while (!input.empty()) {
    std::size_t newline = input.find('\n');
    bool terminated = newline != std::string_view::npos;
    std::string_view line = input.substr(0, terminated ? newline : input.size());
    input.remove_prefix(terminated ? newline + 1 : input.size());
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.size() > kLineLimit && !MayBeLong(line)) {
      lines.push_back(SerializeResponse(MakeResponse(
          ResultCode::kTooLarge, "request too large: the limit is " + std::to_string(kLineLimit) +
                                     " bytes per line (a plan's config text excepted)")));
      break;
    }
    auto parsed = ParseRequest(line);
    if (const auto* refusal = std::get_if<Response>(&parsed)) {
      lines.push_back(SerializeResponse(*refusal));
      continue;
    }
    const Request& request = std::get<Request>(parsed);
    lines.push_back(SerializeResponse(HostAnswer(request)));
    if (IsFollow(request)) {
      if (terminated) lines.emplace_back(kEventLine);
      break;
    }
  }
  return lines;
}

class Client {
 public:
  explicit Client(int fd) : fd_(fd) { ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK); }
  ~Client() { ::close(fd_); }

  // Writes `bytes`, letting the loop run while the socket is full.
  void Write(std::string_view bytes, asio::io_context& io) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        return;  // the session closed: the rest is never read
      } else {
        Run(io);
      }
    }
    Run(io);
  }
  void Run(asio::io_context& io) {
    io.restart();
    io.poll();
    Drain();
  }
  void ShutdownWrites() { ::shutdown(fd_, SHUT_WR); }
  // Reads what has arrived; true once the session's side is closed.
  bool Drain() {
    char buffer[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n > 0) {
        received_.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      return n == 0 || (errno != EAGAIN && errno != EINTR);
    }
  }
  const std::string& received() const { return received_; }

 private:
  int fd_;
  std::string received_;
};

void CheckOutput(const std::vector<std::string>& expected, const std::string& received) {
  std::string want;
  std::size_t at = 0;
  for (const std::string& line : expected) {
    std::size_t end = received.find('\n', at);
    FUZZ_CHECK(end != std::string::npos, "missing line '" + line + "'; got:\n" + received);
    std::string got = received.substr(at, end - at);
    at = end + 1;
    if (line == kEventLine) {
      auto json = nlohmann::json::parse(got, nullptr, false);
      FUZZ_CHECK(!json.is_discarded() && ParseEventWire(json).ok(), "not an event: " + got);
    } else {
      FUZZ_CHECK(got == line, "expected '" + line + "', got '" + got + "'");
    }
  }
  FUZZ_CHECK(at == received.size(), "unexpected output: " + received.substr(at));
}

}  // namespace
}  // namespace smsupd::control

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::control;
  if (size == 0) return 0;
  std::string_view input = smsupd::fuzz::AsText(data + 1, size - 1);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return 0;

  boost::asio::io_context io;
  smsupd::EventLog log;
  Host host(io, log);
  Client client(fds[1]);
  {
    ControlSession::Socket socket(io);
    socket.assign(boost::asio::local::stream_protocol(), fds[0]);
    SessionLimits limits;
    limits.max_request_bytes = kLineLimit;
    limits.max_upload_bytes = kUploadLimit;
    limits.idle_timeout = std::chrono::seconds(60);  // never the reason a session ends here
    limits.refusal_pause = std::chrono::milliseconds(0);  // answers, not timing, are checked
    auto session = std::make_shared<ControlSession>(std::move(socket), Caller{}, limits, host);
    host.Own(session);
    session->Start();
  }
  for (std::string_view chunk : smsupd::fuzz::Chunks(input, data[0])) client.Write(chunk, io);
  client.ShutdownWrites();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  bool eof = false;
  while (!(host.closed() && eof) && std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_one_for(std::chrono::milliseconds(20));
    eof = client.Drain();
  }
  FUZZ_CHECK(host.closed() && eof, "the session did not end after the client's EOF");
  io.restart();
  io.run();  // completes the aborted operations, which release the session
  CheckOutput(Predict(input), client.received());
  FUZZ_CHECK(host.reserved() == 0, std::to_string(host.reserved()) + " bytes of upload budget kept");
  return 0;
}
