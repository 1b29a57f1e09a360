#include "tests/daemon/metrics/slow_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace smsupd {

namespace {

// Reads what the server sent (an error page, if any) until the end of the
// stream: true once the connection is closed or reset before `deadline`.
bool DrainToEnd(int fd, std::chrono::steady_clock::time_point deadline) {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return false;
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, static_cast<int>(left.count()) + 1) <= 0) return false;
    const ssize_t got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (got == 0) return true;
    if (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return true;
  }
}

}  // namespace

SlowClient::SlowClient(int port, Mode mode) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  if (mode == Mode::kOneByteAtATime) trickler_ = std::thread([this] { Trickle(); });
}

SlowClient::~SlowClient() {
  stop_ = true;
  if (trickler_.joinable()) trickler_.join();
  if (fd_ >= 0) ::close(fd_);
}

// A request line and headers that never end: one byte every 100 ms, far
// slower than any real client, until the server closes or the test ends.
void SlowClient::Trickle() {
  constexpr std::string_view kRequest = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  for (size_t sent = 0; !stop_; ++sent) {
    const char byte = sent < kRequest.size() ? kRequest[sent] : 'a';
    if (::send(fd_, &byte, 1, MSG_NOSIGNAL) != 1) return;
    pollfd entry{fd_, POLLRDHUP, 0};
    if (::poll(&entry, 1, 100) > 0) return;
  }
}

bool SlowClient::Send(std::string_view text) const {
  return fd_ >= 0 &&
         ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
}

bool SlowClient::StillOpen() const {
  if (fd_ < 0) return false;
  char byte;
  const ssize_t got = ::recv(fd_, &byte, 1, MSG_DONTWAIT | MSG_PEEK);
  return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

bool SlowClient::WaitClosedByServer(std::chrono::milliseconds deadline) const {
  if (fd_ < 0) return false;
  return DrainToEnd(fd_, std::chrono::steady_clock::now() + deadline);
}

}  // namespace smsupd
