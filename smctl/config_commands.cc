// smctl plan / history / rollback (docs/smctl.md): the generation commands.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <variant>

#include "smctl/commands.h"
#include "smctl/control_client.h"
#include "smctl/json_envelope.h"
#include "smctl/text_output.h"
#include "common/control_arguments.h"

namespace smsupd::smctl {

using control::Request;
using control::Response;
using control::ResultCode;

namespace {

constexpr std::chrono::milliseconds kTwinPlanWait{250000};

std::string GenerationRow(const std::string& a, const std::string& b, const std::string& c,
                          const std::string& d, const std::string& e, const std::string& f) {
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-24s %-22s %-9s %-14s %s\n", a.c_str(), b.c_str(),
                c.c_str(), d.c_str(), e.c_str(), f.c_str());
  return line;
}

// The request for `smctl plan FILE`, or why FILE cannot be sent (6
// unreadable, 4 too large). The text is sent, never the path: the daemon
// runs as root and opens no file a caller names.
std::variant<nlohmann::json, CommandOutcome> PlanRequestFor(const std::string& file) {
  if (file.empty()) return nlohmann::json::object();  // the daemon's own config file
  std::ifstream in(file);
  if (!in) return Failed(kExitUnreadable, "unreadable", "cannot read " + file);
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > control::kMaxUploadBytes - 4096)  // room for the request around it
      return Failed(kExitInvalid, "too-large",
                    file + " is larger than the " + std::to_string(control::kMaxUploadBytes) +
                        " bytes a plan request carries");
  }
  if (in.bad()) return Failed(kExitUnreadable, "unreadable", "cannot read " + file);
  return control::ToJson(control::PlanArguments{text, file});
}

}  // namespace

int RunPlan(const GlobalOptions& options, const std::string& file, bool exit_code_mode, bool twin,
            std::ostream& out, std::ostream& err) {
  const char* command = twin ? "twin-plan" : "plan";
  auto arguments = PlanRequestFor(file);
  if (auto* failed = std::get_if<CommandOutcome>(&arguments))
    return Finish(options.json, command, *failed, out, err);
  // The daemon answers a twin plan when its OpenSM has swept the copy (its
  // own deadline is 240 s).
  ControlClient client(options.socket, twin ? std::max(options.timeout, kTwinPlanWait) : options.timeout);
  auto response = client.Call(
      Request{control::kProtocolVersion, command, std::get<nlohmann::json>(std::move(arguments))});
  if (!response) return Finish(options.json, command, FromClientError(client.error()), out, err);
  if (!response->ok()) {
    CommandOutcome refused = RefusedConfig(*response);
    if (exit_code_mode && refused.exit_code == kExitFailed) refused.exit_code = kExitPlanRefused;
    return Finish(options.json, command, refused, out, err);
  }
  if (!options.json) out << response->text;
  CommandOutcome outcome = Succeeded(*response);
  if (exit_code_mode && response->arguments.value("changed", false)) outcome.exit_code = kExitPlanChanges;
  return Finish(options.json, command, outcome, out, err);
}

int RunHistory(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  CommandOutcome outcome;
  auto response = Ask(client, "history", nlohmann::json::object(), &outcome);
  if (!response) return Finish(options.json, "history", outcome, out, err);
  if (!options.json) {
    out << GenerationRow("GEN", "APPLIED AT", "BY", "VERIFIED", "HASH", "SUMMARY");
    for (const auto& generation : response->arguments.value("generations", nlohmann::json::array())) {
      std::string number = FieldText(generation, "generation") + (generation.value("current", false) ? "*" : "");
      out << GenerationRow(
          number, FieldText(generation, "applied_at"), FieldText(generation, "applied_by"),
          FieldText(generation, "verification"), FieldText(generation, "hash").substr(0, 12),
          FieldText(generation, "summary"));
    }
  }
  return Finish(options.json, "history", Succeeded(*response), out, err);
}

int RunRollback(const GlobalOptions& options, const control::RollbackArguments& args,
                std::ostream& out, std::ostream& err) {
  std::chrono::milliseconds timeout = options.timeout;
  if (args.wait)  // the verification, and perhaps its own rollback's
    timeout = std::chrono::milliseconds(args.timeout_ms ? 2 * *args.timeout_ms + 5000 : kLongestApplyWaitMs);
  ControlClient client(options.socket, timeout);
  auto response = client.Call(Request{control::kProtocolVersion, "rollback", control::ToJson(args)});
  if (!response) return Finish(options.json, "rollback", FromClientError(client.error()), out, err);
  if (!response->ok()) return Finish(options.json, "rollback", RefusedConfig(*response), out, err);
  if (!options.json) out << response->text << "\n";
  return Finish(options.json, "rollback", Succeeded(*response), out, err);
}

}  // namespace smsupd::smctl
