// The wire contract: round trips, and a table of malformed requests that must
// each give a clear error value (never an exception).
#include "common/control_protocol.h"
#include "common/control_arguments.h"
#include "common/control_wire.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <variant>
#include <vector>

namespace smsupd::control {
namespace {

using nlohmann::json;

TEST(ControlProtocolTest, RequestRoundTrip) {
  Request request{kProtocolVersion, "events", {{"since", 7}, {"follow", true}}};
  auto parsed = ParseRequest(SerializeRequest(request));
  ASSERT_TRUE(std::holds_alternative<Request>(parsed));
  const auto& back = std::get<Request>(parsed);
  EXPECT_EQ(back.command, "events");
  EXPECT_EQ(back.arguments["since"], 7);
  EXPECT_EQ(back.arguments["follow"], true);
}

// What smctl sends is ToJson of the arguments it parsed: every field must
// survive it (reload --restart --force once arrived without --force).
TEST(ControlProtocolTest, ChangingCommandsArgumentsSurviveTheWire) {
  ReloadArguments reload;
  reload.restart = reload.force = reload.wait = true;
  reload.timeout_s = 12.5;
  reload.timeout_given = true;
  Result<ReloadArguments> r = ParseReloadArguments(ToJson(reload));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->restart && r->force && r->wait && r->timeout_given);
  EXPECT_DOUBLE_EQ(r->timeout_s, 12.5);

  RestartOpenSmArguments restart;
  restart.force = restart.wait = true;
  restart.timeout_s = 7;
  Result<RestartOpenSmArguments> s = ParseRestartOpenSmArguments(ToJson(restart));
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->force && s->wait);
  EXPECT_DOUBLE_EQ(s->timeout_s, 7);
}

TEST(ControlProtocolTest, SerializedLinesHaveNoNewline) {
  Response response = MakeResponse(ResultCode::kError, "two\nlines", {{"x", "a\nb"}});
  std::string line = SerializeResponse(response);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  auto back = ParseResponse(line);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->result, ResultCode::kError);
  EXPECT_EQ(back->text, "two\nlines");
  EXPECT_EQ(back->arguments["x"], "a\nb");
}

// The line is the JSON object {"arguments", "result", "text"} as one dump of
// it writes it (keys sorted, invalid UTF-8 replaced), with or without
// arguments, whatever their type.
TEST(ControlProtocolTest, SerializedLinesAreTheWholeObjectDumped) {
  const std::vector<Response> responses = {
      MakeResponse(ResultCode::kSuccess, "ok"),
      MakeResponse(ResultCode::kEmpty, "none", json::object()),
      MakeResponse(ResultCode::kError, "bad \xff byte", {{"z", 1}, {"a", {{"b", json::array({1, "x\xfe"})}}}}),
      MakeResponse(ResultCode::kBusy, "", json::array({1, 2})),
      MakeResponse(ResultCode::kTimeout, "t", json(nullptr)),
      MakeResponse(ResultCode::kSuccess, "n", json(7)),
  };
  for (const Response& response : responses) {
    json whole = {{"result", static_cast<int>(response.result)}, {"text", response.text}};
    if (!response.arguments.is_null() && !response.arguments.empty()) whole["arguments"] = response.arguments;
    EXPECT_EQ(SerializeResponse(response), whole.dump(-1, ' ', false, json::error_handler_t::replace));
  }
}

struct MalformedCase {
  const char* line;
  ResultCode expected;
  const char* text_contains;
};

