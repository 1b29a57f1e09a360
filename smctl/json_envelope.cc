#include "smctl/json_envelope.h"

namespace smsupd::smctl {

CommandOutcome Succeeded(const control::Response& response) {
  CommandOutcome outcome;
  outcome.result = response.result;
  outcome.text = response.text;
  outcome.arguments = response.arguments.is_object() ? response.arguments : nlohmann::json::object();
  outcome.data = outcome.arguments;
  return outcome;
}

CommandOutcome Failed(int exit_code, std::string error_code, std::string message) {
  CommandOutcome outcome;
  outcome.exit_code = exit_code;
  outcome.error_code = std::move(error_code);
  outcome.message = std::move(message);
  return outcome;
}

CommandOutcome Refused(const control::Response& response) {
  CommandOutcome outcome = Succeeded(response);
  outcome.exit_code = kExitFailed;
  outcome.error_code = control::ResultCodeName(response.result);
  outcome.message = response.text;
  return outcome;
}

nlohmann::json Envelope(const std::string& command, const CommandOutcome& outcome) {
  nlohmann::json document = outcome.data.is_object() ? outcome.data : nlohmann::json::object();
  document["ok"] = outcome.ok();
  document["command"] = command;
  document["exit_code"] = outcome.exit_code;
  document["error"] = outcome.ok() ? nlohmann::json(nullptr)
                                   : nlohmann::json{{"code", outcome.error_code},
                                                    {"message", outcome.message}};
  document["result"] = outcome.result ? nlohmann::json(static_cast<int>(*outcome.result))
                                      : nlohmann::json(nullptr);
  document["text"] = outcome.text;
  document["arguments"] = outcome.arguments;
  return document;
}

std::string EnvelopeText(const std::string& command, const CommandOutcome& outcome) {
  const int indent = command == "events" ? -1 : 2;  // a stream's lines are JSON Lines
  return Envelope(command, outcome).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

int Finish(bool json, const std::string& command, const CommandOutcome& outcome,
           std::ostream& out, std::ostream& err) {
  if (json) out << EnvelopeText(command, outcome) << "\n";
  if (!outcome.ok() && !outcome.message.empty())
    err << "smctl: " << (command.empty() ? "" : command + ": ") << outcome.message << "\n";
  out.flush();
  return outcome.exit_code;
}

}  // namespace smsupd::smctl
