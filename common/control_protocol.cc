#include "common/control_protocol.h"

#include <cmath>
#include <ctime>
#include <limits>
#include <set>

namespace smsupd::control {
namespace {

using nlohmann::json;

std::string Describe(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Reads typed fields of one JSON object, keeping the first problem as a
// message that names the field path. Callers check error() once at the end,
// so a parse never throws and never stops half-way with a partial message.
class FieldReader {
 public:
  FieldReader(const json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) Fail(path_, "expected an object, got " + Describe(object_));
  }

  const std::optional<Error>& error() const { return error_; }

  const json* Find(const char* key, bool required) {
    if (error_) return nullptr;
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) Fail(Path(key), "missing");
      return nullptr;
    }
    return &*it;
  }

  void String(const char* key, std::string* out, bool required = true) {
    const json* value = Find(key, required);
    if (!value) return;
    if (!value->is_string()) return Fail(Path(key), "expected a string, got " + Describe(*value));
    *out = value->get<std::string>();
  }

  void Bool(const char* key, bool* out, bool required = true) {
    const json* value = Find(key, required);
    if (!value) return;
    if (!value->is_boolean()) return Fail(Path(key), "expected true or false, got " + Describe(*value));
    *out = value->get<bool>();
  }

  template <typename T>
  void Integer(const char* key, T* out, std::int64_t min, std::uint64_t max, bool required = true) {
    const json* value = Find(key, required);
    if (!value) return;
    std::string range = "expected an integer " + std::to_string(min) + ".." + std::to_string(max);
    if (value->is_number_unsigned()) {
      auto number = value->get<std::uint64_t>();
      if (number > max || (min > 0 && number < static_cast<std::uint64_t>(min)))
        return Fail(Path(key), range + ", got " + Describe(*value));
      *out = static_cast<T>(number);
    } else if (value->is_number_integer()) {
      auto number = value->get<std::int64_t>();
      if (number < min || (number >= 0 && static_cast<std::uint64_t>(number) > max))
        return Fail(Path(key), range + ", got " + Describe(*value));
      *out = static_cast<T>(number);
    } else {
      Fail(Path(key), range + ", got " + Describe(*value));
    }
  }

  void GuidField(const char* key, Guid* out) {
    std::string text;
    String(key, &text);
    if (error_) return;
    auto guid = ParseGuid(text);
    if (!guid) return Fail(Path(key), "expected \"0x\" and 16 hex digits, got \"" + text + "\"");
    *out = *guid;
  }

  void State(const char* key, std::string* out) {
    String(key, out);
    if (!error_ && !IsSmStateName(*out))
      Fail(Path(key), "expected MASTER, STANDBY, DISCOVERING or NOTACTIVE, got \"" + *out + "\"");
  }

  // Refuses keys outside `known`, so a misspelt argument is reported.
  void OnlyKeys(std::initializer_list<std::string_view> known) {
    if (error_) return;
    for (const auto& [key, value] : object_.items()) {
      bool found = false;
      for (auto name : known) found = found || key == name;
      if (!found) return Fail(Path(key.c_str()), "unknown argument");
    }
  }

  std::string Path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  void Fail(const std::string& where, const std::string& what) {
    if (!error_) error_ = Error{where.empty() ? what : where + ": " + what};
  }

 private:
  const json& object_;
  std::string path_;
  std::optional<Error> error_;
};

constexpr std::uint64_t kMaxU16 = 0xffff;
constexpr std::uint64_t kMaxI32 = std::numeric_limits<std::int32_t>::max();
constexpr std::uint64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();

}  // namespace

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
  }
  return "unknown";
}

const CommandInfo* FindCommand(std::string_view name) {
  for (const auto& command : kCommands)
    if (command.name == name) return &command;
  return nullptr;
}

bool IsSmStateName(std::string_view name) {
  for (auto state : kSmStateNames)
    if (state == name) return true;
  return false;
}

Response MakeResponse(ResultCode result, std::string text, nlohmann::json arguments) {
  return Response{result, std::move(text), std::move(arguments)};
}

