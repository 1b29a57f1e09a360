#include "common/control_wire.h"

#include <cstdio>
#include <ctime>

#include "common/json_fields.h"

namespace smsupd::control {

using nlohmann::json;

bool IsSmStateName(std::string_view name) {
  for (auto state : kSmStateNames)
    if (state == name) return true;
  return false;
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
                        {"commanded_priority", f.commanded_priority},
                        {"counters", f.counters}};
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
    if (const auto* counters = f.Find("counters", false); counters && counters->is_object()) {
      for (const auto& [name, value] : counters->items())
        if (value.is_number_unsigned()) wire.counters[name] = value.get<std::uint64_t>();
    }
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
