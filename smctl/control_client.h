// smctl's side of the control socket: one connection, one request at a time,
// every wait bounded by a deadline. Failures carry the exit code smctl uses.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "common/control_protocol.h"
#include "smctl/exit_codes.h"

namespace smsupd::smctl {

struct ClientError {
  int exit_code = kExitUnreachable;  // exit_codes.h
  std::string code = "unreachable";  // error.code of the --json envelope
  std::string message;
};

// The longest reply line smctl takes from the daemon. The largest replies
// are `ports` on the largest fabrics (~47 MB for 40,590 ports); a longer line
// is refused (exit 1, bad-reply) rather than read into memory without end.
inline constexpr std::size_t kMaxReplyLineBytes = 512u << 20;

class ControlClient {
 public:
  ControlClient(std::string socket_path, std::chrono::milliseconds timeout,
                std::size_t max_line_bytes = kMaxReplyLineBytes);
  ~ControlClient();
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;

  // Connects if needed, sends `request`, waits up to the timeout for the
  // reply line. nullopt on failure; error() says why.
  std::optional<control::Response> Call(const control::Request& request);

  // The next line from the daemon (for `events --follow`), waiting for ever
  // when `deadline` is nullopt. nullopt on EOF, error or a line longer than
  // the client's bound (bad-reply).
  std::optional<std::string> ReadLine(std::optional<std::chrono::milliseconds> deadline);

  const ClientError& error() const { return error_; }

 private:
  bool Connect();
  bool SendAll(const std::string& data);
  bool Fail(int exit_code, std::string code, std::string message);

  std::string socket_path_;
  std::chrono::milliseconds timeout_;
  std::size_t max_line_bytes_;
  int fd_ = -1;
  std::string buffer_;
  std::size_t searched_ = 0;  // buffer_'s first bytes, known to hold no '\n'
  ClientError error_;
};

}  // namespace smsupd::smctl
