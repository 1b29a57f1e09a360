// smctl validate / render (docs/smctl.md): offline, on a file, no daemon.
// The one validator and renderer of config/ do the work; this file maps
// their outcome onto smctl's exit codes and envelope.
#include <sys/stat.h>

#include <cstdio>

#include "config/commands.h"
#include "config/sha256.h"
#include "smctl/commands.h"

namespace smsupd::smctl {
namespace {

// Why a file that was not read or is invalid fails: 6 unreadable, 4 invalid.
CommandOutcome NotValid(const std::string& file, const config::ValidationOutcome& validation) {
  if (validation.unreadable) {
    std::string why = validation.diagnostics.empty() ? "cannot read " + file
                                                     : validation.diagnostics.front().Format();
    return Failed(kExitUnreadable, "unreadable", why);
  }
  return Failed(kExitInvalid, "invalid", file + ": " + config::ValidationSummary(validation));
}

// One written file as render --json reports it: path, mode, size, sha256.
nlohmann::json WrittenFile(const std::string& path, const std::string& text) {
  struct stat info {};
  char mode[8] = "?";
  if (stat(path.c_str(), &info) == 0)
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
  return {{"path", path}, {"mode", mode}, {"bytes", text.size()}, {"sha256", config::Sha256Hex(text)}};
}

}  // namespace

int RunValidate(const GlobalOptions& options, const std::string& file, std::ostream& out,
                std::ostream& err) {
  config::ValidationOutcome validation = config::LoadAndValidate(file);
  CommandOutcome outcome = validation.ok() ? CommandOutcome{} : NotValid(file, validation);
  if (!options.json) {  // every diagnostic, then the summary: the message is in them
    config::PrintValidation(file, validation, out, err);
    return outcome.exit_code;
  }
  outcome.text = file + ": " + config::ValidationSummary(validation);
  outcome.data = config::ValidationJson(validation);
  return Finish(true, "validate", outcome, out, err);
}

int RunRender(const GlobalOptions& options, const std::string& file, const std::string& out_dir,
              std::ostream& out, std::ostream& err) {
  config::ValidationOutcome validation = config::LoadAndValidate(file);
  if (!options.json)
    for (const auto& diagnostic : validation.diagnostics) err << diagnostic.Format() << "\n";
  CommandOutcome outcome;
  outcome.data = {{"files", nlohmann::json::array()}, {"config_hash", nullptr}};
  if (!validation.ok()) {
    outcome = NotValid(file, validation);
  } else if (auto files = config::RenderIntoDirectory(*validation.config, out_dir); !files.ok()) {
    outcome = Failed(kExitFailed, "write-failed", files.error().message);
  } else {
    outcome.text = "wrote " + out_dir + "/opensm.conf, " + out_dir + "/partitions.conf and " + out_dir +
                   "/node-name-map (config hash sha256:" + files->config_hash + ")";
    outcome.data["files"] = {WrittenFile(out_dir + "/opensm.conf", files->opensm_conf),
                             WrittenFile(out_dir + "/partitions.conf", files->partitions_conf),
                             WrittenFile(out_dir + "/node-name-map", files->node_name_map)};
    outcome.data["config_hash"] = files->config_hash;
    if (!options.json) out << outcome.text << "\n";
  }
  nlohmann::json validation_json = config::ValidationJson(validation);
  outcome.data.update(validation_json);
  if (!options.json && !validation.ok()) return outcome.exit_code;  // the diagnostics said why
  return Finish(options.json, "render", outcome, out, err);
}

}  // namespace smsupd::smctl
