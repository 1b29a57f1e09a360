// smctl cabling [--json] [--export [--output FILE]]: the discovered links
// against the declared cabling, or today's links as the cabling CSV
// (docs/smctl.md "cabling", docs/cabling.md).
#include "common/atomic_file.h"
#include "smctl/commands.h"

namespace smsupd::smctl {

namespace {

// The export: the CSV on stdout, or in FILE written by smctl (the caller's
// own rights), never by the daemon.
int FinishExport(const GlobalOptions& options, const control::Response& response, const std::string& output,
                 std::ostream& out, std::ostream& err) {
  CommandOutcome outcome = Succeeded(response);
  const nlohmann::json* field = response.arguments.contains("csv") ? &response.arguments["csv"] : nullptr;
  if (!field || !field->is_string())
    return Finish(options.json, "cabling", Failed(kExitFailed, "bad-reply", "the daemon's reply has no CSV"), out,
                  err);
  const std::string& csv = field->get_ref<const std::string&>();
  if (!output.empty()) {
    if (Status written = WriteFileAtomically(output, csv, 0644); !written)
      return Finish(options.json, "cabling", Failed(kExitFailed, "write-failed", written.message()), out, err);
    outcome.text = response.text + "; written to " + output;
    outcome.data.erase("csv");  // it is in the file
    outcome.data["output"] = output;
    if (!options.json) out << outcome.text << "\n";
  } else if (!options.json) {
    out << csv;
    err << "smctl: cabling: " << response.text << "\n";
  }
  return Finish(options.json, "cabling", outcome, out, err);
}

}  // namespace

int RunCabling(const GlobalOptions& options, const control::CablingArguments& args, const std::string& output,
               std::ostream& out, std::ostream& err) {
  // The daemon walks the subnet (up to 30 s on a large fabric): more than a status.
  ControlClient client(options.socket, std::max(options.timeout, std::chrono::milliseconds(40000)));
  auto response = client.Call(control::Request{control::kProtocolVersion, "cabling", control::ToJson(args)});
  if (!response) return Finish(options.json, "cabling", FromClientError(client.error()), out, err);
  if (!response->ok()) return Finish(options.json, "cabling", Refused(*response), out, err);
  if (args.export_csv) return FinishExport(options, *response, output, out, err);
  CommandOutcome outcome = Succeeded(*response);
  const nlohmann::json differences = response->arguments.value("differences", nlohmann::json::array());
  outcome.exit_code = differences.is_array() && !differences.empty() ? kExitDifferences : kExitOk;
  if (!options.json) out << response->text << "\n";
  return Finish(options.json, "cabling", outcome, out, err);
}

}  // namespace smsupd::smctl
