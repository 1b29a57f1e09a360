// Shared by the control server and smctl tests: a fake CommandHandler, a
// ControlServer running on its own io thread in a temp directory, and a
// blocking line client with deadlines.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "daemon/control/command_handler.h"
#include "daemon/control/control_server.h"
#include "daemon/status/event_log.h"

namespace smsupd::control::testing {

StatusWire SampleStatus();

// Answers status with SampleStatus(), reload with `reload_response` (or keeps
// the reply for later when "wait" is set), throws for "reload" when asked
// to, answers a command in `responses` with its entry, and everything else
// kUnsupported.
class FakeCommandHandler : public CommandHandler {
 public:
  void Handle(const Request& request, const Caller& caller, Reply reply) override;

  std::vector<std::pair<Request, Caller>> requests() const;
  // The reply of the last `reload` with "wait": true, once it arrived.
  Reply TakePendingReply();

  StatusWire status = SampleStatus();
  std::string metrics_exposition =
      "# HELP smsupd_master_present 1 when this node sees a master SM, else 0\n"
      "# TYPE smsupd_master_present gauge\nsmsupd_master_present 1\n";
  Response reload_response = MakeResponse(ResultCode::kSuccess, "config generation 4 applied");
  std::atomic<bool> throw_on_reload{false};
  // The reply to any other command (plan, history, rollback, failover,
  // ...); set before the server is used.
  std::map<std::string, Response> responses;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<Request, Caller>> requests_;
  Reply pending_;
};

// A ControlServer on a socket in a fresh temp directory, served by its own
// io thread. Peers get `access` (changeable while running) unless the
// options carry an authenticator.
class RunningServer {
 public:
  explicit RunningServer(ControlServerOptions options = {}, bool start = true);
  ~RunningServer();

  // Runs `task` on the io thread and waits for it.
  template <typename Task>
  auto OnLoop(Task task) -> decltype(task()) {
    std::packaged_task<decltype(task())()> packaged(std::move(task));
    auto result = packaged.get_future();
    boost::asio::post(io_, [&packaged] { packaged(); });
    return result.get();
  }

  std::size_t ConnectionCount();
  std::size_t BufferedBytes();
  const std::string& socket_path() const { return socket_path_; }
  const std::string& directory() const { return directory_; }
  const Status& start_status() const { return start_status_; }

  std::atomic<AccessLevel> access{AccessLevel::kFull};
  std::atomic<uid_t> peer_uid{1000};
  FakeCommandHandler handler;
  EventLog events{100};

 private:
  std::string directory_;
  std::string socket_path_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<ControlServer> server_;
  Status start_status_;
  std::thread thread_;
};

// A blocking client for one connection; every read has a deadline.
class LineClient {
 public:
  LineClient() = default;
  LineClient(const LineClient&) = delete;
  LineClient& operator=(const LineClient&) = delete;
  ~LineClient() { Close(); }
  void Close();
  bool Connect(const std::string& path);
  bool Send(const std::string& text);  // sent as is (add '\n' yourself)
  // The next line without '\n'; nullopt on EOF, error or deadline.
  std::optional<std::string> ReadLine(std::chrono::milliseconds deadline = std::chrono::seconds(10));
  // Sends `request` + '\n' and parses the reply line.
  std::optional<Response> Call(const std::string& request_line);
  // True once the server closed the connection (EOF) before the deadline.
  bool WaitForClose(std::chrono::milliseconds deadline = std::chrono::seconds(10));
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string buffer_;
};

// Polls `condition` until it holds or `deadline` passes.
bool WaitFor(const std::function<bool()>& condition,
             std::chrono::milliseconds deadline = std::chrono::seconds(10));

}  // namespace smsupd::control::testing