class MalformedRequestTest : public testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedRequestTest, GivesErrorResponse) {
  const auto& param = GetParam();
  auto parsed = ParseRequest(param.line);
  ASSERT_TRUE(std::holds_alternative<Response>(parsed)) << param.line;
  const auto& response = std::get<Response>(parsed);
  EXPECT_EQ(response.result, param.expected) << param.line << " -> " << response.text;
  EXPECT_NE(response.text.find(param.text_contains), std::string::npos)
      << param.line << " -> " << response.text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, MalformedRequestTest,
    testing::Values(
        MalformedCase{"", ResultCode::kBadRequest, "not valid JSON"},
        MalformedCase{"{\"version\":1,\"command\":\"sta", ResultCode::kBadRequest, "not valid JSON"},
        MalformedCase{"[1,2]", ResultCode::kBadRequest, "JSON object"},
        MalformedCase{"\"status\"", ResultCode::kBadRequest, "JSON object"},
        MalformedCase{"{\"command\":\"status\"}", ResultCode::kBadRequest, "version: missing"},
        MalformedCase{"{\"version\":\"1\",\"command\":\"status\"}", ResultCode::kBadRequest,
                      "version: expected an integer"},
        MalformedCase{"{\"version\":2,\"command\":\"status\"}", ResultCode::kBadVersion,
                      "speaks version 1"},
        MalformedCase{"{\"version\":1e400,\"command\":\"status\"}", ResultCode::kBadRequest, ""},
        MalformedCase{"{\"version\":99999999999999999999999,\"command\":\"status\"}",
                      ResultCode::kBadRequest, "version"},
        MalformedCase{"{\"version\":-1,\"command\":\"status\"}", ResultCode::kBadRequest, "version"},
        MalformedCase{"{\"version\":1}", ResultCode::kBadRequest, "command: missing"},
        MalformedCase{"{\"version\":1,\"command\":42}", ResultCode::kBadRequest,
                      "command: expected a string"},
        MalformedCase{"{\"version\":1,\"command\":\"reboot\"}", ResultCode::kUnsupported,
                      "unknown command 'reboot'"},
        MalformedCase{"{\"version\":1,\"command\":\"status\",\"extra\":1}",
                      ResultCode::kBadRequest, "extra: unknown argument"},
        MalformedCase{"{\"version\":1,\"command\":\"status\",\"arguments\":[]}",
                      ResultCode::kBadRequest, "arguments: expected an object"},
        MalformedCase{"{\"version\":1,\"command\":\"status\",\"arguments\":{\"a\":1}}",
                      ResultCode::kBadRequest, "takes no arguments"},
        MalformedCase{"{\"version\":1,\"command\":\"events\",\"arguments\":{\"since\":-3}}",
                      ResultCode::kBadRequest, "arguments.since"},
        MalformedCase{"{\"version\":1,\"command\":\"events\",\"arguments\":{\"since\":1.5}}",
                      ResultCode::kBadRequest, "arguments.since"},
        MalformedCase{"{\"version\":1,\"command\":\"events\",\"arguments\":{\"follow\":\"yes\"}}",
                      ResultCode::kBadRequest, "arguments.follow: expected true or false"},
        MalformedCase{"{\"version\":1,\"command\":\"events\",\"arguments\":{\"sinse\":1}}",
                      ResultCode::kBadRequest, "arguments.sinse: unknown argument"},
        MalformedCase{"{\"version\":1,\"command\":\"reload\",\"arguments\":{\"timeout_s\":0}}",
                      ResultCode::kBadRequest, "arguments.timeout_s"},
        MalformedCase{"{\"version\":1,\"command\":\"reload\",\"arguments\":{\"wait\":1}}",
                      ResultCode::kBadRequest, "arguments.wait"}));

// Check order like chronyd: version before command before arguments.
TEST(ControlProtocolTest, VersionIsCheckedBeforeCommand) {
  auto parsed = ParseRequest(R"({"version":7,"command":"nonsense","arguments":5})");
  ASSERT_TRUE(std::holds_alternative<Response>(parsed));
  EXPECT_EQ(std::get<Response>(parsed).result, ResultCode::kBadVersion);
  parsed = ParseRequest(R"({"version":1,"command":"nonsense","arguments":5})");
  EXPECT_EQ(std::get<Response>(parsed).result, ResultCode::kUnsupported);
}

TEST(ControlProtocolTest, CommandListIsAppendOnlyAndNumbered) {
  for (std::size_t i = 0; i < kCommands.size(); ++i) {
    EXPECT_EQ(kCommands[i].number, static_cast<int>(i));
    EXPECT_LE(kCommands[i].since_version, kProtocolVersion);
  }
  EXPECT_EQ(FindCommand("reload")->access, Access::kChanging);
  EXPECT_EQ(FindCommand("status")->access, Access::kReadOnly);
  for (const char* name : {"failover", "plan", "history", "rollback"})
    EXPECT_FALSE(FindCommand(name)->reserved) << name << " is implemented";
  EXPECT_EQ(FindCommand("nope"), nullptr);
}

