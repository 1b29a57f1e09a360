#include "config/commands.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "config/renderer.h"
#include "config/validator.h"

namespace smsupd::config {
namespace {

nlohmann::json DiagnosticJson(const Diagnostic& diagnostic) {
  return {{"file", diagnostic.file},         {"line", diagnostic.line},
          {"column", diagnostic.column},     {"path", diagnostic.yaml_path},
          {"message", diagnostic.what},      {"hint", diagnostic.valid}};
}

void PrintJson(const ValidationOutcome& outcome, std::ostream& out) {
  nlohmann::json errors = nlohmann::json::array();
  nlohmann::json warnings = nlohmann::json::array();
  for (const Diagnostic& diagnostic : outcome.diagnostics)
    (diagnostic.severity == Severity::kError ? errors : warnings).push_back(DiagnosticJson(diagnostic));
  nlohmann::json document = {{"valid", outcome.ok()}, {"errors", errors}, {"warnings", warnings}};
  out << document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

std::string Plural(int count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

void PrintHuman(const std::string& file, const ValidationOutcome& outcome, std::ostream& out,
                std::ostream& err) {
  for (const Diagnostic& diagnostic : outcome.diagnostics) err << diagnostic.Format() << "\n";
  if (outcome.unreadable) return;
  out << file << ": " << (outcome.ok() ? "valid" : "invalid") << " ("
      << Plural(outcome.ErrorCount(), "error") << ", " << Plural(outcome.WarningCount(), "warning")
      << ")\n";
}

int ExitCode(const ValidationOutcome& outcome) {
  if (outcome.unreadable) return kExitUnreadable;
  return outcome.ok() ? kExitValid : kExitInvalid;
}

}  // namespace

int RunValidateCommand(const std::string& file, bool json, std::ostream& out, std::ostream& err) {
  ValidationOutcome outcome = LoadAndValidate(file);
  if (json)
    PrintJson(outcome, out);
  else
    PrintHuman(file, outcome, out, err);
  return ExitCode(outcome);
}

int RunRenderCommand(const std::string& file, const std::string& out_dir, std::ostream& out,
                     std::ostream& err) {
  ValidationOutcome outcome = LoadAndValidate(file);
  for (const Diagnostic& diagnostic : outcome.diagnostics) err << diagnostic.Format() << "\n";
  if (!outcome.ok()) return ExitCode(outcome);
  RenderInputs inputs;
  inputs.partitions_path = out_dir + "/partitions.conf";
  RenderedFiles files = Render(*outcome.config, inputs);
  struct stat info;
  if (stat(out_dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    err << out_dir << ": not a directory\n";
    return kExitInvalid;
  }
  Status written =
      WriteRenderedFiles(files, out_dir + "/partitions.conf", out_dir + "/opensm.conf");
  if (!written.ok()) {
    err << written.message() << "\n";
    return kExitInvalid;
  }
  out << "wrote " << out_dir << "/opensm.conf and " << out_dir
      << "/partitions.conf (config hash sha256:" << files.config_hash << ")\n";
  return kExitValid;
}

}  // namespace smsupd::config
