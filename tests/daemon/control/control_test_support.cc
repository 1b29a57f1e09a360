#include "tests/daemon/control/control_test_support.h"
#include "common/control_wire.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace smsupd::control::testing {

StatusWire SampleStatus() {
  StatusWire status;
  status.node = "mgmt-a";
  status.local_sm = {"MASTER", 15, 0x0002c90300a1b2c3, 1, 4242};
  status.opensm = {4242, 3725, 1, 0x0002c90300a1b2c3};
  status.master = MasterWire{0x0002c90300a1b2c3, 1, 15, "mgmt-a"};
  status.sms = {{0x0002c90300a1b2c3, 1, "MASTER", 15, "mgmt-a"},
                {0x0002c90300a1b2d4, 7, "STANDBY", 5, "mgmt-b"}};
  status.config = {3, "3f2a9c0d"};
  return status;
}

void FakeCommandHandler::Handle(const Request& request, const Caller& caller, Reply reply) {
  {
    std::lock_guard lock(mutex_);
    requests_.emplace_back(request, caller);
  }
  if (request.command == "status") return reply(MakeResponse(ResultCode::kSuccess, "", ToJson(status)));
  if (request.command == "metrics")
    return reply(MakeResponse(ResultCode::kSuccess, "", {{"exposition", metrics_exposition}}));
  if (request.command == "reload") {
    if (throw_on_reload) throw std::runtime_error("reload exploded");
    if (request.arguments.value("wait", false)) {
      std::lock_guard lock(mutex_);
      pending_ = std::move(reply);
      return;
    }
    return reply(reload_response);
  }
  if (auto it = responses.find(request.command); it != responses.end()) return reply(it->second);
  reply(MakeResponse(ResultCode::kUnsupported, "'" + request.command + "' is not implemented"));
}

std::vector<std::pair<Request, Caller>> FakeCommandHandler::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

CommandHandler::Reply FakeCommandHandler::TakePendingReply() {
  std::lock_guard lock(mutex_);
  return std::exchange(pending_, nullptr);
}

RunningServer::RunningServer(ControlServerOptions options, bool start)
    : work_(boost::asio::make_work_guard(io_)) {
  char pattern[] = "/tmp/smsupd-control-test-XXXXXX";
  if (!mkdtemp(pattern)) throw std::runtime_error("mkdtemp failed");
  directory_ = pattern;
  if (options.socket_path == kDefaultSocketPath) options.socket_path = directory_ + "/smsupd.sock";
  socket_path_ = options.socket_path;
  if (options.daemon_version.empty()) options.daemon_version = "smsupd test";
  if (!options.authenticator) {
    options.authenticator = [this](int) -> Result<Caller> {
      return Caller{1234, peer_uid.load(), 100, access.load()};
    };
  }
  server_ = std::make_unique<ControlServer>(io_, std::move(options), handler, events);
  if (start) start_status_ = server_->Start();
  thread_ = std::thread([this] { io_.run(); });
}

RunningServer::~RunningServer() {
  OnLoop([this] {
    server_->Stop();
    return 0;
  });
  work_.reset();
  io_.stop();
  thread_.join();
  server_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(directory_, ignored);
}

std::size_t RunningServer::ConnectionCount() {
  return OnLoop([this] { return server_->connection_count(); });
}

std::size_t RunningServer::BufferedBytes() {
  return OnLoop([this] { return server_->buffered_bytes(); });
}

void LineClient::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

bool LineClient::Connect(const std::string& path) {
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  return connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
}

bool LineClient::Send(const std::string& text) {
  std::size_t sent = 0;
  while (sent < text.size()) {
    ssize_t n = send(fd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<std::string> LineClient::ReadLine(std::chrono::milliseconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (true) {
    if (auto newline = buffer_.find('\n'); newline != std::string::npos) {
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd entry{fd_, POLLIN, 0};
    if (poll(&entry, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[65536];
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return std::nullopt;
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

std::optional<Response> LineClient::Call(const std::string& request_line) {
  if (!Send(request_line + "\n")) return std::nullopt;
  auto line = ReadLine();
  if (!line) return std::nullopt;
  auto response = ParseResponse(*line);
  if (!response) return std::nullopt;
  return *response;
}

bool LineClient::WaitForClose(std::chrono::milliseconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
    pollfd entry{fd_, POLLIN, 0};
    if (poll(&entry, 1, static_cast<int>(std::max<long>(left.count(), 1))) <= 0) continue;
    char chunk[4096];
    ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n > 0) buffer_.append(chunk, static_cast<std::size_t>(n));
  }
  return false;
}

bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

}  // namespace smsupd::control::testing
