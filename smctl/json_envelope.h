// What `smctl <command> --json` prints: one JSON document (indented, as
// status always was), with the same top-level keys whatever the command and
// whether it succeeded (docs/smctl.md "JSON output"):
//
//   {"ok":true,"command":"status","exit_code":0,"error":null,
//    "result":0,"text":"...","arguments":{...},  <the command's data keys>}
//
// - ok: false exactly when error is set. exit_code: smctl's exit code
//   (exit_codes.h); true with a non-zero code only for `plan --exit-code`
//   reporting changes (1).
// - error: null, or {"code","message"} (code: "usage", "unreachable",
//   "permission-denied", "invalid", "unreadable", ..., or the daemon's
//   result name).
// - result, text, arguments: the daemon's reply as on the wire; result is
//   null when no daemon answered (offline commands, unreachable, usage) and
//   arguments then {}.
// - The command's data keys sit at top level too (`.local_sm.state` of
//   status, `.valid` of validate), so the paths scripts used before the
//   envelope still work; an envelope key always wins over a data key.
// `events` prints its events one object per line (JSON Lines); only its
// failure is an envelope, on one line too, after the events it printed.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/control_protocol.h"
#include "smctl/exit_codes.h"

namespace smsupd::smctl {

struct CommandOutcome {
  int exit_code = kExitOk;
  std::string error_code;  // empty on success (which may exit non-zero: plan --exit-code)
  std::string message;     // why, when it failed
  std::optional<control::ResultCode> result;  // the daemon's, when it answered
  std::string text;
  nlohmann::json arguments = nlohmann::json::object();  // the daemon's reply arguments
  nlohmann::json data = nlohmann::json::object();       // the command's own keys

  bool ok() const { return error_code.empty(); }
};

// A success carrying the daemon's reply.
CommandOutcome Succeeded(const control::Response& response);
// A failure with smctl's own reason (no daemon reply).
CommandOutcome Failed(int exit_code, std::string error_code, std::string message);
// The daemon answered with a non-success result: exit 1, the result's name.
CommandOutcome Refused(const control::Response& response);

nlohmann::json Envelope(const std::string& command, const CommandOutcome& outcome);
// The envelope as printed: control characters escaped, invalid UTF-8
// replaced; indented, but on one line for `events`.
std::string EnvelopeText(const std::string& command, const CommandOutcome& outcome);

// The end of every command: with --json the envelope on `out`; the reason
// of a failure on `err` in both modes ("smctl: COMMAND: message"). Returns
// the exit code.
int Finish(bool json, const std::string& command, const CommandOutcome& outcome,
           std::ostream& out, std::ostream& err);

}  // namespace smsupd::smctl
