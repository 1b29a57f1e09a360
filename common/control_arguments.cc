#include "common/control_arguments.h"

#include <cmath>

#include "common/json_fields.h"

namespace smsupd::control {

using nlohmann::json;

namespace {

// An optional number of seconds in (0, max]; true when it was given and valid.
bool ReadSeconds(FieldReader& reader, const char* key, int max, double* out) {
  const json* value = reader.Find(key, false);
  if (value == nullptr) return false;
  if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() <= 0 ||
      value->get<double>() > max) {
    reader.Fail(std::string("arguments.") + key,
                "expected seconds in (0, " + std::to_string(max) + "], got " + Describe(*value));
    return false;
  }
  *out = value->get<double>();
  return true;
}

}  // namespace

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
  nlohmann::json json = {{"restart", args.restart}, {"force", args.force}, {"wait", args.wait}};
  if (args.timeout_given) json["timeout_ms"] = static_cast<std::int64_t>(args.timeout_s * 1000);
  if (args.twin) json["twin"] = true;  // only then: an older daemon refuses the unknown key
  return json;
}

Result<ReloadArguments> ParseReloadArguments(const nlohmann::json& arguments) {
  ReloadArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"restart", "force", "wait", "timeout_s", "timeout_ms", "twin"});
  reader.Bool("twin", &args.twin, false);
  reader.Bool("restart", &args.restart, false);
  reader.Bool("force", &args.force, false);
  reader.Bool("wait", &args.wait, false);
  std::int64_t timeout_ms = 0;
  reader.Integer("timeout_ms", &timeout_ms, 1, 86400000, false);
  if (timeout_ms > 0) {
    args.timeout_s = static_cast<double>(timeout_ms) / 1000;
    args.timeout_given = true;
  }
  if (ReadSeconds(reader, "timeout_s", 86400, &args.timeout_s)) args.timeout_given = true;
  if (reader.error()) return *reader.error();
  return args;
}

nlohmann::json ToJson(const RestartOpenSmArguments& args) {
  return {{"wait", args.wait}, {"force", args.force}, {"timeout_s", args.timeout_s}};
}

Result<RestartOpenSmArguments> ParseRestartOpenSmArguments(const nlohmann::json& arguments) {
  RestartOpenSmArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"wait", "force", "timeout_s"});
  reader.Bool("wait", &args.wait, false);
  reader.Bool("force", &args.force, false);
  ReadSeconds(reader, "timeout_s", 3600, &args.timeout_s);
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
  ReadSeconds(reader, "timeout_s", 3600, &args.timeout_s);
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
  if (args.file.size() > kMaxPlanFileNameBytes)
    return Error{"arguments.file: a name of " + std::to_string(args.file.size()) +
                 " bytes; the limit is " + std::to_string(kMaxPlanFileNameBytes)};
  if (!args.yaml && !args.file.empty())
    return Error{"arguments.file: plan takes the config text in \"yaml\" (\"file\" only names it); "
                 "the daemon does not open a caller's files"};
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

nlohmann::json ToJson(const WhyArguments& args) { return {{"a", args.a}, {"b", args.b}}; }

Result<WhyArguments> ParseWhyArguments(const nlohmann::json& arguments) {
  WhyArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"a", "b"});
  reader.String("a", &args.a);
  reader.String("b", &args.b);
  if (reader.error()) return *reader.error();
  for (const auto& [key, value] : {std::pair{"a", &args.a}, std::pair{"b", &args.b}}) {
    if (value->empty()) return Error{std::string("arguments.") + key + ": an empty name"};
    if (value->size() > kMaxWhyNameBytes)
      return Error{std::string("arguments.") + key + ": a name of " + std::to_string(value->size()) +
                   " bytes; the limit is " + std::to_string(kMaxWhyNameBytes)};
  }
  return args;
}

nlohmann::json ToJson(const CablingArguments& args) { return {{"export", args.export_csv}}; }

Result<CablingArguments> ParseCablingArguments(const nlohmann::json& arguments) {
  CablingArguments args;
  FieldReader reader(arguments, "arguments");
  reader.OnlyKeys({"export"});
  reader.Bool("export", &args.export_csv, false);
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
  } else if (command.name == "restart-opensm") {
    if (auto parsed = ParseRestartOpenSmArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "plan" || command.name == "twin-plan") {
    if (auto parsed = ParsePlanArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "rollback") {
    if (auto parsed = ParseRollbackArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "why") {
    if (auto parsed = ParseWhyArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "cabling") {
    if (auto parsed = ParseCablingArguments(arguments); !parsed) return parsed.error();
  } else if (command.name == "version" || command.name == "list-commands" ||
             command.name == "status" || command.name == "history" ||
             command.name == "metrics") {
    if (!arguments.empty())
      return Error{"arguments: '" + std::string(command.name) + "' takes no arguments"};
  }
  // Other commands define their arguments where they are implemented; the
  // handler checks them.
  return Status::Ok();
}

}  // namespace smsupd::control