std::string SerializeRequest(const Request& request) {
  json line = {{"version", request.version}, {"command", request.command}};
  if (!request.arguments.empty()) line["arguments"] = request.arguments;
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string SerializeResponse(const Response& response) {
  json line = {{"result", static_cast<int>(response.result)}, {"text", response.text}};
  if (!response.arguments.is_null() && !response.arguments.empty())
    line["arguments"] = response.arguments;
  return line.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::variant<Request, Response> ParseRequest(std::string_view line) {
  json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded())
    return MakeResponse(ResultCode::kBadRequest, "request is not valid JSON");
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
  json parsed = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Error{"response is not valid JSON"};
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

nlohmann::json ToJson(const EventsArguments& args) {
  return {{"since", args.since}, {"follow", args.follow}};
}

Result<EventsArguments> ParseEventsArguments(const nlohmann::json& arguments) {
  EventsArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"since", "follow"});
  reader.Integer("since", &args.since, 0, kMaxI64, false);
  reader.Bool("follow", &args.follow, false);
  if (reader.error()) return *reader.error();
  return args;
}

nlohmann::json ToJson(const ReloadArguments& args) {
  nlohmann::json json = {{"restart", args.restart}, {"wait", args.wait}};
  if (args.timeout_given) json["timeout_ms"] = static_cast<std::int64_t>(args.timeout_s * 1000);
  return json;
}

Result<ReloadArguments> ParseReloadArguments(const nlohmann::json& arguments) {
  ReloadArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"restart", "wait", "timeout_s", "timeout_ms"});
  reader.Bool("restart", &args.restart, false);
  reader.Bool("wait", &args.wait, false);
  std::int64_t timeout_ms = 0;
  reader.Integer("timeout_ms", &timeout_ms, 1, 86400000, false);
  if (timeout_ms > 0) {
    args.timeout_s = static_cast<double>(timeout_ms) / 1000;
    args.timeout_given = true;
  }
  if (const json* timeout = reader.Find("timeout_s", false)) {
    if (!timeout->is_number() || !std::isfinite(timeout->get<double>()) ||
        timeout->get<double>() <= 0 || timeout->get<double>() > 86400)
      reader.Fail("arguments.timeout_s", "expected seconds in (0, 86400], got " + Describe(*timeout));
    else
      args.timeout_s = timeout->get<double>(), args.timeout_given = true;
  }
  if (reader.error()) return *reader.error();
  return args;
}

nlohmann::json ToJson(const FailoverArguments& args) {
  nlohmann::json json = {{"wait", args.wait}, {"timeout_s", args.timeout_s}};
  if (args.to) json["to"] = FormatGuid(*args.to);
  return json;
}

Result<FailoverArguments> ParseFailoverArguments(const nlohmann::json& arguments) {
  FailoverArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"to", "wait", "timeout_s"});
  reader.Bool("wait", &args.wait, false);
  if (const json* to = reader.Find("to", false)) {
    auto guid = to->is_string() ? ParseGuid(to->get<std::string>()) : std::nullopt;
    if (!guid)
      reader.Fail("arguments.to", "expected a port GUID \"0x\" + 16 hex digits, got " + Describe(*to));
    else
      args.to = *guid;
  }
  if (const json* timeout = reader.Find("timeout_s", false)) {
    if (!timeout->is_number() || !std::isfinite(timeout->get<double>()) ||
        timeout->get<double>() <= 0 || timeout->get<double>() > 3600)
      reader.Fail("arguments.timeout_s", "expected seconds in (0, 3600], got " + Describe(*timeout));
    else
      args.timeout_s = timeout->get<double>();
  }
  if (reader.error()) return *reader.error();
  return args;
}

nlohmann::json ToJson(const PlanArguments& args) {
  nlohmann::json json = nlohmann::json::object();
  if (args.yaml) json["yaml"] = *args.yaml;
  if (!args.file.empty()) json["file"] = args.file;
  return json;
}

Result<PlanArguments> ParsePlanArguments(const nlohmann::json& arguments) {
  PlanArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"yaml", "file"});
  std::string yaml;
  if (reader.Find("yaml", false)) {
    reader.String("yaml", &yaml);
    args.yaml = yaml;
  }
  reader.String("file", &args.file, false);
  if (reader.error()) return *reader.error();
  return args;
}

nlohmann::json ToJson(const RollbackArguments& args) {
  nlohmann::json json = {{"wait", args.wait}};
  if (args.generation) json["generation"] = *args.generation;
  if (args.timeout_ms) json["timeout_ms"] = *args.timeout_ms;
  return json;
}

