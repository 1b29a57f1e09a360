#include "common/control_protocol.h"

#include "common/bounded_json.h"
#include "common/control_arguments.h"
#include "common/json_fields.h"

namespace smsupd::control {

using nlohmann::json;

const char* ResultCodeName(ResultCode code) {
  switch (code) {
    case ResultCode::kSuccess: return "success";
    case ResultCode::kError: return "error";
    case ResultCode::kUnsupported: return "unsupported";
    case ResultCode::kEmpty: return "empty";
    case ResultCode::kPermissionDenied: return "permission-denied";
    case ResultCode::kBadRequest: return "bad-request";
    case ResultCode::kTooLarge: return "too-large";
    case ResultCode::kBusy: return "busy";
    case ResultCode::kTimeout: return "timeout";
    case ResultCode::kBadVersion: return "bad-version";
    case ResultCode::kTooSlow: return "too-slow";
    case ResultCode::kApplyInProgress: return "apply-in-progress";
    case ResultCode::kTwinRefused: return "twin-refused";
  }
  return "unknown";
}

bool CarriesConfigText(std::string_view command) { return command == "plan" || command == "twin-plan"; }

const CommandInfo* FindCommand(std::string_view name) {
  for (const auto& command : kCommands)
    if (command.name == name) return &command;
  return nullptr;
}

Response MakeResponse(ResultCode result, std::string text, nlohmann::json arguments) {
  return Response{result, std::move(text), std::move(arguments)};
}

std::string SerializeRequest(const Request& request) {
  json line = {{"version", request.version}, {"command", request.command}};
  if (!request.arguments.empty()) line["arguments"] = request.arguments;
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The object {"arguments", "result", "text"} in the order nlohmann::json
// writes its keys (sorted), without copying `arguments` into it first: a
// `ports` reply on 10,000 HCAs holds ~28,000 rows, and the copy cost as much
// as the dump.
std::string SerializeResponse(const Response& response) {
  auto dump = [](const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string line = "{";
  if (!response.arguments.is_null() && !response.arguments.empty())
    line += "\"arguments\":" + dump(response.arguments) + ",";
  line += "\"result\":" + std::to_string(static_cast<int>(response.result)) + ",\"text\":" + dump(response.text) + "}";
  return line;
}

std::variant<Request, Response> ParseRequest(std::string_view line) {
  // Bounded before anything recursive (copies, dumps) touches it.
  Result<json> bounded = ParseBoundedJson(line);
  if (!bounded) return MakeResponse(ResultCode::kBadRequest, "request " + bounded.error().message);
  const json& parsed = *bounded;
  if (!parsed.is_object())
    return MakeResponse(ResultCode::kBadRequest, "request must be a JSON object");

  Request request;
  FieldReader reader(parsed, "");
  reader.Integer("version", &request.version, 0, kMaxI32);
  if (reader.error()) return MakeResponse(ResultCode::kBadRequest, reader.error()->message);
  if (request.version != kProtocolVersion)
    return MakeResponse(ResultCode::kBadVersion,
                        "protocol version " + std::to_string(request.version) +
                            " is not supported; this daemon speaks version " +
                            std::to_string(kProtocolVersion),
                        {{"protocol", kProtocolVersion}});

  reader.String("command", &request.command);
  if (reader.error()) return MakeResponse(ResultCode::kBadRequest, reader.error()->message);
  const CommandInfo* command = FindCommand(request.command);
  if (!command)
    return MakeResponse(ResultCode::kUnsupported,
                        "unknown command '" + request.command + "' (list-commands shows them)");

  reader.OnlyKeys({"version", "command", "arguments"});
  if (const json* arguments = reader.Find("arguments", false)) request.arguments = *arguments;
  if (reader.error()) return MakeResponse(ResultCode::kBadRequest, reader.error()->message);
  if (Status status = CheckArguments(*command, request.arguments); !status)
    return MakeResponse(ResultCode::kBadRequest, status.message());
  return request;
}

Result<Response> ParseResponse(std::string_view line) {
  Result<json> bounded = ParseBoundedJson(line);
  if (!bounded) return Error{"response " + bounded.error().message};
  const json& parsed = *bounded;
  Response response;
  FieldReader reader(parsed, "response");
  int result = 0;
  reader.Integer("result", &result, 0, kMaxI32);
  reader.String("text", &response.text, /*required=*/false);
  if (const json* arguments = reader.Find("arguments", false)) {
    if (!arguments->is_object())
      reader.Fail("response.arguments", "expected an object, got " + Describe(*arguments));
    else
      response.arguments = *arguments;
  }
  if (reader.error()) return *reader.error();
  response.result = static_cast<ResultCode>(result);
  return response;
}

}  // namespace smsupd::control
