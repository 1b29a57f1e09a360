#include "smctl/commands.h"

#include <optional>

#include "smctl/control_client.h"
#include "smctl/json_envelope.h"
#include "smctl/text_output.h"
#include "common/bounded_json.h"
#include "common/control_arguments.h"
#include "common/control_wire.h"

namespace smsupd::smctl {

using control::Request;
using control::Response;
using control::ResultCode;

CommandOutcome FromClientError(const ClientError& error) {
  return Failed(error.exit_code, error.code, error.message);
}

namespace {

// arguments[key] when it is a boolean (a reply is outside input: another
// type is not a throw).
bool Flag(const nlohmann::json& arguments, const char* key, bool otherwise) {
  if (!arguments.is_object()) return otherwise;
  auto it = arguments.find(key);
  return it != arguments.end() && it->is_boolean() ? it->get<bool>() : otherwise;
}

}  // namespace

CommandOutcome RefusedConfig(const Response& response) {
  CommandOutcome outcome = Refused(response);
  if (response.result == ResultCode::kTwinRefused) {
    outcome.exit_code = kExitTwinRefused;
  } else if (Flag(response.arguments, "unreadable", false)) {
    outcome.exit_code = kExitUnreadable;
    outcome.error_code = "unreadable";
  } else if (!Flag(response.arguments, "valid", true)) {
    outcome.exit_code = kExitInvalid;
    outcome.error_code = "invalid";
  }
  return outcome;
}

std::optional<Response> Ask(ControlClient& client, const std::string& command,
                            nlohmann::json arguments, CommandOutcome* failure) {
  auto response = client.Call(Request{control::kProtocolVersion, command, std::move(arguments)});
  if (!response) {
    *failure = FromClientError(client.error());
    return std::nullopt;
  }
  if (!response->ok()) {
    *failure = Refused(*response);
    return std::nullopt;
  }
  return response;
}

namespace {

void PrintEvent(const control::EventWire& event, const GlobalOptions& options, std::ostream& out) {
  if (options.json)
    out << control::ToJson(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    out << FormatEvent(event);
  out.flush();  // a follower is often a pipe: show each event as it comes
}

// Prints `events`; a failure if one of them is not an event.
std::optional<CommandOutcome> PrintEvents(const nlohmann::json& events, const GlobalOptions& options,
                                          std::ostream& out) {
  for (const auto& json : events) {
    auto event = control::ParseEventWire(json);
    if (!event)
      return Failed(kExitFailed, "bad-reply", "unreadable event from smsupd: " + event.error().message);
    PrintEvent(*event, options, out);
  }
  return std::nullopt;
}

// Streams events after the `events` reply until the daemon ends the stream
// (a response-shaped line: a refusal) or goes away (unreachable).
CommandOutcome FollowEvents(ControlClient& client, const GlobalOptions& options, std::ostream& out) {
  while (auto line = client.ReadLine(std::nullopt)) {
    auto bounded = ParseBoundedJson(*line);
    const nlohmann::json json = bounded ? std::move(*bounded) : nlohmann::json();
    if (json.is_object() && json.contains("result")) {  // the daemon ends the stream
      auto response = control::ParseResponse(*line);
      if (!response) return Failed(kExitFailed, "bad-reply", "unreadable reply from smsupd: " + *line);
      return Refused(*response);
    }
    if (auto failed = PrintEvents(nlohmann::json::array({json}), options, out)) return *failed;
  }
  return FromClientError(client.error());
}

}  // namespace

int RunStatus(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response = Ask(client, "status", nlohmann::json::object(), &outcome);
  if (!response) return Finish(options.json, "status", outcome, out, err);
  auto status = control::ParseStatusWire(response->arguments);
  if (!status)
    return Finish(options.json, "status",
                  Failed(kExitFailed, "bad-reply", "unreadable status from smsupd: " + status.error().message),
                  out, err);
  outcome = Succeeded(*response);
  outcome.data = control::ToJson(*status);
  if (!options.json) out << FormatStatus(*status);
  return Finish(options.json, "status", outcome, out, err);
}

// The one command whose --json output is a stream: one event per line; only
// a failure prints an envelope (after the events it printed).
int RunEvents(const GlobalOptions& options, std::uint64_t since, bool follow, std::ostream& out,
              std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response =
      Ask(client, "events", control::ToJson(control::EventsArguments{since, follow}), &outcome);
  if (!response) return Finish(options.json, "events", outcome, out, err);
  std::uint64_t first = response->arguments.value("first_seq", std::uint64_t{0});
  if (!options.json && since + 1 < first)
    err << "smctl: events before " << first << " are no longer kept\n";
  if (!options.json) out << FormatEventHeader();
  if (auto failed = PrintEvents(response->arguments.value("events", nlohmann::json::array()), options, out))
    return Finish(options.json, "events", *failed, out, err);
  if (!follow) return kExitOk;
  return Finish(options.json, "events", FollowEvents(client, options, out), out, err);
}

namespace {

// A changing command whose answer is the daemon's text (reload, failover,
// restart-opensm): `fallback` when the daemon says nothing.
int RunChange(const GlobalOptions& options, const std::string& command, nlohmann::json arguments,
              std::chrono::milliseconds timeout, const char* fallback, std::ostream& out,
              std::ostream& err) {
  ControlClient client(options.socket, timeout);
  auto response = client.Call(Request{control::kProtocolVersion, command, std::move(arguments)});
  if (!response) return Finish(options.json, command, FromClientError(client.error()), out, err);
  if (!response->ok()) return Finish(options.json, command, RefusedConfig(*response), out, err);
  if (!options.json) out << (response->text.empty() ? fallback : response->text) << "\n";
  return Finish(options.json, command, Succeeded(*response), out, err);
}

}  // namespace

int RunReload(const GlobalOptions& options, const control::ReloadArguments& args,
              std::ostream& out, std::ostream& err) {
  std::chrono::milliseconds timeout = options.timeout;
  if (args.wait)  // the daemon answers after verifying (and perhaps rolling back): wait for that
    timeout = std::chrono::milliseconds(
        args.timeout_given ? 2 * static_cast<long>(args.timeout_s * 1000) + 5000 : kLongestApplyWaitMs);
  // A reload the twin gates (--twin, or apply.twin in the daemon's config,
  // which smctl cannot know) is answered after the twin ran: its deadline
  // too, unless the caller bounded the wait with --timeout (and no --twin).
  if (args.twin || !args.timeout_given) timeout += std::chrono::milliseconds(kTwinGateWaitMs);
  return RunChange(options, "reload", control::ToJson(args), timeout, "reloaded", out, err);
}

// The daemon answers a --wait failover once the new master is in place (or
// the handover failed): wait that long too.
int RunFailover(const GlobalOptions& options, const control::FailoverArguments& args,
                std::ostream& out, std::ostream& err) {
  return RunChange(options, "failover", control::ToJson(args),
                   std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000) + 2000),
                   "failover started", out, err);
}