Result<RollbackArguments> ParseRollbackArguments(const nlohmann::json& arguments) {
  RollbackArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"generation", "wait", "timeout_ms"});
  std::uint64_t generation = 0;
  if (reader.Find("generation", false)) {
    reader.Integer("generation", &generation, 1, kMaxI64);
    args.generation = generation;
  }
  reader.Bool("wait", &args.wait, false);
  std::int64_t timeout_ms = 0;
  if (reader.Find("timeout_ms", false)) {
    reader.Integer("timeout_ms", &timeout_ms, 1, 86400000);
    args.timeout_ms = timeout_ms;
  }
  if (reader.error()) return *reader.error();
  return args;
}

Status CheckArguments(const CommandInfo& command, const nlohmann::json& arguments) {
  if (!arguments.is_object())
    return Error{"arguments: expected an object, got " + Describe(arguments)};
  if (command.name == "events") {
    if (auto parsed = ParseEventsArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "reload") {
    if (auto parsed = ParseReloadArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "failover") {
    if (auto parsed = ParseFailoverArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "plan") {
    if (auto parsed = ParsePlanArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "rollback") {
    if (auto parsed = ParseRollbackArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "version" || command.name == "list-commands" ||
             command.name == "status" || command.name == "history") {
    if (!arguments.empty())
      return Error{"arguments: '" + std::string(command.name) + "' takes no arguments"};
  }
  // Other commands define their arguments where they are implemented; the
  // handler checks them.
  return Status::Ok();
}

namespace {

nlohmann::json GuidJson(Guid guid) { return FormatGuid(guid); }

Result<SmWire> ParseSm(const nlohmann::json& json, const std::string& path) {
  SmWire sm;
  FieldReader reader(json, path);
  reader.GuidField("guid", &sm.guid);
  reader.Integer("lid", &sm.lid, 0, kMaxU16);
  reader.State("state", &sm.state);
  reader.Integer("priority", &sm.priority, 0, 15);
  reader.String("host", &sm.host, false);
  if (reader.error()) return *reader.error();
  return sm;
}

Result<ProblemWire> ParseProblem(const nlohmann::json& json, const std::string& path) {
  ProblemWire problem;
  FieldReader reader(json, path);
  reader.String("id", &problem.id);
  reader.String("text", &problem.text);
  reader.String("since", &problem.since, false);
  if (reader.error()) return *reader.error();
  return problem;
}

void ReadLocalSm(FieldReader& status, const nlohmann::json& json, LocalSmWire* out) {
  FieldReader reader(json, "status.local_sm");
  reader.State("state", &out->state);
  reader.Integer("priority", &out->priority, 0, 15);
  reader.GuidField("guid", &out->guid);
  reader.Integer("lid", &out->lid, 0, kMaxU16);
  reader.Integer("pid", &out->pid, 0, kMaxI32);
  if (reader.error()) status.Fail("", reader.error()->message);
}

void ReadOpenSm(FieldReader& status, const nlohmann::json& json, OpenSmWire* out) {
  FieldReader reader(json, "status.opensm");
  reader.Integer("pid", &out->pid, 0, kMaxI32);
  reader.Integer("uptime_s", &out->uptime_s, 0, kMaxI64);
  reader.Integer("restarts", &out->restarts, 0, kMaxI32);
  reader.GuidField("port_guid", &out->port_guid);
  if (reader.error()) status.Fail("", reader.error()->message);
}

void ReadMaster(FieldReader& status, const nlohmann::json& json, std::optional<MasterWire>* out) {
  if (json.is_null()) return;
  MasterWire master;
  FieldReader reader(json, "status.master");
  reader.GuidField("guid", &master.guid);
  reader.Integer("lid", &master.lid, 0, kMaxU16);
  reader.Integer("priority", &master.priority, 0, 15);
  reader.String("host", &master.host, false);
  if (reader.error()) return status.Fail("", reader.error()->message);
  *out = master;
}

void ReadConfig(FieldReader& status, const nlohmann::json& json, ConfigWire* out) {
  FieldReader reader(json, "status.config");
  reader.Integer("generation", &out->generation, 0, kMaxI64);
  reader.String("hash", &out->hash);
  if (reader.error()) status.Fail("", reader.error()->message);
}

// Reads an array field element by element with `parse`.
template <typename T, typename Parse>
void ReadArray(FieldReader& parent, const nlohmann::json* array, const std::string& path,
               Parse parse, std::vector<T>* out) {
  if (!array) return;
  if (!array->is_array()) return parent.Fail(path, "expected an array, got " + Describe(*array));
  for (std::size_t i = 0; i < array->size(); ++i) {
    auto element = parse((*array)[i], path + "[" + std::to_string(i) + "]");
    if (!element) return parent.Fail("", element.error().message);
    out->push_back(std::move(*element));
  }
}

}  // namespace

nlohmann::json ToJson(const StatusWire& status) {
  const auto& local = status.local_sm;
  nlohmann::json sms = nlohmann::json::array();
  for (const auto& sm : status.sms)
    sms.push_back({{"guid", GuidJson(sm.guid)}, {"lid", sm.lid}, {"state", sm.state},
                   {"priority", sm.priority}, {"host", sm.host}});
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& problem : status.problems)
    problems.push_back({{"id", problem.id}, {"text", problem.text}, {"since", problem.since}});
  nlohmann::json master = nullptr;
  if (status.master)
    master = {{"guid", GuidJson(status.master->guid)}, {"lid", status.master->lid},
              {"priority", status.master->priority}, {"host", status.master->host}};
  nlohmann::json json = {
      {"node", status.node},
      {"local_sm", {{"state", local.state}, {"priority", local.priority},
                    {"guid", GuidJson(local.guid)}, {"lid", local.lid}, {"pid", local.pid}}},
      {"opensm", {{"pid", status.opensm.pid}, {"uptime_s", status.opensm.uptime_s},
                  {"restarts", status.opensm.restarts},
                  {"port_guid", GuidJson(status.opensm.port_guid)}}},
      {"master", master},
      {"sms", sms},
      {"config", {{"generation", status.config.generation}, {"hash", status.config.hash}}},
      {"health", {{"problems", problems}}},
  };
  if (status.failover) {
    const FailoverWire& f = *status.failover;
    json["failover"] = {{"state", f.state}, {"role", f.role}, {"preempt", f.preempt},
                        {"commanded_priority", f.commanded_priority}};
  }
  return json;
}

Result<StatusWire> ParseStatusWire(const nlohmann::json& json) {
  StatusWire status;
  FieldReader reader(json, "status");
  reader.String("node", &status.node);
  if (const auto* local = reader.Find("local_sm", true)) ReadLocalSm(reader, *local, &status.local_sm);
  if (const auto* opensm = reader.Find("opensm", true)) ReadOpenSm(reader, *opensm, &status.opensm);
  if (const auto* master = reader.Find("master", true)) ReadMaster(reader, *master, &status.master);
  ReadArray(reader, reader.Find("sms", true), "status.sms", ParseSm, &status.sms);
  if (const auto* config = reader.Find("config", true)) ReadConfig(reader, *config, &status.config);
  if (const auto* failover = reader.Find("failover", false)) {
    FieldReader f(*failover, "status.failover");
    FailoverWire wire;
    f.String("state", &wire.state);
    f.String("role", &wire.role);
    f.Bool("preempt", &wire.preempt);
    f.Integer("commanded_priority", &wire.commanded_priority, -1, 15);
    if (f.error()) reader.Fail("", f.error()->message);
    status.failover = wire;
  }
  if (const auto* health = reader.Find("health", true)) {
    FieldReader health_reader(*health, "status.health");
    ReadArray(health_reader, health_reader.Find("problems", true), "status.health.problems",
              ParseProblem, &status.problems);
    if (health_reader.error()) reader.Fail("", health_reader.error()->message);
  }
  if (reader.error()) return *reader.error();
  return status;
}

nlohmann::json ToJson(const EventWire& event) {
  return {{"seq", event.seq}, {"time", event.time}, {"kind", event.kind},
          {"details", event.details}};
}

Result<EventWire> ParseEventWire(const nlohmann::json& json) {
  EventWire event;
  FieldReader reader(json, "event");
  reader.Integer("seq", &event.seq, 1, kMaxI64);
  reader.String("time", &event.time);
  reader.String("kind", &event.kind);
  if (const auto* details = reader.Find("details", false)) {
    if (!details->is_object())
      reader.Fail("event.details", "expected an object, got " + Describe(*details));
    else
      event.details = *details;
  }
  if (reader.error()) return *reader.error();
  return event;
}

std::string FormatRfc3339Millis(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  auto millis = duration_cast<milliseconds>(time.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  int fraction = static_cast<int>(millis % 1000);
  if (fraction < 0) {
    fraction += 1000;
    --seconds;
  }
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[80];  // sized for any int values, to keep -Wformat-truncation quiet
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, fraction);
  return text;
}

}  // namespace smsupd::control
