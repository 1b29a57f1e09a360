// smctl why A B [--json]: can two end ports talk over RDMA, and in which
// partitions (docs/smctl.md "why", docs/answers.md).
#include <cstdio>

#include "smctl/commands.h"
#include "smctl/text_output.h"

namespace smsupd::smctl {

namespace {

std::string EndLine(const char* label, const nlohmann::json& end) {
  std::string line = std::string(label) + ": " + FieldText(end, "name");
  if (!FieldText(end, "guid").empty()) line += "  " + FieldText(end, "guid");
  if (end.is_object() && end.value("in_fabric", true)) line += "  lid " + FieldText(end, "lid");
  else line += "  (not in the fabric)";
  if (!FieldText(end, "node_description").empty()) line += "  \"" + FieldText(end, "node_description") + "\"";
  if (!FieldText(end, "read_error").empty()) line += "  P_Key table not read: " + FieldText(end, "read_error");
  return line + "\n";
}

std::string PartitionsTable(const nlohmann::json& partitions) {
  char line[256];
  std::snprintf(line, sizeof line, "%-7s %-20s %-9s %-9s %-9s %-9s %-9s %s\n", "PKEY", "NAME", "A-CONFIG",
                "A-FABRIC", "B-CONFIG", "B-FABRIC", "USABLE", "GEN");
  std::string text = line;
  for (const auto& p : partitions) {
    if (!p.is_object()) continue;
    const nlohmann::json a = p.value("a", nlohmann::json::object()), b = p.value("b", nlohmann::json::object());
    std::string usable = p.value("usable", false) ? "yes" : (p.value("limited_with_limited", false) ? "no (l/l)" : "no");
    std::snprintf(line, sizeof line, "%-7s %-20s %-9s %-9s %-9s %-9s %-9s %s\n", FieldText(p, "pkey").c_str(),
                  FieldText(p, "name").substr(0, 20).c_str(), FieldText(a, "intent").c_str(), FieldText(a, "fact").c_str(),
                  FieldText(b, "intent").c_str(), FieldText(b, "fact").c_str(), usable.c_str(),
                  FieldText(p, "generation").empty() ? "-" : FieldText(p, "generation").c_str());
    text += line;
  }
  return text;
}

}  // namespace

int RunWhy(const GlobalOptions& options, const control::WhyArguments& args, std::ostream& out,
           std::ostream& err) {
  // The daemon may walk the subnet and reads two ports' tables: more than a status.
  ControlClient client(options.socket, std::max(options.timeout, std::chrono::milliseconds(40000)));
  auto response = client.Call(control::Request{control::kProtocolVersion, "why", control::ToJson(args)});
  if (!response) return Finish(options.json, "why", FromClientError(client.error()), out, err);
  if (!response->ok()) {
    CommandOutcome outcome = Refused(*response);
    if (FieldText(response->arguments, "error_code") == "unknown-name") {
      outcome.exit_code = kExitUnknownName;
      outcome.error_code = "unknown-name";
    }
    return Finish(options.json, "why", outcome, out, err);
  }
  const nlohmann::json& reply = response->arguments;
  CommandOutcome outcome = Succeeded(*response);
  const bool yes = FieldText(reply, "answer") == "yes";
  outcome.exit_code = yes ? kExitOk : kExitFailed;
  if (!options.json) {
    out << response->text << "\n";
    out << EndLine("a", reply.value("a", nlohmann::json::object()));
    out << EndLine("b", reply.value("b", nlohmann::json::object()));
    out << PartitionsTable(reply.value("partitions", nlohmann::json::array()));
    for (const auto& note : reply.value("notes", nlohmann::json::array()))
      if (note.is_string()) out << "note: " << note.get<std::string>() << "\n";
    for (const auto& pair : reply.value("pairs", nlohmann::json::array()))
      out << "port " << FieldText(pair, "a") << " - " << FieldText(pair, "b") << ": " << FieldText(pair, "answer") << ": "
          << FieldText(pair, "reason") << "\n";
  }
  return Finish(options.json, "why", outcome, out, err);
}

}  // namespace smsupd::smctl
