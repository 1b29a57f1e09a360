#include "smctl/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace smsupd::smctl {

using control::Request;
using control::Response;

ControlClient::ControlClient(std::string socket_path, std::chrono::milliseconds timeout,
                             std::size_t max_line_bytes)
    : socket_path_(std::move(socket_path)), timeout_(timeout), max_line_bytes_(max_line_bytes) {}

ControlClient::~ControlClient() {
  if (fd_ >= 0) close(fd_);
}

bool ControlClient::Fail(int exit_code, std::string code, std::string message) {
  error_ = ClientError{exit_code, std::move(code), std::move(message)};
  return false;
}

bool ControlClient::Connect() {
  if (fd_ >= 0) return true;
  sockaddr_un address{};
  if (socket_path_.empty() || socket_path_.size() >= sizeof address.sun_path)
    return Fail(kExitUsage, "usage", "socket path must be 1.." +
                                std::to_string(sizeof address.sun_path - 1) + " bytes");
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Fail(kExitFailed, "error", std::string("cannot create a socket: ") + std::strerror(errno));
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
  if (connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return true;
  int error = errno;
  close(fd_);
  fd_ = -1;
  if (error == EACCES || error == EPERM)
    return Fail(kExitFailed, "permission-denied", "permission denied on " + socket_path_ +
                                 ": only root and members of the control group may use it");
  if (error == ENOENT)
    return Fail(kExitUnreachable, "unreachable", "cannot reach smsupd: " + socket_path_ +
                                      " does not exist (is smsupd running? pick another "
                                      "daemon with --socket or SMSUPD_SOCKET)");
  return Fail(kExitUnreachable, "unreachable",
              "cannot reach smsupd at " + socket_path_ + ": " + std::strerror(error));
}

bool ControlClient::SendAll(const std::string& data) {
  std::size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    // The daemon may have answered and closed (e.g. busy): the reply is
    // still readable, so a failed send is judged by what ReadLine finds.
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<Response> ControlClient::Call(const Request& request) {
  if (!Connect()) return std::nullopt;
  SendAll(control::SerializeRequest(request) + "\n");
  auto line = ReadLine(timeout_);
  if (!line) return std::nullopt;
  auto response = control::ParseResponse(*line);
  if (!response) {
    Fail(kExitFailed, "bad-reply", "unreadable reply from smsupd: " + response.error().message);
    return std::nullopt;
  }
  return *response;
}

std::optional<std::string> ControlClient::ReadLine(std::optional<std::chrono::milliseconds> deadline) {
  using Clock = std::chrono::steady_clock;
  auto end = deadline ? Clock::now() + *deadline : Clock::time_point::max();
  while (true) {
    // Only the bytes not yet searched: a 47 MB line comes in ~700 reads.
    if (auto newline = buffer_.find('\n', searched_); newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      searched_ = 0;
      return line;
    }
    searched_ = buffer_.size();
    if (buffer_.size() > max_line_bytes_) {
      Fail(kExitFailed, "bad-reply", "unreadable reply from smsupd: a line longer than " +
                                         std::to_string(max_line_bytes_ >> 20) + " MiB");
      return std::nullopt;
    }
    int wait_ms = -1;
    if (deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      if (left.count() <= 0) {
        Fail(kExitUnreachable, "unreachable", "no answer from smsupd at " + socket_path_ + " within " +
                                   std::to_string(deadline->count() / 1000.0).substr(0, 4) + " s");
        return std::nullopt;
      }
      wait_ms = static_cast<int>(left.count());
    }
    pollfd entry{fd_, POLLIN, 0};
    int ready = poll(&entry, 1, wait_ms);
    if (ready < 0 && errno != EINTR) {
      Fail(kExitUnreachable, "unreachable", std::string("poll failed: ") + std::strerror(errno));
      return std::nullopt;
    }
    if (ready <= 0) continue;
    char chunk[65536];
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Fail(kExitUnreachable, "unreachable", "smsupd closed the connection");
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace smsupd::smctl
