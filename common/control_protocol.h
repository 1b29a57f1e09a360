// The control protocol between smsupd and smctl: the ONE definition both sides
// compile against (STYLE habit 4; chrony's candm.h and ISC Kea's control
// channel are the models). docs/control-protocol.md is the prose version.
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
//              (arguments below); reload takes "timeout_ms" too.
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
  kTooLarge = 6,          // request line over kMaxRequestBytes
  kBusy = 7,              // connection cap reached; try again
  kTimeout = 8,           // the connection was idle or a request was too slow
  kBadVersion = 9,        // protocol version not spoken by this daemon
  kTooSlow = 10,          // an `events --follow` reader fell behind and was dropped
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
inline constexpr std::array<CommandInfo, 11> kCommands = {{
    {"version", 0, Access::kReadOnly, 1, false, "protocol and daemon version"},
    {"list-commands", 1, Access::kReadOnly, 1, false, "the commands this daemon knows"},
    {"status", 2, Access::kReadOnly, 1, false, "this node, its OpenSM, the subnet's SMs, health"},
    {"events", 3, Access::kReadOnly, 1, false, "recent events; optionally follow new ones"},
    {"reload", 4, Access::kChanging, 1, false, "re-read, validate and apply the config file"},
    {"validate", 5, Access::kReadOnly, 1, false, "validate the config file on disk or given text"},
    {"render", 6, Access::kChanging, 1, false, "render config text into OpenSM's files"},
    {"failover", 7, Access::kChanging, 1, false, "hand mastership to another SM"},
    {"plan", 8, Access::kReadOnly, 1, false, "what a reload would change"},
    {"history", 9, Access::kReadOnly, 1, false, "applied config generations"},
    {"rollback", 10, Access::kChanging, 1, false, "re-apply an earlier generation"},
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

// ------------------------------------------------------ command arguments --

// events: {"since": N (default 0), "follow": bool (default false)}.
// Returns events with seq > since.
struct EventsArguments {
  std::uint64_t since = 0;
  bool follow = false;
};
nlohmann::json ToJson(const EventsArguments& args);
Result<EventsArguments> ParseEventsArguments(const nlohmann::json& arguments);

// reload: {"restart": bool, "wait": bool, "timeout_s": number > 0}.
// restart: allow an OpenSM restart if a startup-only option changed.
// wait: answer only once the change is applied and verified (or failed).
// The wire also accepts "timeout_ms" (integer); ToJson sends "timeout_ms"
// only when timeout_given. Without one the daemon uses verify.timeout_s.
struct ReloadArguments {
  bool restart = false;
  bool wait = false;
  double timeout_s = 30;
  bool timeout_given = false;
};
nlohmann::json ToJson(const ReloadArguments& args);
Result<ReloadArguments> ParseReloadArguments(const nlohmann::json& arguments);

// `failover` (7): hand mastership to another SM (smctl failover). `to`: the
// port GUID of the SM that must become master (default: the one OpenSM
// picks, the highest-ranked STANDBY). `wait`: answer when the new master is
// in place (or the handover failed), else as soon as it started.
struct FailoverArguments {
  std::optional<Guid> to;
  bool wait = false;
  double timeout_s = 15;
};
nlohmann::json ToJson(const FailoverArguments& args);
Result<FailoverArguments> ParseFailoverArguments(const nlohmann::json& arguments);

// plan (8): {"yaml": text, "file": path used in diagnostics}. No yaml: the
// daemon plans its config file on disk.
struct PlanArguments {
  std::optional<std::string> yaml;
  std::string file;
};
nlohmann::json ToJson(const PlanArguments& args);
Result<PlanArguments> ParsePlanArguments(const nlohmann::json& arguments);

// rollback (10): {"generation": N (default: the one before the current),
// "wait": bool, "timeout_ms": int}. Replies like reload.
struct RollbackArguments {
  std::optional<std::uint64_t> generation;
  bool wait = false;
  std::optional<std::int64_t> timeout_ms;
};
nlohmann::json ToJson(const RollbackArguments& args);
Result<RollbackArguments> ParseRollbackArguments(const nlohmann::json& arguments);

// Checks the arguments of any known command (unknown keys are refused, so a
// typo is not silently ignored).
Status CheckArguments(const CommandInfo& command, const nlohmann::json& arguments);

// ------------------------------------------------------------- wire types --
// Wire types are separate from the daemon's internal state (STYLE habit 6).
// GUIDs travel as "0x" + 16 hex digits, SM states as the IB names.

inline constexpr std::array<std::string_view, 4> kSmStateNames = {
    "NOTACTIVE", "DISCOVERING", "STANDBY", "MASTER"};
bool IsSmStateName(std::string_view name);

struct LocalSmWire {
  std::string state = "NOTACTIVE";  // as the SM reports it over MADs
  int priority = 0;                 // 0..15
  Guid guid = 0;                    // port GUID OpenSM is bound to
  std::uint16_t lid = 0;            // 0 = not assigned yet
  int pid = 0;                      // OpenSM's pid; 0 = not running
};

struct OpenSmWire {
  int pid = 0;
  std::int64_t uptime_s = 0;
  int restarts = 0;
  Guid port_guid = 0;
};

struct SmWire {
  Guid guid = 0;
  std::uint16_t lid = 0;
  std::string state = "NOTACTIVE";
  int priority = 0;
  std::string host;  // from the inventory; "" when unknown
};

struct MasterWire {
  Guid guid = 0;
  std::uint16_t lid = 0;
  int priority = 0;
  std::string host;
};

struct ConfigWire {
  std::uint64_t generation = 0;
  std::string hash;
};

struct ProblemWire {
  std::string id;     // stable ID, e.g. "TWO_MASTERS", "NO_STANDBY"
  std::string text;   // one sentence for a person
  std::string since;  // RFC 3339 UTC with milliseconds
};

// The failover supervisor (docs/failover.md): its state (STANDBY, MASTER,
// TAKING_OVER, HANDING_OVER, ...), the configured role and preempt mode, and
// the sm_priority it currently asks of OpenSM.
struct FailoverWire {
  std::string state;
  std::string role;
  bool preempt = true;
  int commanded_priority = -1;  // -1: none asked yet
};

struct StatusWire {
  std::string node;
  std::optional<FailoverWire> failover;  // wire: failover (absent from older daemons)
  LocalSmWire local_sm;
  OpenSmWire opensm;
  std::optional<MasterWire> master;  // null when no master is seen
  std::vector<SmWire> sms;
  ConfigWire config;
  std::vector<ProblemWire> problems;  // wire: health.problems
};

nlohmann::json ToJson(const StatusWire& status);
Result<StatusWire> ParseStatusWire(const nlohmann::json& json);

// Event kinds the daemon emits (documented in docs/control-protocol.md).
inline constexpr std::string_view kEventOpenSmStarted = "opensm-started";
inline constexpr std::string_view kEventOpenSmExited = "opensm-exited";
inline constexpr std::string_view kEventOpenSmRestarted = "opensm-restarted";
inline constexpr std::string_view kEventSmStateChanged = "sm-state-changed";
inline constexpr std::string_view kEventMasterChanged = "master-changed";
inline constexpr std::string_view kEventConfigApplied = "config-applied";
inline constexpr std::string_view kEventConfigRejected = "config-rejected";
inline constexpr std::string_view kEventProblemRaised = "problem-raised";
inline constexpr std::string_view kEventProblemCleared = "problem-cleared";
inline constexpr std::string_view kEventConfigRolledBack = "config-rolled-back";
inline constexpr std::string_view kEventPKeyVerified = "pkey-verified";
inline constexpr std::string_view kEventPKeyVerifyFailed = "pkey-verify-failed";
inline constexpr std::string_view kEventPKeyDrift = "pkey-drift";

struct EventWire {
  std::uint64_t seq = 0;  // starts at 1, strictly increasing per daemon run
  std::string time;       // RFC 3339 UTC with milliseconds
  std::string kind;
  nlohmann::json details = nlohmann::json::object();
};

nlohmann::json ToJson(const EventWire& event);
Result<EventWire> ParseEventWire(const nlohmann::json& json);

// "2026-12-02T17:33:04.123Z".
std::string FormatRfc3339Millis(std::chrono::system_clock::time_point time);

}  // namespace smsupd::control
