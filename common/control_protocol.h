// The control protocol between smsupd and smctl: the ONE definition both sides
// compile against (chrony's candm.h and ISC Kea's control channel are the
// models). docs/control-protocol.md is the prose version. This header holds
// the framing, the result codes and the command list; each command's
// arguments are in control_arguments.h, the status and event wire types in
// control_wire.h.
//
// Framing: a SOCK_STREAM Unix socket carrying newline-delimited JSON. Each
// request is one JSON object on one line ending in '\n'; the daemon answers
// each request with exactly one response line, in order. A connection may
// carry several requests one after another. JSON text never contains a raw
// newline (nlohmann::json::dump() escapes them), so '\n' is an unambiguous
// frame end. After the response to `events` with "follow": true the daemon
// keeps the connection for that stream: one EventWire object per line, and
// possibly one final response-shaped line (it has a "result" key) when the
// daemon ends the stream, e.g. kTooSlow.
//
//   request:  {"version":1,"command":"status","arguments":{...}}
//   response: {"result":0,"text":"...","arguments":{...}}
//
// The daemon checks, in this order, like chronyd: the line is a JSON object,
// the version, the command, the arguments, the caller's permission; only
// then is the request dispatched.
//
// History (append to it; never renumber or change the meaning of a command):
//   version 1: version(0), list-commands(1), status(2), events(3), reload(4),
//              validate(5), render(6); reserved for later work and answered
//              "unsupported" until a daemon implements them: failover(7),
//              plan(8), history(9), rollback(10).
//   version 1, later: plan(8), history(9) and rollback(10) implemented
//              (arguments below); reload takes "timeout_ms" too, and its
//              reply carries the apply result (generation, hash, plan,
//              verification, rolled_back, restart_needed; with "wait": true
//              it comes once verification ended).
//   version 1, later: render(6) is reserved: no daemon implements it (its
//              output would carry the SM_Key; `smctl render` renders
//              offline). Result code 11 apply-in-progress answers reload and
//              rollback while another apply runs (they were answered 7 busy,
//              which now means only "connection cap reached"). plan's "file"
//              is only a name for diagnostics: the daemon never opens a path
//              a caller gives (smctl always sends the text).
//   version 1, later: restart-opensm(11) (arguments in control_arguments.h);
//              reload takes "force" (with "restart": restart a lone MASTER).
//   version 1, later: metrics(12): no arguments; the reply's arguments carry
//              "exposition", the Prometheus text format the daemon's
//              metrics.listen serves at /metrics (docs/metrics.md).
//   version 1, later: why(13): {"a": NAME, "b": NAME} (control_arguments.h);
//              read-only; can two end ports talk, in which partitions, by
//              the config and by the P_Key tables read at request time.
//   version 1, later: twin-plan(16): the arguments of plan; root only (it
//              starts a simulator and an OpenSM on the daemon's node), one
//              at a time (a second one is answered kBusy); nothing is sent
//              to the live fabric but reads (docs/twin.md).
//   version 1, later: reload takes "twin": bool (run the config on the
//              twin first, a gate); result code 12 twin-refused answers a
//              reload the twin gate refused (apply.twin: required, or
//              "twin": true): nothing was changed.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/result.h"

