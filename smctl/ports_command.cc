// smctl ports [--problems] [--json] [NAME...]: every end port and switch
// port, named, with state, rate and error counters; or only what needs a
// person, worst first (docs/smctl.md "ports", docs/answers.md "Ports").
#include <cstdio>

#include "smctl/commands.h"
#include "smctl/text_output.h"

namespace smsupd::smctl {

namespace {

// "12 (+3)": the port's error counters summed, and how much they rose since
// the last read; "-" when not read.
std::string Errors(const nlohmann::json& row) {
  const nlohmann::json counters = row.value("counters", nlohmann::json());
  if (!counters.is_object()) return row.contains("counters_error") ? "not read" : "-";
  std::uint64_t total = 0;
  for (const auto& [name, value] : counters.items())
    if (value.is_number_unsigned()) total += value.get<std::uint64_t>();
  std::string text = std::to_string(total);
  const nlohmann::json rates = row.value("rates_per_minute", nlohmann::json());
  double rising = 0;
  if (rates.is_object())
    for (const auto& [name, value] : rates.items())
      if (value.is_number()) rising += value.get<double>();
  if (rising > 0) {
    char rate[32];
    std::snprintf(rate, sizeof rate, " (+%.1f/min)", rising);
    text += rate;
  }
  return text;
}

// A switch port that is Down, was never seen linked and has no problem:
// an unused port. The table counts them instead of listing them.
bool Unused(const nlohmann::json& row) {
  const nlohmann::json problems = row.value("problems", nlohmann::json::array());
  return FieldText(row, "type") == "switch" && FieldText(row, "state") == "Down" &&
         !row.value("peer", nlohmann::json()).is_object() && problems.is_array() && problems.empty();
}

std::string PortsTable(const nlohmann::json& ports) {
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-6s %-8s %-8s %-8s %-8s %-5s %-20s %s\n", "PORT", "LID", "STATE", "PHYS",
                "RATE", "EXPECTED", "SMLID", "ERRORS", "PEER");
  std::string text = line;
  int unused = 0;
  for (const auto& row : ports) {
    if (!row.is_object()) continue;
    if (Unused(row)) {
      ++unused;
      continue;
    }
    const nlohmann::json peer = row.value("peer", nlohmann::json());
    // Only end ports (a CA port, a switch's port 0) hold an SM LID.
    const bool end_port = FieldText(row, "type") != "switch" || FieldText(row, "port") == "0";
    std::snprintf(line, sizeof line, "%-28s %-6s %-8s %-8s %-8s %-8s %-5s %-20s %s\n",
                  FieldText(row, "name").substr(0, 28).c_str(), FieldText(row, "lid").c_str(),
                  FieldText(row, "state").c_str(), FieldText(row, "phys_state").substr(0, 8).c_str(),
                  FieldText(row, "rate").empty() ? "-" : FieldText(row, "rate").c_str(),
                  FieldText(row, "expected_rate").empty() ? "-" : FieldText(row, "expected_rate").c_str(),
                  end_port ? FieldText(row, "sm_lid").c_str() : "-", Errors(row).substr(0, 20).c_str(),
                  peer.is_object() ? FieldText(peer, "name").c_str() : "-");
    text += line;
  }
  if (unused > 0) text += std::to_string(unused) + " unused switch ports (Down, never linked) not shown; --json lists them\n";
  return text;
}

std::string Problems(const nlohmann::json& problems) {
  std::string text;
  for (const auto& problem : problems) {
    if (!problem.is_object()) continue;
    text += FieldText(problem, "kind") + ": " + FieldText(problem, "text") + "\n";
    text += "    what to do: " + FieldText(problem, "advice") + "\n";
  }
  return text;
}

}  // namespace

int RunPorts(const GlobalOptions& options, const PortsOptions& ports, std::ostream& out, std::ostream& err) {
  // A read-out walks the fabric and reads every port's counters, paced.
  ControlClient client(options.socket, std::max(options.timeout, std::chrono::milliseconds(120000)));
  nlohmann::json arguments = {{"problems", ports.problems_only}};
  if (!ports.names.empty()) arguments["names"] = ports.names;
  auto response = client.Call(control::Request{control::kProtocolVersion, "ports", arguments});
  if (!response) return Finish(options.json, "ports", FromClientError(client.error()), out, err);
  if (!response->ok()) {
    CommandOutcome outcome = Refused(*response);
    if (FieldText(response->arguments, "error_code") == "unknown-name") {
      outcome.exit_code = kExitUnknownName;
      outcome.error_code = "unknown-name";
    }
    return Finish(options.json, "ports", outcome, out, err);
  }
  const nlohmann::json& reply = response->arguments;
  CommandOutcome outcome = Succeeded(*response);
  const nlohmann::json problems = reply.value("problems", nlohmann::json::array());
  if (ports.problems_only && problems.is_array() && !problems.empty()) outcome.exit_code = kExitFailed;
  if (!options.json) {
    if (!ports.problems_only) out << PortsTable(reply.value("ports", nlohmann::json::array()));
    out << Problems(problems);
    for (const auto& unread : reply.value("unread", nlohmann::json::array()))
      if (unread.is_string()) out << "not read: " << unread.get<std::string>() << "\n";
    out << response->text << "\n";
  }
  return Finish(options.json, "ports", outcome, out, err);
}

}  // namespace smsupd::smctl
