// smctl plan / history / rollback (docs/smctl.md): the generation commands.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "smctl/commands.h"
#include "smctl/control_client.h"
#include "common/control_arguments.h"

namespace smsupd::smctl {

using control::Request;
using control::Response;
using control::ResultCode;

namespace {

std::string Row(const std::string& a, const std::string& b, const std::string& c,
                const std::string& d, const std::string& e, const std::string& f) {
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-24s %-22s %-9s %-14s %s\n", a.c_str(), b.c_str(),
                c.c_str(), d.c_str(), e.c_str(), f.c_str());
  return line;
}

std::string Text(const nlohmann::json& json, const char* key) {
  auto it = json.find(key);
  if (it == json.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

// Reads FILE for `smctl plan FILE`; nullopt (and a message) if unreadable.
// The text is sent, never the path: the daemon runs as root and opens no
// file a caller names.
std::optional<nlohmann::json> PlanRequestFor(const std::string& file, std::ostream& err) {
  if (file.empty()) return nlohmann::json::object();  // the daemon's own config file
  std::ifstream in(file);
  if (!in) {
    err << "smctl: plan: cannot read " << file << "\n";
    return std::nullopt;
  }
  std::string text;
  char chunk[65536];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > control::kMaxUploadBytes - 4096) {  // room for the request around it
      err << "smctl: plan: " << file << " is larger than the " << control::kMaxUploadBytes
          << " bytes a plan request carries\n";
      return std::nullopt;
    }
  }
  return control::ToJson(control::PlanArguments{text, file});
}

}  // namespace

int RunPlan(const GlobalOptions& options, const std::string& file, bool exit_code_mode,
            std::ostream& out, std::ostream& err) {
  auto arguments = PlanRequestFor(file, err);
  if (!arguments) return kExitPlanInvalid;
  ControlClient client(options.socket, options.timeout);
  auto response = client.Call(Request{control::kProtocolVersion, "plan", *arguments});
  if (!response) {
    err << "smctl: " << client.error().message << "\n";
    return client.error().exit_code;
  }
  if (options.json) out << response->arguments.dump(2) << "\n";
  if (!response->ok()) {
    if (!options.json || response->arguments.empty()) err << "smctl: plan: " << response->text << "\n";
    if (response->arguments.value("valid", true) == false) return kExitPlanInvalid;
    return exit_code_mode ? kExitPlanRefused : kExitFailed;
  }
  if (!options.json) out << response->text;
  bool changed = response->arguments.value("changed", false);
  return exit_code_mode && changed ? kExitFailed : kExitOk;
}

int RunHistory(const GlobalOptions& options, std::ostream& out, std::ostream& err) {
  ControlClient client(options.socket, options.timeout);
  auto response = client.Call(Request{control::kProtocolVersion, "history", nlohmann::json::object()});
  if (!response) {
    err << "smctl: " << client.error().message << "\n";
    return client.error().exit_code;
  }
  if (!response->ok()) {
    if (options.json) out << control::SerializeResponse(*response) << "\n";
    err << "smctl: history: " << response->text << "\n";
    return kExitFailed;
  }
  if (options.json) {
    out << response->arguments.dump(2) << "\n";
    return kExitOk;
  }
  out << Row("GEN", "APPLIED AT", "BY", "VERIFIED", "HASH", "SUMMARY");
  for (const auto& generation : response->arguments.value("generations", nlohmann::json::array())) {
    std::string number = Text(generation, "generation") + (generation.value("current", false) ? "*" : "");
    out << Row(number, Text(generation, "applied_at"), Text(generation, "applied_by"),
               Text(generation, "verification"), Text(generation, "hash").substr(0, 12),
               Text(generation, "summary"));
  }
  return kExitOk;
}

int RunRollback(const GlobalOptions& options, const control::RollbackArguments& args,
                std::ostream& out, std::ostream& err) {
  GlobalOptions patient = options;
  if (args.wait)  // the verification, and perhaps its own rollback's
    patient.timeout = std::chrono::milliseconds(args.timeout_ms ? 2 * *args.timeout_ms + 5000
                                                                : kLongestApplyWaitMs);
  ControlClient client(patient.socket, patient.timeout);
  auto response = client.Call(Request{control::kProtocolVersion, "rollback", control::ToJson(args)});
  if (!response) {
    err << "smctl: " << client.error().message << "\n";
    return client.error().exit_code;
  }
  if (options.json) out << control::SerializeResponse(*response) << "\n";
  if (!response->ok()) {
    err << "smctl: rollback: " << response->text << "\n";
    return kExitFailed;
  }
  if (!options.json) out << response->text << "\n";
  return kExitOk;
}

}  // namespace smsupd::smctl