StatusWire SampleStatus() {
  StatusWire status;
  status.node = "mgmt-a";
  status.local_sm = {"MASTER", 15, 0x0002c90300a1b2c3, 1, 4242};
  status.opensm = {4242, 3600, 2, 0x0002c90300a1b2c3};
  status.master = MasterWire{0x0002c90300a1b2c3, 1, 15, "mgmt-a"};
  status.sms = {{0x0002c90300a1b2c3, 1, "MASTER", 15, "mgmt-a"},
                {0x0002c90300a1b2d4, 7, "STANDBY", 5, "mgmt-b"}};
  status.config = {3, "3f2a9c"};
  status.problems = {{"NO_STANDBY", "no standby SM", "2026-12-02T17:33:04.123Z"}};
  return status;
}

TEST(ControlProtocolTest, StatusRoundTripUsesWireNames) {
  nlohmann::json json = ToJson(SampleStatus());
  EXPECT_EQ(json["local_sm"]["guid"], "0x0002c90300a1b2c3");
  EXPECT_EQ(json["local_sm"]["state"], "MASTER");
  EXPECT_EQ(json["master"]["priority"], 15);
  EXPECT_EQ(json["sms"][1]["state"], "STANDBY");
  EXPECT_EQ(json["config"]["generation"], 3);
  EXPECT_EQ(json["health"]["problems"][0]["id"], "NO_STANDBY");
  auto back = ParseStatusWire(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ToJson(*back), json);
}

TEST(ControlProtocolTest, StatusWithoutMasterIsNull) {
  StatusWire status = SampleStatus();
  status.master.reset();
  nlohmann::json json = ToJson(status);
  EXPECT_TRUE(json["master"].is_null());
  auto back = ParseStatusWire(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->master.has_value());
}

TEST(ControlProtocolTest, StatusParseNamesTheBadField) {
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* message;
  };
  const Case cases[] = {
      {"/local_sm/state", "BOSS", "status.local_sm.state: expected MASTER"},
      {"/local_sm/priority", 16, "status.local_sm.priority: expected an integer 0..15"},
      {"/local_sm/guid", "2c90300a1b2c3", "status.local_sm.guid"},
      {"/sms/1/lid", 70000, "status.sms[1].lid"},
      {"/health/problems", "none", "status.health.problems: expected an array"},
      {"/config/hash", 5, "status.config.hash: expected a string"},
  };
  for (const auto& c : cases) {
    nlohmann::json json = ToJson(SampleStatus());
    json[nlohmann::json::json_pointer(c.pointer)] = c.value;
    auto parsed = ParseStatusWire(json);
    ASSERT_FALSE(parsed.ok()) << c.pointer;
    EXPECT_NE(parsed.error().message.find(c.message), std::string::npos)
        << parsed.error().message;
  }
  EXPECT_FALSE(ParseStatusWire(nlohmann::json::array()).ok());
}

TEST(ControlProtocolTest, EventRoundTrip) {
  EventWire event{12, "2026-12-02T17:33:04.123Z", std::string(kEventMasterChanged),
                  {{"from", "0x0000000000000001"}}};
  auto back = ParseEventWire(ToJson(event));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->seq, 12u);
  EXPECT_EQ(back->kind, "master-changed");
  EXPECT_EQ(back->details["from"], "0x0000000000000001");
  EXPECT_FALSE(ParseEventWire({{"seq", 0}, {"time", "t"}, {"kind", "k"}}).ok());
}

TEST(ControlProtocolTest, Rfc3339WithMilliseconds) {
  std::chrono::system_clock::time_point time{std::chrono::milliseconds(1764696784123)};
  EXPECT_EQ(FormatRfc3339Millis(time), "2025-12-02T17:33:04.123Z");
}

// plan's "file" only names the text in diagnostics: a path's length at most.
TEST(ControlProtocolTest, APlanFileNameLongerThanAPathIsRefused) {
  auto request = [](std::size_t length) {
    return ParseRequest(R"({"version":1,"command":"plan","arguments":{"yaml":"version: 1","file":")" +
                        std::string(length, 'f') + R"("}})");
  };
  EXPECT_TRUE(std::holds_alternative<Request>(request(kMaxPlanFileNameBytes)));
  auto refused = request(8 * 1024 * 1024);
  ASSERT_TRUE(std::holds_alternative<Response>(refused));
  EXPECT_EQ(std::get<Response>(refused).result, ResultCode::kBadRequest);
  EXPECT_EQ(std::get<Response>(refused).text,
            "arguments.file: a name of 8388608 bytes; the limit is 4096");
}

}  // namespace
}  // namespace smsupd::control