namespace smsupd::control {

inline constexpr int kProtocolVersion = 1;

// Requests longer than this (newline excluded) are answered kTooLarge and the
// connection is closed: a request is a command name plus a few arguments.
inline constexpr std::size_t kMaxRequestBytes = 64 * 1024;
// The one exception: `plan` carries a whole config text (10,000 hosts with
// two ports each and 1,000 partitions is about 1.5 MB), up to this size.
inline constexpr std::size_t kMaxUploadBytes = 16 * 1024 * 1024;
// Commands whose request may exceed kMaxRequestBytes (up to kMaxUploadBytes).
bool CarriesConfigText(std::string_view command);

// Default socket path; smctl also reads $SMSUPD_SOCKET.
inline constexpr std::string_view kDefaultSocketPath = "/run/smsupd/smsupd.sock";

// Result codes. 0-3 mean what they mean in Kea; the rest are ours. Append only.
enum class ResultCode : int {
  kSuccess = 0,
  kError = 1,             // the operation was tried and failed
  kUnsupported = 2,       // unknown command, or one this daemon does not implement
  kEmpty = 3,             // nothing to do / no change (success for most callers)
  kPermissionDenied = 4,  // the caller may not run this command
  kBadRequest = 5,        // not JSON, missing or wrongly typed fields
  kTooLarge = 6,          // request line over kMaxRequestBytes (kMaxUploadBytes for plan)
  kBusy = 7,              // connection cap reached, or a twin plan runs; try again
  kTimeout = 8,           // the connection was idle or a request was too slow
  kBadVersion = 9,        // protocol version not spoken by this daemon
  kTooSlow = 10,          // an `events --follow` reader fell behind and was dropped
  kApplyInProgress = 11,  // another config apply is running; try again when it is done
  kTwinRefused = 12,      // the twin gate refused a reload: the twin disagreed or could not run; nothing changed
};

// "success", "permission-denied", ... (stable, for logs and smctl --json).
const char* ResultCodeName(ResultCode code);

// Read-only commands are open to root and members of control.group; changing
// commands only to root (and the daemon's own user).
enum class Access { kReadOnly, kChanging };

struct CommandInfo {
  std::string_view name;
  int number;           // never reused
  Access access;
  int since_version;    // protocol version that introduced the command
  bool reserved;        // defined for later work; a daemon may answer kUnsupported
  std::string_view summary;
};

// Append-only: a new command goes at the end with the next number.
inline constexpr std::array<CommandInfo, 17> kCommands = {{
    {"version", 0, Access::kReadOnly, 1, false, "protocol and daemon version"},
    {"list-commands", 1, Access::kReadOnly, 1, false, "the commands this daemon knows"},
    {"status", 2, Access::kReadOnly, 1, false, "this node, its OpenSM, the subnet's SMs, health"},
    {"events", 3, Access::kReadOnly, 1, false, "recent events; optionally follow new ones"},
    {"reload", 4, Access::kChanging, 1, false, "re-read, validate and apply the config file"},
    {"validate", 5, Access::kReadOnly, 1, false, "validate the config file on disk or given text"},
    {"render", 6, Access::kChanging, 1, true, "reserved: smctl render works offline"},
    {"failover", 7, Access::kChanging, 1, false, "hand mastership to another SM"},
    {"plan", 8, Access::kReadOnly, 1, false, "what a reload would change"},
    {"history", 9, Access::kReadOnly, 1, false, "applied config generations"},
    {"rollback", 10, Access::kChanging, 1, false, "re-apply an earlier generation"},
    {"restart-opensm", 11, Access::kChanging, 1, false,
     "restart the local OpenSM, handing over first when MASTER"},
    {"metrics", 12, Access::kReadOnly, 1, false, "Prometheus text exposition of the daemon's metrics"},
    {"why", 13, Access::kReadOnly, 1, false,
     "can two end ports talk: partitions by the config and by the fabric's P_Key tables"},
    {"ports", 14, Access::kReadOnly, 1, false,
     "every end port and switch port: state, link rate, error counters, problems"},
    {"cabling", 15, Access::kReadOnly, 1, false,
     "the discovered links against the declared cabling; or today's links as CSV"},
    {"twin-plan", 16, Access::kChanging, 1, false,
     "a plan run by the installed OpenSM on a simulated copy of the live fabric"},
}};

const CommandInfo* FindCommand(std::string_view name);

// ---------------------------------------------------------------- framing --

struct Request {
  int version = kProtocolVersion;
  std::string command;
  nlohmann::json arguments = nlohmann::json::object();
};

struct Response {
  ResultCode result = ResultCode::kSuccess;
  std::string text;
  nlohmann::json arguments = nlohmann::json::object();

  bool ok() const { return result == ResultCode::kSuccess || result == ResultCode::kEmpty; }
};

Response MakeResponse(ResultCode result, std::string text,
                      nlohmann::json arguments = nlohmann::json::object());

// One line, without the trailing '\n'.
std::string SerializeRequest(const Request& request);
std::string SerializeResponse(const Response& response);

// Parses one request line (without '\n') and checks version, command and the
// command's arguments, in that order. On failure returns the error Response
// to send back. Never throws.
std::variant<Request, Response> ParseRequest(std::string_view line);

// Parses one response line as smctl reads it. Never throws.
Result<Response> ParseResponse(std::string_view line);

}  // namespace smsupd::control
