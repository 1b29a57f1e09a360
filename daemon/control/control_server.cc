#include "daemon/control/control_server.h"

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <exception>

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include "common/control_arguments.h"
#include "daemon/control/socket_setup.h"

namespace smsupd::control {

namespace asio = boost::asio;
using Protocol = asio::local::stream_protocol;

ControlServer::ControlServer(asio::io_context& io, ControlServerOptions options,
                             CommandHandler& handler, EventLog& events)
    : io_(io),
      options_(std::move(options)),
      handler_(handler),
      events_(events),
      acceptor_(io),
      accept_retry_(io),
      members_(io) {
  if (!options_.authenticator) options_.authenticator = SystemPeerAuthenticator(options_.group);
}

ControlServer::~ControlServer() { Stop(); }

Status ControlServer::Start() {
  const std::string& path = options_.socket_path;
  if (path.empty() || path.size() > kMaxSocketPathBytes)
    return Error{"control socket path must be 1.." + std::to_string(kMaxSocketPathBytes) +
                 " bytes: \"" + path + "\""};
  std::optional<gid_t> group = LookupGroup(options_.group);
  if (!options_.group.empty() && !group)
    spdlog::warn("control group '{}' does not exist; only root may use {}", options_.group, path);
  if (Status status = PrepareSocketDirectory(path, group); !status) return status;
  if (Status status = RemoveStaleSocket(path); !status) return status;

  boost::system::error_code error;
  acceptor_.open(Protocol(), error);
  if (!error) acceptor_.bind(Protocol::endpoint(path), error);
  if (error) {
    acceptor_.close();
    return Error{"cannot bind control socket " + path + ": " + error.message()};
  }
  bound_ = true;
  if (Status status = SetSocketPermissions(path, group); !status) {
    Stop();
    return status;
  }
  acceptor_.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    Stop();
    return Error{"cannot listen on control socket " + path + ": " + error.message()};
  }
  Accept();
  return Status::Ok();
}

void ControlServer::Stop() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  accept_retry_.cancel();
  auto sessions = sessions_;  // Close() removes entries
  for (auto& [raw, session] : sessions) session->Close();
  sessions_.clear();
  if (bound_) {
    ::unlink(options_.socket_path.c_str());
    bound_ = false;
  }
}

// An accept that fails (out of file descriptors under a flood) is retried
// after a pause instead of at once, which would spin the loop.
void ControlServer::Accept() {
  acceptor_.async_accept([this](const boost::system::error_code& error, Socket socket) {
    if (error == asio::error::operation_aborted || !acceptor_.is_open()) return;
    if (!error) {
      OnAccepted(std::move(socket));
      return Accept();
    }
    spdlog::warn("CONTROL_ACCEPT_FAILED {}; accepting again in 100 ms", error.message());
    accept_retry_.expires_after(std::chrono::milliseconds(100));
    accept_retry_.async_wait([this](const boost::system::error_code& waited) {
      if (!waited && acceptor_.is_open()) Accept();
    });
  });
}

