// The control socket of smsupd: a Unix stream socket speaking
// common/control_protocol.h, with access decided by the peer's credentials.
//
//   root, the daemon's own user   every command
//   members of control.group      read-only commands (Access::kReadOnly)
//   anyone else                   refused with a readable error
//
// Checks run in chronyd's order: JSON, version, command, arguments,
// permission; then `version`, `list-commands` and `events` are answered here
// and everything else goes to the CommandHandler. A slow or hostile client
// cannot block the loop or other clients: requests are capped in size, idle
// connections time out, connections are capped in number, writes are async
// with a bounded queue per connection, requests are handled one at a time
// per connection, and long request lines (a plan's config text) share one
// budget.
//
// All methods run on the io_context's thread (or before it runs).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>

#include "common/control_protocol.h"
#include "common/result.h"
#include "daemon/control/command_handler.h"
#include "daemon/control/control_session.h"
#include "daemon/control/member_lane.h"
#include "daemon/status/event_log.h"
#include "daemon/control/peer_credentials.h"

namespace smsupd::control {

struct ControlServerOptions {
  std::string socket_path{kDefaultSocketPath};
  std::string group;           // control.group; "" or unknown: root only
  std::string daemon_version;  // reported by `version`, e.g. "smsupd 0.1.0"
  std::size_t max_request_bytes = kMaxRequestBytes;
  std::size_t max_upload_bytes = kMaxUploadBytes;  // one request carrying a config text
  // All sessions together hold at most this much beyond max_request_bytes
  // each: two plans of the largest config at a time.
  std::size_t upload_budget_bytes = 2 * kMaxUploadBytes;
  std::chrono::milliseconds idle_timeout{5000};  // per connection, waiting for a request
  // A flood from one user must not lock out the others: every non-root uid
  // gets at most max_connections_per_uid of the max_connections slots.
  std::size_t max_connections = 1024;
  std::size_t max_connections_per_uid = 128;
  // Of max_connections, this many only root may take: members of the group
  // (eight uids at their cap, all following events) cannot lock root out.
  std::size_t connections_kept_for_root = 16;
  std::size_t max_queued_bytes = 256 * 1024;  // per connection, before a follower is dropped
  // After a refused (unparsable) request, the next read on that connection
  // waits this long, doubled per refusal in a row up to 1 s.
  std::chrono::milliseconds refusal_pause{50};
  // Who the peer is and what it may do; empty means SystemPeerAuthenticator(group).
  PeerAuthenticator authenticator;
  // Told of every answer to a request that named a protocol command (the
  // metrics count them); runs on the io_context's thread. May be empty.
  std::function<void(const std::string& command, ResultCode result)> answered;
};

class ControlServer : private SessionHost {
 public:
  // `handler` and `events` must outlive the server.
  ControlServer(boost::asio::io_context& io, ControlServerOptions options,
                CommandHandler& handler, EventLog& events);
  ~ControlServer() override;

  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Prepares the directory, removes a stale socket (never a live one), binds,
  // sets mode 0660 and starts accepting. Errors name the path and the cause.
  Status Start();

  // Stops accepting, closes every connection and removes the socket file.
  void Stop();

  std::size_t connection_count() const { return sessions_.size(); }
  // Bytes all sessions hold (ControlSession::buffered_bytes).
  std::size_t buffered_bytes() const;
  const std::string& socket_path() const { return options_.socket_path; }

 private:
  using Socket = boost::asio::local::stream_protocol::socket;

  void Accept();
  void OnAccepted(Socket socket);
  static void RefuseConnection(Socket& socket, const Response& response);

  void OnRequest(const std::shared_ptr<ControlSession>& session, Request request) override;
  void OnClosed(ControlSession* session) override;
  bool ReserveUpload(std::size_t bytes) override;
  void ReleaseUpload(std::size_t bytes) override;
  void RunTurn(const Caller& caller, std::function<void()> work) override;

  std::optional<Response> CheckPermission(const CommandInfo& command, const Caller& caller) const;
  void Answered(const std::string& command, ResultCode result) const;
  Response VersionResponse() const;
  static Response ListCommandsResponse();
  void ServeEvents(const std::shared_ptr<ControlSession>& session, const Request& request);
  void DispatchToHandler(const std::shared_ptr<ControlSession>& session, const Request& request);

  boost::asio::io_context& io_;
  ControlServerOptions options_;
  CommandHandler& handler_;
  EventLog& events_;
  boost::asio::local::stream_protocol::acceptor acceptor_;
  std::map<ControlSession*, std::shared_ptr<ControlSession>> sessions_;
  bool bound_ = false;
  boost::asio::steady_timer accept_retry_;  // accept failed (e.g. out of fds): retry later
  std::size_t upload_bytes_in_use_ = 0;
  MemberLane members_;  // turns of every session not root's
};

}  // namespace smsupd::control
