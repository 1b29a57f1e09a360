#include "daemon/twin/twin_plan_command.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "common/atomic_file.h"
#include "common/control_arguments.h"
#include "config/key_file.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "daemon/opensm/opensm_launch.h"
#include "daemon/twin/twin_runner.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxResultBytes = 128u << 20;
constexpr const char* kTwinDirPrefix = "twin-";

// Options the twin's copy of opensm.conf overrides (last one wins in
// OpenSM): its own log and dumps in the twin's directory, the log flushed
// line by line (the runner waits for "SUBNET UP"), the SA dump that lists
// the multicast groups, no console (the live OpenSM may hold its port), no
// event plugin (it could act on the outside world), and the only SM of the
// twin at the top priority.
std::string TwinOverrides(const std::string& dir) {
  return "\n# twin plan: overrides for the simulated copy (docs/twin.md)\n"
         "log_file " + dir + "/opensm.log\n"
         "force_log_flush TRUE\n"
         "log_max_size 64\n"
         "sa_db_dump TRUE\n"
         "dump_files_dir " + dir + "\n"
         "console off\n"
         "event_plugin_name (null)\n"
         "sm_priority 15\n";
}

nlohmann::json DiagnosticList(const config::ValidationOutcome& outcome) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : outcome.diagnostics) list.push_back(d.Format());
  return list;
}

// Replies once: later calls (Finish) find no reply left.
void Answer(std::function<void(control::Response)>& reply, control::Response response) {
  auto once = std::move(reply);
  reply = nullptr;
  if (once) once(std::move(response));
}

std::vector<std::string> RunnerEnvironment() {
  std::vector<std::string> env;
  for (const std::string& entry : CurrentEnvironment())
    if (entry.rfind("NOTIFY_SOCKET=", 0) != 0 && entry.rfind("WATCHDOG_", 0) != 0) env.push_back(entry);
  return env;
}

// $SMSUPD_TWIN_IBSIM / $SMSUPD_TWIN_UMAD2SIM name another place (an
// installation outside the distribution's paths; tests name a missing one).
std::optional<Result<std::string>> Overridden(const char* variable, const std::string& missing) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  if (::access(value, R_OK) != 0) return Result<std::string>(Error{missing + " (" + variable + "=" + value + ")"});
  return Result<std::string>(std::string(value));
}

constexpr const char* kNoIbsim =
    "the twin needs the simulator ibsim, which is not installed (Debian: apt install ibsim-utils)";
constexpr const char* kNoUmad2Sim =
    "the twin needs the umad2sim preload (libumad2sim.so), which is not installed (Debian: apt install libumad2sim0)";

}  // namespace

Result<std::string> FindIbsim() {
  if (auto overridden = Overridden("SMSUPD_TWIN_IBSIM", kNoIbsim)) return *overridden;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (std::size_t start = 0; start <= dirs.size();) {
      std::size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      std::string candidate = dirs.substr(start, end - start) + "/ibsim";
      if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
      start = end + 1;
    }
  }
  for (const char* candidate : {"/usr/bin/ibsim", "/usr/sbin/ibsim", "/usr/local/bin/ibsim"})
    if (::access(candidate, X_OK) == 0) return std::string(candidate);
  return Error{kNoIbsim};
}

Result<std::string> FindUmad2Sim() {
  if (auto overridden = Overridden("SMSUPD_TWIN_UMAD2SIM", kNoUmad2Sim)) return *overridden;
  std::error_code error;
  for (const char* lib : {"/usr/lib", "/usr/lib64", "/usr/local/lib"}) {
    fs::path direct = fs::path(lib) / "umad2sim" / "libumad2sim.so";
    if (fs::exists(direct, error)) return direct.string();
    for (const auto& entry : fs::directory_iterator(lib, error)) {
      fs::path candidate = entry.path() / "umad2sim" / "libumad2sim.so";
      if (fs::exists(candidate, error)) return candidate.string();
    }
  }
  return Error{kNoUmad2Sim};
}

struct TwinPlanCommand::Run {
  std::string dir;
  Reply reply;
  nlohmann::json diagnostics = nlohmann::json::array();
  std::unique_ptr<WatchedProcess> runner;
  std::unique_ptr<boost::asio::steady_timer> timer;
  bool finished = false;
};

TwinPlanCommand::TwinPlanCommand(boost::asio::io_context& io, const RunningConfig& running,
                                 ProcessLauncher& launcher, TwinPlanOptions options)
    : io_(io), running_(running), launcher_(launcher), options_(options) {
  RemoveStaleDirectories();
}