// Refusals at connect time are one short line into an empty socket buffer:
// a non-blocking send always fits, so no state is kept for the connection.
void ControlServer::RefuseConnection(Socket& socket, const Response& response) {
  std::string line = SerializeResponse(response) + "\n";
  ::send(socket.native_handle(), line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  boost::system::error_code ignored;
  socket.shutdown(Socket::shutdown_both, ignored);
  socket.close(ignored);
}

void ControlServer::OnAccepted(Socket socket) {
  if (sessions_.size() >= options_.max_connections) {
    return RefuseConnection(socket, MakeResponse(ResultCode::kBusy,
                                                 "busy: " + std::to_string(sessions_.size()) +
                                                     " connections open; try again"));
  }
  Result<Caller> caller = options_.authenticator(socket.native_handle());
  if (!caller) return RefuseConnection(socket, MakeResponse(ResultCode::kError, caller.error().message));
  if (caller->uid != 0) {
    if (sessions_.size() + options_.connections_kept_for_root >= options_.max_connections)
      return RefuseConnection(socket, MakeResponse(ResultCode::kBusy,
                                                   "busy: " + std::to_string(sessions_.size()) +
                                                       " connections open; the rest are kept for "
                                                       "root; try again"));
    std::size_t mine = 0;
    for (const auto& [key, session] : sessions_) mine += session->caller().uid == caller->uid;
    if (mine >= options_.max_connections_per_uid)
      return RefuseConnection(socket, MakeResponse(ResultCode::kBusy,
                                                   "busy: uid " + std::to_string(caller->uid) +
                                                       " has " + std::to_string(mine) +
                                                       " connections open; try again"));
  }
  SessionLimits limits{options_.max_request_bytes, options_.max_upload_bytes, options_.idle_timeout,
                       options_.max_queued_bytes, options_.refusal_pause};
  auto session = std::make_shared<ControlSession>(std::move(socket), *caller, limits,
                                                  static_cast<SessionHost&>(*this));
  sessions_.emplace(session.get(), session);
  session->Start();
}

void ControlServer::OnClosed(ControlSession* session) { sessions_.erase(session); }

void ControlServer::RunTurn(const Caller& caller, std::function<void()> work) {
  if (caller.uid == 0) return work();
  members_.Run(std::move(work));
}

std::size_t ControlServer::buffered_bytes() const {
  std::size_t total = 0;
  for (const auto& [key, session] : sessions_) total += session->buffered_bytes();
  return total;
}

bool ControlServer::ReserveUpload(std::size_t bytes) {
  if (upload_bytes_in_use_ + bytes > options_.upload_budget_bytes) return false;
  upload_bytes_in_use_ += bytes;
  return true;
}

void ControlServer::ReleaseUpload(std::size_t bytes) {
  upload_bytes_in_use_ -= std::min(bytes, upload_bytes_in_use_);
}

std::optional<Response> ControlServer::CheckPermission(const CommandInfo& command,
                                                       const Caller& caller) const {
  std::string who = "uid " + std::to_string(caller.uid);
  if (caller.access == AccessLevel::kNone) {
    std::string group = options_.group.empty() ? "" : " or a member of group '" + options_.group + "'";
    return MakeResponse(ResultCode::kPermissionDenied,
                        "permission denied: " + who + " is not root" + group);
  }
  if (command.access == Access::kChanging && caller.access != AccessLevel::kFull)
    return MakeResponse(ResultCode::kPermissionDenied,
                        "permission denied: '" + std::string(command.name) +
                            "' changes the daemon and needs root; " + who +
                            " may run read-only commands only");
  return std::nullopt;
}

void ControlServer::OnRequest(const std::shared_ptr<ControlSession>& session, Request request) {
  const CommandInfo& command = *FindCommand(request.command);  // ParseRequest checked it
  if (auto refusal = CheckPermission(command, session->caller())) {
    spdlog::info("control: refused '{}' for uid {} pid {}", command.name, session->caller().uid,
                 session->caller().pid);
    bool no_access = session->caller().access == AccessLevel::kNone;
    Answered(request.command, refusal->result);
    return session->Reply(*refusal, /*close_after=*/no_access);
  }
  if (command.name == "version") {
    Answered(request.command, ResultCode::kSuccess);
    return session->Reply(VersionResponse());
  }
  if (command.name == "list-commands") {
    Answered(request.command, ResultCode::kSuccess);
    return session->Reply(ListCommandsResponse());
  }
  if (command.name == "events") {
    Answered(request.command, ResultCode::kSuccess);
    return ServeEvents(session, request);
  }
  DispatchToHandler(session, request);
}

void ControlServer::Answered(const std::string& command, ResultCode result) const {
  if (options_.answered) options_.answered(command, result);
}

Response ControlServer::VersionResponse() const {
  return MakeResponse(ResultCode::kSuccess, options_.daemon_version,
                      {{"protocol", kProtocolVersion}, {"daemon", options_.daemon_version}});
}

Response ControlServer::ListCommandsResponse() {
  nlohmann::json commands = nlohmann::json::array();
  for (const auto& command : kCommands)
    commands.push_back({{"name", command.name},
                        {"number", command.number},
                        {"access", command.access == Access::kReadOnly ? "read-only" : "changing"},
                        {"since", command.since_version},
                        {"reserved", command.reserved},
                        {"summary", command.summary}});
  return MakeResponse(ResultCode::kSuccess, std::to_string(kCommands.size()) + " commands",
                      {{"commands", commands}});
}

void ControlServer::ServeEvents(const std::shared_ptr<ControlSession>& session,
                                const Request& request) {
  auto args = ParseEventsArguments(request.arguments);  // ParseRequest checked it
  nlohmann::json list = nlohmann::json::array();
  for (const auto& event : events_.Since(args->since)) list.push_back(ToJson(event));
  std::string text = std::to_string(list.size()) + " events";
  // Follow first: the session then stops reading requests, and events
  // appended later are queued behind this reply (both run on the loop).
  if (args->follow) session->Follow(events_);
  session->Reply(MakeResponse(ResultCode::kSuccess, text,
                              {{"events", list},
                               {"first_seq", events_.first_seq()},
                               {"last_seq", events_.last_seq()},
                               {"follow", args->follow}}));
}

void ControlServer::DispatchToHandler(const std::shared_ptr<ControlSession>& session,
                                      const Request& request) {
  std::weak_ptr<ControlSession> weak = session;
  auto replied = std::make_shared<std::atomic_flag>();
  // Captures the io_context, not the server: a late reply after Stop() is harmless.
  // The response is serialized on the thread that replies: a handler that
  // builds a large reply off the loop (`ports` on 10,000 HCAs: ~20 MB, most
  // of a second to write out) leaves the loop only the line to send.
  CommandHandler::Reply reply = [&io = io_, weak, replied, answered = options_.answered,
                                 command = request.command](Response response) {
    if (replied->test_and_set()) return;  // exactly one reply per request
    asio::post(io, [weak, answered, command, result = response.result, line = SerializeResponse(response)]() mutable {
      if (answered) answered(command, result);
      if (auto live = weak.lock()) live->ReplyLine(result, std::move(line));
    });
  };
  try {
    handler_.Handle(request, session->caller(), reply);
  } catch (const std::exception& error) {
    spdlog::error("control: handler for '{}' threw: {}", request.command, error.what());
    reply(MakeResponse(ResultCode::kError, std::string("internal error: ") + error.what()));
  } catch (...) {
    reply(MakeResponse(ResultCode::kError, "internal error"));
  }
}

}  // namespace smsupd::control
