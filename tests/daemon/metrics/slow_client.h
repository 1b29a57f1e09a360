// A client that holds a connection to a loopback listener without finishing
// its request: it sends nothing, or a request's first bytes one at a time.
// For the tests of the metrics listener's bounds.
#pragma once

#include <atomic>
#include <chrono>
#include <string_view>
#include <thread>

namespace smsupd {

class SlowClient {
 public:
  enum class Mode { kSilent, kOneByteAtATime };

  // Connects to 127.0.0.1:<port>; connected() tells whether it worked.
  SlowClient(int port, Mode mode);
  ~SlowClient();
  SlowClient(const SlowClient&) = delete;
  SlowClient& operator=(const SlowClient&) = delete;

  bool connected() const { return fd_ >= 0; }
  // Sends `text` at once (a whole request, for a client that then idles).
  bool Send(std::string_view text) const;
  // True while the server has neither closed nor reset the connection (no
  // end of stream pending).
  bool StillOpen() const;
  // Waits up to `deadline` for the server to close or reset the connection.
  bool WaitClosedByServer(std::chrono::milliseconds deadline) const;

 private:
  void Trickle();

  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread trickler_;
};

}  // namespace smsupd