TwinPlanCommand::~TwinPlanCommand() { Stop(); }

void TwinPlanCommand::RegisterCommands(control::CommandRouter& router) {
  router.Register("twin-plan", [this](const control::Request& request, const control::Caller& caller, Reply reply) {
    Handle(request, caller, std::move(reply));
  });
}

std::string TwinPlanCommand::RuntimeDir() const {
  return fs::path(running_.config.control.socket).parent_path().string();
}

// A twin a killed daemon left behind: its processes died with their runner
// (PR_SET_PDEATHSIG); only the directory is left.
void TwinPlanCommand::RemoveStaleDirectories() {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(RuntimeDir(), error)) {
    if (entry.path().filename().string().rfind(kTwinDirPrefix, 0) != 0) continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

void TwinPlanCommand::Handle(const control::Request& request, const control::Caller& caller, Reply reply) {
  (void)caller;
  auto args = control::ParsePlanArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  if (busy_) return reply(MakeResponse(ResultCode::kBusy, "busy: a twin plan is running; one runs at a time"));
  if (options_.executable.empty())
    return reply(MakeResponse(ResultCode::kError, "twin plans need the smsupd executable, which this daemon "
                                                  "does not know", {{"kind", "internal"}}));
  Result<std::string> ibsim = FindIbsim();
  Result<std::string> umad2sim = FindUmad2Sim();
  if (!ibsim || !umad2sim)
    return reply(MakeResponse(ResultCode::kError, !ibsim ? ibsim.error().message : umad2sim.error().message,
                              {{"kind", "missing-simulator"}}));
  std::string pattern = RuntimeDir() + "/" + kTwinDirPrefix + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    return reply(MakeResponse(ResultCode::kError, "cannot create a directory for the twin in " + RuntimeDir() + ": " +
                                                      std::strerror(errno), {{"kind", "no-space"}}));
  busy_ = true;
  auto run = std::make_shared<Run>();
  run->dir = pattern;
  run->reply = std::move(reply);
  run_ = run;
  twin::TwinRequest twin_request;
  twin_request.port_guid = running_.port_guid;
  twin_request.opensm = running_.config.sm.opensm.binary;
  twin_request.ibsim = *ibsim;
  twin_request.umad2sim = *umad2sim;
  twin_request.up_timeout_ms = options_.up_timeout.count();
  twin_request.memory_mb = options_.memory_mb;
  const std::string path = args->file.empty() ? (args->yaml ? "<plan>" : running_.config.source_path) : args->file;
  // Validation and rendering can take CPU seconds for a large config.
  auto job = [this, run, running = running_.config, port = running_.port_guid, text = std::move(args->yaml), path,
              twin_request](const Deadline& deadline) {
    config::ValidationOutcome outcome =
        text ? config::ValidateText(*text, path, config::KeyFile::kNameOnly, deadline)
             : config::LoadAndValidate(path, deadline);
    nlohmann::json diagnostics = DiagnosticList(outcome);
    Status prepared = Status::Ok();
    if (outcome.ok()) {
      config::Config next = std::move(*outcome.config);
      if (text) config::AssumeRunningKeys(running, next);
      config::RenderInputs inputs;
      inputs.port_guid = port;
      inputs.partitions_path = run->dir + "/partitions.conf";
      inputs.opensm_log_file = run->dir + "/opensm.log";
      inputs.sm_priority = 15;
      config::RenderedFiles files = config::Render(next, inputs);
      files.opensm_conf += TwinOverrides(run->dir);
      prepared = config::WriteRenderedFiles(files, inputs.partitions_path, run->dir + "/opensm.conf");
      if (prepared) prepared = WriteFileAtomically(run->dir + "/request.json", ToJson(twin_request).dump(), 0600);
    }
    boost::asio::post(io_, [this, run, outcome_ok = outcome.ok(), unreadable = outcome.unreadable,
                            errors = outcome.ErrorCount(), diagnostics, prepared, path] {
      if (run->finished) return;
      if (!outcome_ok) {
        std::string message = path + ": " + std::to_string(errors) + " error(s); nothing would be applied";
        for (const auto& d : diagnostics) message += "\n" + d.get<std::string>();
        Answer(run->reply, MakeResponse(ResultCode::kError, message,
                                {{"valid", false}, {"unreadable", unreadable}, {"diagnostics", diagnostics},
                                 {"changed", false}}));
        return Finish(run, "");
      }
      if (!prepared) {
        Answer(run->reply, MakeResponse(ResultCode::kError, "cannot write the twin's files: " + prepared.message(),
                                {{"kind", prepared.message().find(std::strerror(ENOSPC)) != std::string::npos
                                              ? "no-space" : "internal"}}));
        return Finish(run, "");
      }
      run->diagnostics = diagnostics;
      Launch(run);
    });
  };
  RequestJobs::Submitted submitted = jobs_.Submit(
      RequestJobs::Lane::kOwner, 0, std::move(job), [this, run](const std::string& why) {
        boost::asio::post(io_, [this, run, why] {
          if (run->finished) return;
          Answer(run->reply, MakeResponse(ResultCode::kError, "twin plan: " + why));
          Finish(run, "");
        });
      });
  if (submitted != RequestJobs::Submitted::kQueued) {
    Answer(run->reply, MakeResponse(ResultCode::kBusy, RefusalText(submitted)));
    Finish(run, "");
  }
}

void TwinPlanCommand::Launch(std::shared_ptr<Run> run) {
  SpawnRequest spawn;
  spawn.binary = options_.executable;
  spawn.args = {"--twin-run", run->dir};
  spawn.env = RunnerEnvironment();
  spawn.cwd = run->dir;
  ProcessCallbacks callbacks;
  // The handle is dropped only here, once the runner was reaped (a killed
  // one too): dropping it earlier would leave a zombie.
  callbacks.on_exit = [this, run](const ExitStatus&) {
    boost::asio::post(io_, [this, run] {
      Finish(run, "");
      run->runner.reset();
    });
  };
  auto runner = launcher_.Spawn(spawn, std::move(callbacks));
  if (!runner) {
    Answer(run->reply, MakeResponse(ResultCode::kError, "cannot start the twin: " + runner.error().message, {{"kind", "internal"}}));
    return Finish(run, "");
  }
  run->runner = std::move(*runner);
  spdlog::info("TWIN_STARTED pid {} in {}", run->runner->pid(), run->dir);
  run->timer = std::make_unique<boost::asio::steady_timer>(io_, options_.deadline);
  run->timer->async_wait([this, run](const boost::system::error_code& error) {
    if (error || run->finished) return;
    Finish(run, "the twin did not finish within " + std::to_string(options_.deadline.count() / 1000) + " s");
  });
}

// A runner cut short (deadline, the daemon stopping) is killed through its
// pidfd (never a recycled pid); its children (the probes, ibsim, OpenSM)
// die with it (PR_SET_PDEATHSIG). Then the result, the directory, the reply.
void TwinPlanCommand::Finish(std::shared_ptr<Run> run, const std::string& why_killed) {
  if (run->finished) return;
  run->finished = true;
  if (run->timer) run->timer->cancel();
  if (run->runner && !why_killed.empty()) (void)run->runner->Signal(SIGKILL);
  if (run->reply) {
    nlohmann::json result;
    if (why_killed.empty()) {
      Result<std::string> text = ReadWholeFile(run->dir + "/result.json", kMaxResultBytes);
      if (text) result = nlohmann::json::parse(*text, nullptr, false);
    }
    if (!why_killed.empty()) {
      Answer(run->reply, MakeResponse(ResultCode::kError, "twin plan: " + why_killed, {{"kind", "not-up"}}));
    } else if (!result.is_object()) {
      Answer(run->reply, MakeResponse(ResultCode::kError, "twin plan: the twin ended without a result", {{"kind", "internal"}}));
    } else if (!result.value("ok", false)) {
      nlohmann::json arguments = {{"kind", result.value("kind", "internal")}};
      if (result.contains("opensm")) arguments["opensm"] = result["opensm"];
      Answer(run->reply, MakeResponse(ResultCode::kError, "twin plan: " + result.value("error", std::string("failed")), arguments));
    } else {
      nlohmann::json arguments = result.value("report", nlohmann::json::object());
      arguments["valid"] = true;
      arguments["diagnostics"] = run->diagnostics;
      Answer(run->reply, MakeResponse(ResultCode::kSuccess, result.value("text", std::string()), arguments));
    }
  }
  std::error_code ignored;
  fs::remove_all(run->dir, ignored);
  spdlog::info("TWIN_FINISHED {}", why_killed.empty() ? "done" : why_killed);
  if (run_ == run) {
    run_.reset();
    busy_ = false;
  }
}

void TwinPlanCommand::Stop() {
  if (run_) Finish(run_, "the daemon is stopping");
}

}  // namespace smsupd
