// Fuzz target: one request line as the daemon reads it (ParseRequest, which
// also runs the command's argument parser).
//
// Properties, for any bytes:
// - ParseRequest never crashes or throws;
// - a refusal serialises to a line smctl reads back with the same result
//   code and text;
// - an accepted request, serialised as smctl sends it, is accepted again
//   as the same request;
// - arguments the daemon accepts, turned into their struct and back into
//   JSON (what smctl sends for them), are accepted again with the same
//   values: a value smctl can be given is never refused on the wire;
// - nothing nested deeper than kMaxJsonDepth is accepted, and a refusal for
//   depth is one (the bound holds at parse time, before any recursive copy).
#include <cmath>
#include <cstdint>
#include <string>
#include <variant>

#include "common/bounded_json.h"
#include "common/control_arguments.h"
#include "common/control_protocol.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::control {
namespace {

template <typename T, typename Parse>
T ParseAccepted(Parse parse, const nlohmann::json& arguments, const char* what) {
  Result<T> parsed = parse(arguments);
  FUZZ_CHECK(parsed.ok(), std::string(what) + " refused after ParseRequest accepted it: " +
                              parsed.error().message + "\n" + arguments.dump());
  return *parsed;
}

// Arguments -> struct -> ToJson -> struct again: the same values.
void CheckArgumentsRoundTrip(const Request& request) {
  const nlohmann::json& in = request.arguments;
  if (request.command == "events") {
    auto a = ParseAccepted<EventsArguments>(ParseEventsArguments, in, "events");
    auto b = ParseAccepted<EventsArguments>(ParseEventsArguments, ToJson(a), "events ToJson");
    FUZZ_CHECK(a.since == b.since && a.follow == b.follow, in.dump());
  } else if (request.command == "reload") {
    auto a = ParseAccepted<ReloadArguments>(ParseReloadArguments, in, "reload");
    auto b = ParseAccepted<ReloadArguments>(ParseReloadArguments, ToJson(a), "reload ToJson");
    FUZZ_CHECK(a.restart == b.restart && a.force == b.force && a.wait == b.wait &&
                   a.timeout_given == b.timeout_given,
               in.dump());
    // The wire carries milliseconds.
    FUZZ_CHECK(std::fabs(a.timeout_s - b.timeout_s) <= 0.001, in.dump() + " -> " + ToJson(a).dump());
  } else if (request.command == "failover") {
    auto a = ParseAccepted<FailoverArguments>(ParseFailoverArguments, in, "failover");
    auto b = ParseAccepted<FailoverArguments>(ParseFailoverArguments, ToJson(a), "failover ToJson");
    FUZZ_CHECK(a.to == b.to && a.wait == b.wait && a.timeout_s == b.timeout_s, in.dump());
  } else if (request.command == "restart-opensm") {
    auto a = ParseAccepted<RestartOpenSmArguments>(ParseRestartOpenSmArguments, in, "restart-opensm");
    auto b = ParseAccepted<RestartOpenSmArguments>(ParseRestartOpenSmArguments, ToJson(a),
                                                   "restart-opensm ToJson");
    FUZZ_CHECK(a.wait == b.wait && a.force == b.force && a.timeout_s == b.timeout_s, in.dump());
  } else if (request.command == "plan") {
    auto a = ParseAccepted<PlanArguments>(ParsePlanArguments, in, "plan");
    auto b = ParseAccepted<PlanArguments>(ParsePlanArguments, ToJson(a), "plan ToJson");
    FUZZ_CHECK(a.yaml == b.yaml && a.file == b.file, in.dump());
  } else if (request.command == "rollback") {
    auto a = ParseAccepted<RollbackArguments>(ParseRollbackArguments, in, "rollback");
    auto b = ParseAccepted<RollbackArguments>(ParseRollbackArguments, ToJson(a), "rollback ToJson");
    FUZZ_CHECK(a.generation == b.generation && a.wait == b.wait && a.timeout_ms == b.timeout_ms,
               in.dump());
  }
}

void CheckRefusal(const Response& refusal) {
  FUZZ_CHECK(!refusal.ok(), "a refusal with a success code: " + refusal.text);
  std::string line = SerializeResponse(refusal);
  FUZZ_CHECK(line.find('\n') == std::string::npos, line);
  Result<Response> read = ParseResponse(line);
  FUZZ_CHECK(read.ok(), line);
  FUZZ_CHECK(read->result == refusal.result && read->text == refusal.text,
             "sent " + line + ", smctl reads '" + read->text + "'");
}

void CheckAccepted(const Request& request) {
  std::string line = SerializeRequest(request);
  FUZZ_CHECK(line.find('\n') == std::string::npos, line);
  auto again = ParseRequest(line);
  const Request* same = std::get_if<Request>(&again);
  FUZZ_CHECK(same != nullptr, "serialised request refused: " + line);
  FUZZ_CHECK(same->version == request.version && same->command == request.command &&
                 same->arguments == request.arguments,
             line);
  CheckArgumentsRoundTrip(request);
}

}  // namespace
}  // namespace smsupd::control

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::control;
  const std::string_view text = smsupd::fuzz::AsText(data, size);
  auto parsed = ParseRequest(text);
  if (const auto* refusal = std::get_if<Response>(&parsed)) {
    CheckRefusal(*refusal);
    // The depth refusal is this one sentence. A refusal may also start with
    // the caller's own words ("<unknown key>: unknown argument"), so a
    // prefix match would take a key spelt like it for the depth refusal.
    static const std::string kTooDeep =
        "request nests deeper than " + std::to_string(smsupd::kMaxJsonDepth) + " levels";
    if (refusal->text == kTooDeep)
      FUZZ_CHECK(smsupd::fuzz::JsonNesting(text) > smsupd::kMaxJsonDepth, refusal->text);
  } else {
    FUZZ_CHECK(smsupd::fuzz::JsonNesting(text) <= smsupd::kMaxJsonDepth, "accepted a request this deep");
    CheckAccepted(std::get<Request>(parsed));
  }
  return 0;
}
