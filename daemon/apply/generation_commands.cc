// The generation commands of the control socket: plan, history and
// rollback. Reload is in config_applier.cc; reload and rollback end in StartApply.
#include <spdlog/spdlog.h>

#include "common/control_arguments.h"
#include "common/control_wire.h"
#include "config/key_file.h"
#include "config/validator.h"
#include "daemon/apply/apply_run.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

nlohmann::json Diagnostics(const config::ValidationOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : outcome.diagnostics) list.push_back(d.Format());
  return list;
}

// Default rollback target: the newest generation before the current one
// that holds another config and did not fail verification (so a rollback
// after an automatic one does not bring back the change that failed).
std::optional<std::uint64_t> PreviousGeneration(const std::vector<GenerationMeta>& list,
                                                std::uint64_t current, const std::string& hash) {
  for (auto it = list.rbegin(); it != list.rend(); ++it)
    if (it->generation < current && it->hash != hash && it->VerificationState() != "failed")
      return it->generation;
  return std::nullopt;
}

// The plan of `text` (nullopt: the file at `path`, the daemon's own config)
// against the running config. Runs on a RequestJobs thread: everything
// it reads is a copy.
control::Response PlanAgainst(const config::Config& running, Guid port, std::uint64_t generation,
                              const std::vector<config::FabricPort>& ports,
                              const std::optional<std::string>& text, const std::string& path,
                              const Deadline& deadline) {
  config::ValidationOutcome outcome =
      text ? config::ValidateText(*text, path, config::KeyFile::kNameOnly, deadline)
           : config::LoadAndValidate(path, deadline);
  if (!outcome.ok()) {
    std::string message = path + ": " + std::to_string(outcome.ErrorCount()) +
                          " error(s); nothing would be applied";
    for (const auto& d : outcome.diagnostics) message += "\n" + d.Format();
    return MakeResponse(ResultCode::kError, message,
                        {{"valid", false}, {"unreadable", outcome.unreadable},
                         {"diagnostics", Diagnostics(outcome)}, {"changed", false}});
  }
  config::Config next = std::move(*outcome.config);
  // The key files a caller's text names are not read: each is taken to
  // hold the running key; another one shows as a changed file name.
  if (text) config::AssumeRunningKeys(running, next);
  ApplyPlan plan = PlanApply(running, next, ports, port, deadline);
  nlohmann::json arguments = plan.json;
  arguments["valid"] = true;
  arguments["diagnostics"] = Diagnostics(outcome);
  arguments["generation"] = generation;
  return MakeResponse(ResultCode::kSuccess, plan.text, arguments);
}

}  // namespace

// Validation and planning of a large config take CPU seconds: off the loop.
// No file a caller names is opened (ParsePlanArguments refuses a bare
// "file"); without a text the daemon plans its own config file.
void ConfigApplier::HandlePlan(const control::Request& request, const control::Caller& caller,
                               Reply reply) {
  auto args = control::ParsePlanArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  std::string path = args->file.empty() ? (args->yaml ? "<plan>" : config_path_) : args->file;
  auto job = [running = running_.config, port = running_.port_guid,
              generation = running_.generation.number, ports = known_ports_,
              text = std::move(args->yaml), path, reply](const Deadline& deadline) {
    reply(PlanAgainst(running, port, generation, ports, text, path, deadline));
  };
  SubmitJob(caller, "plan", std::move(job), std::move(reply));
}

void ConfigApplier::HandleHistory(Reply reply) {
  SaveCurrentGenerationIfMissing();
  std::vector<std::string> skipped;
  nlohmann::json generations = nlohmann::json::array();
  for (const auto& meta : generations_.List(&skipped)) {
    generations.push_back({{"generation", meta.generation}, {"applied_at", meta.applied_at},
                           {"applied_by", meta.applied_by}, {"reason", meta.reason},
                           {"hash", meta.hash}, {"summary", meta.plan_summary},
                           {"verification", meta.VerificationState()},
                           {"verification_text", meta.verification.value("text", std::string())},
                           {"current", meta.generation == running_.generation.number}});
  }
  for (const auto& problem : skipped) spdlog::warn("GENERATION_UNREADABLE {}", problem);
  std::string text = std::to_string(generations.size()) + " generation(s); current " +
                     std::to_string(running_.generation.number);
  reply(MakeResponse(ResultCode::kSuccess, text,
                     {{"current", running_.generation.number}, {"generations", generations},
                      {"unreadable", skipped}}));
}

void ConfigApplier::HandleRollback(const control::Request& request, const control::Caller& caller,
                            Reply reply) {
  auto args = control::ParseRollbackArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  SaveCurrentGenerationIfMissing();
  std::optional<std::uint64_t> target = args->generation;
  if (!target) target = PreviousGeneration(generations_.List(), running_.generation.number, running_.generation.hash);
  std::string refusal;
  if (!target) refusal = "no earlier generation to roll back to (smctl history lists them)";
  else if (*target == running_.generation.number) refusal = "generation " + std::to_string(*target) + " is the current one";
  else if (!generations_.Exists(*target))
    refusal = "generation " + std::to_string(*target) + " is not stored (smctl history lists them)";
  if (!refusal.empty()) {
    spdlog::error("CONFIG_REJECTED rollback by uid {}: {}", caller.uid, refusal);
    reporter_.AddEvent(control::kEventConfigRejected,
             {{"by", "uid " + std::to_string(caller.uid)}, {"reason", "rollback"}, {"text", refusal}});
    return reply(MakeResponse(ResultCode::kError, refusal));
  }
  spdlog::info("ROLLBACK_REQUESTED by uid {} (pid {}) to generation {}", caller.uid, caller.pid, *target);
  ApplyRequest apply =
      MakeApplyRequest("rollback", "rollback by uid " + std::to_string(caller.uid), caller.uid);
  apply.wait = args->wait;
  if (args->timeout_ms) apply.timeout = std::chrono::milliseconds(*args->timeout_ms);
  apply.from_generation = *target;
  StartApply(std::move(apply), [this, target = *target, reply = std::move(reply)](control::Response response) {
    if (response.arguments.is_object()) response.arguments["rolled_back_to"] = target;
    if (response.result != ResultCode::kApplyInProgress)
      response.text = "rollback to generation " + std::to_string(target) + ": " + response.text;
    if (response.result != ResultCode::kApplyInProgress)
      reporter_.AddEvent(control::kEventConfigRolledBack,
               {{"to", target}, {"generation", response.arguments.value("generation", nlohmann::json(nullptr))},
                {"text", response.text}});
    reply(std::move(response));
  });
}

}  // namespace smsupd
