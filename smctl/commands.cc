#include "smctl/commands.h"

#include <optional>

#include "smctl/control_client.h"
#include "smctl/text_output.h"
#include "common/bounded_json.h"
#include "common/control_arguments.h"
#include "common/control_wire.h"

namespace smsupd::smctl {

using control::Request;
using control::Response;
using control::ResultCode;

namespace {

// Sends one request. On a transport failure or a non-success reply, reports
// it (the whole response as JSON with --json) and sets *exit_code.
std::optional<Response> Ask(ControlClient& client, const GlobalOptions& options,
                            const std::string& command, nlohmann::json arguments,
                            std::ostream& out, std::ostream& err, int* exit_code) {
  Request request{control::kProtocolVersion, command, std::move(arguments)};
  auto response = client.Call(request);
  if (!response) {
    err << "smctl: " << client.error().message << "\n";
    *exit_code = client.error().exit_code;
    return std::nullopt;
  }
  if (!response->ok()) {
    if (options.json) out << control::SerializeResponse(*response) << "\n";
    err << "smctl: " << command << ": " << response->text << "\n";
    *exit_code = kExitFailed;
    return std::nullopt;
  }
  *exit_code = kExitOk;
  return response;
}

void PrintEvent(const control::EventWire& event, const GlobalOptions& options, std::ostream& out) {
  if (options.json)
    out << control::ToJson(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    out << FormatEvent(event);
  out.flush();  // a follower is often a pipe: show each event as it comes
}

// Streams events after the `events` reply until the daemon ends the stream.
int FollowEvents(ControlClient& client, const GlobalOptions& options, std::ostream& out,
                 std::ostream& err) {
  while (auto line = client.ReadLine(std::nullopt)) {
    auto bounded = ParseBoundedJson(*line);
    const nlohmann::json json = bounded ? std::move(*bounded) : nlohmann::json();
    if (json.is_object() && json.contains("result")) {  // the daemon ends the stream
      auto response = control::ParseResponse(*line);
      if (options.json) out << *line << "\n";
      err << "smctl: events: " << (response ? response->text : *line) << "\n";
      return kExitFailed;
    }
    auto event = control::ParseEventWire(json);
    if (!event) {
      err << "smctl: unreadable event from smsupd: " << event.error().message << "\n";
      return kExitFailed;
    }
    PrintEvent(*event, options, out);
  }
  err << "smctl: " << client.error().message << "\n";
  return kExitUnreachable;
}

}  // namespace

int RunStatus(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  int exit_code;
  auto response = Ask(client, options, "status", nlohmann::json::object(), out, err, &exit_code);
  if (!response) return exit_code;
  auto status = control::ParseStatusWire(response->arguments);
  if (!status) {
    err << "smctl: unreadable status from smsupd: " << status.error().message << "\n";
    return kExitFailed;
  }
  out << (options.json ? control::ToJson(*status).dump(2) + "\n" : FormatStatus(*status));
  return kExitOk;
}

int RunEvents(const GlobalOptions& options, std::uint64_t since, bool follow, std::ostream& out,
              std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  int exit_code;
  auto response = Ask(client, options, "events",
                      control::ToJson(control::EventsArguments{since, follow}), out, err,
                      &exit_code);
  if (!response) return exit_code;
  const auto& events = response->arguments.value("events", nlohmann::json::array());
  std::uint64_t first = response->arguments.value("first_seq", std::uint64_t{0});
  if (!options.json && since + 1 < first)
    err << "smctl: events before " << first << " are no longer kept\n";
  if (!options.json) out << FormatEventHeader();
  for (const auto& json : events) {
    auto event = control::ParseEventWire(json);
    if (!event) {
      err << "smctl: unreadable event from smsupd: " << event.error().message << "\n";
      return kExitFailed;
    }
    PrintEvent(*event, options, out);
  }
  return follow ? FollowEvents(client, options, out, err) : kExitOk;
}

int RunReload(const GlobalOptions& options, const control::ReloadArguments& args,
              std::ostream& out, std::ostream& err) {
  GlobalOptions patient = options;
  if (args.wait)  // the daemon answers after verifying (and perhaps rolling back): wait for that
    patient.timeout = std::chrono::milliseconds(
        args.timeout_given ? 2 * static_cast<long>(args.timeout_s * 1000) + 5000 : kLongestApplyWaitMs);
  ControlClient client(patient.socket, patient.timeout);
  int exit_code;
  auto response = Ask(client, patient, "reload", control::ToJson(args), out, err, &exit_code);
  if (!response) return exit_code;
  if (options.json)
    out << control::SerializeResponse(*response) << "\n";
  else
    out << (response->text.empty() ? "reloaded" : response->text) << "\n";
  return kExitOk;
}

// The daemon answers a --wait failover once the new master is in place (or
// the handover failed): wait that long too.
int RunFailover(const GlobalOptions& options, const control::FailoverArguments& args,
                std::ostream& out, std::ostream& err) {
  GlobalOptions patient = options;
  patient.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000) + 2000);
  ControlClient client(patient.socket, patient.timeout);
  int exit_code;
  auto response = Ask(client, patient, "failover", control::ToJson(args), out, err, &exit_code);
  if (!response) return exit_code;
  if (options.json)
    out << control::SerializeResponse(*response) << "\n";
  else
    out << (response->text.empty() ? "failover started" : response->text) << "\n";
  return kExitOk;
}

int RunRestartOpenSm(const GlobalOptions& options, const control::RestartOpenSmArguments& args,
                     std::ostream& out, std::ostream& err) {
  GlobalOptions patient = options;
  patient.timeout = std::chrono::milliseconds(static_cast<long>(args.timeout_s * 1000) + 2000);
  ControlClient client(patient.socket, patient.timeout);
  int exit_code;
  auto response =
      Ask(client, patient, "restart-opensm", control::ToJson(args), out, err, &exit_code);
  if (!response) return exit_code;
  if (options.json)
    out << control::SerializeResponse(*response) << "\n";
  else
    out << (response->text.empty() ? "restart started" : response->text) << "\n";
  return kExitOk;
}

int RunMetrics(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  int exit_code;
  auto response = Ask(client, options, "metrics", nlohmann::json::object(), out, err, &exit_code);
  if (!response) return exit_code;
  if (options.json)
    out << control::SerializeResponse(*response) << "\n";
  else
    out << response->arguments.value("exposition", std::string());
  return kExitOk;
}

std::string VersionLine() {
  return std::string("smctl ") + SMSUPD_VERSION + " (protocol " + std::to_string(control::kProtocolVersion) + ")";
}

int RunVersion(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  int exit_code;
  auto response = Ask(client, options, "version", nlohmann::json::object(), out, err, &exit_code);
  nlohmann::json json = {{"smctl", SMSUPD_VERSION}, {"protocol", control::kProtocolVersion}};
  if (response) json["daemon"] = response->arguments;
  if (options.json) {
    out << json.dump(2) << "\n";
  } else {
    out << VersionLine() << "\n";
    if (response)
      out << "daemon: " << response->arguments.value("daemon", std::string("?")) << " (protocol "
          << response->arguments.value("protocol", 0) << ")\n";
  }
  return exit_code;
}

int RunListCommands(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  int exit_code;
  auto response =
      Ask(client, options, "list-commands", nlohmann::json::object(), out, err, &exit_code);
  if (!response) return exit_code;
  const auto& commands = response->arguments.value("commands", nlohmann::json::array());
  out << (options.json ? response->arguments.dump(2) + "\n" : FormatCommandList(commands));
  return kExitOk;
}

}  // namespace smsupd::smctl
