// Fuzz target: one line as smctl reads it from the daemon (ParseResponse)
// and, when it is JSON, the status and event wire parsers
// (ParseStatusWire, ParseEventWire) that read a response's arguments and a
// follow stream's lines.
//
// Properties, for any bytes:
// - no parser crashes or throws;
// - what a parser accepts, written again (SerializeResponse, ToJson), is
//   accepted again and reads the same.
#include <cstdint>
#include <string>

#include "common/control_protocol.h"
#include "common/control_wire.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::control {
namespace {

void CheckResponse(std::string_view line) {
  Result<Response> read = ParseResponse(line);
  if (!read.ok()) return;
  std::string again = SerializeResponse(*read);
  Result<Response> reread = ParseResponse(again);
  FUZZ_CHECK(reread.ok(), again);
  FUZZ_CHECK(reread->result == read->result && reread->text == read->text &&
                 reread->arguments == read->arguments,
             std::string(line) + " -> " + again);
}

void CheckStatus(const nlohmann::json& json) {
  Result<StatusWire> status = ParseStatusWire(json);
  if (!status.ok()) return;
  nlohmann::json written = ToJson(*status);
  Result<StatusWire> again = ParseStatusWire(written);
  FUZZ_CHECK(again.ok(), written.dump() + ": " + again.error().message);
  FUZZ_CHECK(ToJson(*again) == written, written.dump());
}

void CheckEvent(const nlohmann::json& json) {
  Result<EventWire> event = ParseEventWire(json);
  if (!event.ok()) return;
  nlohmann::json written = ToJson(*event);
  Result<EventWire> again = ParseEventWire(written);
  FUZZ_CHECK(again.ok(), written.dump() + ": " + again.error().message);
  FUZZ_CHECK(again->seq == event->seq && again->time == event->time &&
                 again->kind == event->kind && again->details == event->details,
             written.dump());
}

}  // namespace
}  // namespace smsupd::control

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::control;
  std::string_view line = smsupd::fuzz::AsText(data, size);
  CheckResponse(line);
  nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  CheckStatus(json);
  // smctl reads the status from a response's arguments.
  if (json.is_object() && json.contains("arguments")) CheckStatus(json["arguments"]);
  CheckEvent(json);
  return 0;
}