int RunRestartOpenSm(const GlobalOptions& options, const control::RestartOpenSmArguments& args,
                     std::ostream& out, std::ostream& err) {
  return RunChange(options, "restart-opensm", control::ToJson(args),
                   std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000) + 2000),
                   "restart started", out, err);
}

int RunMetrics(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response = Ask(client, "metrics", nlohmann::json::object(), &outcome);
  if (!response) return Finish(options.json, "metrics", outcome, out, err);
  if (!options.json) out << response->arguments.value("exposition", std::string());
  return Finish(options.json, "metrics", Succeeded(*response), out, err);
}

std::string VersionLine() {
  return std::string("smctl ") + SMSUPD_VERSION + " (protocol " + std::to_string(control::kProtocolVersion) + ")";
}

nlohmann::json OwnVersion() {
  return {{"smctl", SMSUPD_VERSION}, {"protocol", control::kProtocolVersion}};
}

// smctl's own version is printed even when the daemon does not answer (exit 3).
int RunVersion(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response = Ask(client, "version", nlohmann::json::object(), &outcome);
  if (response) outcome = Succeeded(*response);
  nlohmann::json data = OwnVersion();
  if (response) data["daemon"] = response->arguments;
  outcome.data = data;
  if (!options.json) {
    out << VersionLine() << "\n";
    if (response)
      out << "daemon: " << response->arguments.value("daemon", std::string("?")) << " (protocol "
          << response->arguments.value("protocol", 0) << ")\n";
  }
  return Finish(options.json, "version", outcome, out, err);
}

int RunListCommands(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response = Ask(client, "list-commands", nlohmann::json::object(), &outcome);
  if (!response) return Finish(options.json, "list-commands", outcome, out, err);
  if (!options.json)
    out << FormatCommandList(response->arguments.value("commands", nlohmann::json::array()));
  return Finish(options.json, "list-commands", Succeeded(*response), out, err);
}

}  // namespace smsupd::smctl
