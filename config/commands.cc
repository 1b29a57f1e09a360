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

std::string Plural(int count, const char* word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

int ExitCode(const ValidationOutcome& outcome) {
  if (outcome.unreadable) return kExitUnreadable;
  return outcome.ok() ? kExitValid : kExitInvalid;
}

}  // namespace

nlohmann::json ValidationJson(const ValidationOutcome& outcome) {
  nlohmann::json errors = nlohmann::json::array();
  nlohmann::json warnings = nlohmann::json::array();
  for (const Diagnostic& diagnostic : outcome.diagnostics)
    (diagnostic.severity == Severity::kError ? errors : warnings).push_back(DiagnosticJson(diagnostic));
  return {{"valid", outcome.ok()}, {"errors", errors}, {"warnings", warnings}};
}

std::string ValidationSummary(const ValidationOutcome& outcome) {
  return std::string(outcome.ok() ? "valid" : "invalid") + " (" +
         Plural(outcome.ErrorCount(), "error") + ", " + Plural(outcome.WarningCount(), "warning") + ")";
}

void PrintValidation(const std::string& file, const ValidationOutcome& outcome, std::ostream& out,
                     std::ostream& err) {
  for (const Diagnostic& diagnostic : outcome.diagnostics) err << diagnostic.Format() << "\n";
  if (outcome.unreadable) return;
  out << file << ": " << ValidationSummary(outcome) << "\n";
}

int RunValidateCommand(const std::string& file, bool json, std::ostream& out, std::ostream& err) {
  ValidationOutcome outcome = LoadAndValidate(file);
  if (json)
    out << ValidationJson(outcome).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    PrintValidation(file, outcome, out, err);
  return ExitCode(outcome);
}

int RunRenderCommand(const std::string& file, const std::string& out_dir, std::ostream& out,
                     std::ostream& err) {
  ValidationOutcome outcome = LoadAndValidate(file);
  for (const Diagnostic& diagnostic : outcome.diagnostics) err << diagnostic.Format() << "\n";
  if (!outcome.ok()) return ExitCode(outcome);
  auto files = RenderIntoDirectory(*outcome.config, out_dir);
  if (!files.ok()) {
    err << files.error().message << "\n";
    return kExitInvalid;
  }
  out << "wrote " << out_dir << "/opensm.conf, " << out_dir << "/partitions.conf and " << out_dir
      << "/node-name-map (config hash sha256:" << files->config_hash << ")\n";
  return kExitValid;
}

Result<RenderedFiles> RenderIntoDirectory(const Config& config, const std::string& out_dir) {
  struct stat info;
  if (stat(out_dir.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return Error{out_dir + ": not a directory"};
  RenderInputs inputs;
  inputs.partitions_path = out_dir + "/partitions.conf";
  RenderedFiles files = Render(config, inputs);
  Status written =
      WriteRenderedFiles(files, out_dir + "/partitions.conf", out_dir + "/opensm.conf");
  if (!written.ok()) return Error{written.message()};
  return files;
}

}  // namespace smsupd::config
