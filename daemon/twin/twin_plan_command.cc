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
// The twin's tables as its probe wrote them (the runner reads them with the same bound).
constexpr std::size_t kMaxTwinStateBytes = 64u << 20;

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

// The proposal's files in the twin's directory, and the runner's request.
Status WriteTwinFiles(const config::Config& next, const std::string& dir, const twin::TwinRequest& request) {
  config::RenderInputs inputs;
  inputs.port_guid = request.port_guid;
  inputs.partitions_path = dir + "/partitions.conf";
  inputs.opensm_log_file = dir + "/opensm.log";
  inputs.sm_priority = 15;
  config::RenderedFiles files = config::Render(next, inputs);
  files.opensm_conf += TwinOverrides(dir);
  Status written = config::WriteRenderedFiles(files, inputs.partitions_path, dir + "/opensm.conf");
  if (written) written = WriteFileAtomically(dir + "/request.json", ToJson(request).dump(), 0600);
  return written;
}

const char* SpaceKind(const std::string& message) {
  return message.find(std::strerror(ENOSPC)) != std::string::npos ? "no-space" : "internal";
}

}  // namespace

TwinPlanOptions TwinOptionsFromEnvironment(TwinPlanOptions options) {
  if (const char* value = std::getenv("SMSUPD_TWIN_UP_TIMEOUT_S"); value != nullptr && *value != '\0') {
    char* end = nullptr;
    const long seconds = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && seconds >= 1 && seconds <= 600)
      options.up_timeout = std::chrono::seconds(seconds);
    else
      spdlog::warn("TWIN_OPTION_IGNORED SMSUPD_TWIN_UP_TIMEOUT_S={} (1..600 seconds)", value);
  }
  return options;
}

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
  bool finished = false;   // the runner ended or was killed
  bool delivered = false;  // answered, directory removed
  // RunConfig with compare_model: the config the twin's tables are held
  // against, and where the comparison goes for the reply to pick up.
  std::optional<config::Config> model_config;
  std::shared_ptr<std::optional<twin::ModelCheck>> model;
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

twin::TwinRequest TwinPlanCommand::MakeRequest() const {
  twin::TwinRequest request;
  request.port_guid = running_.port_guid;
  request.opensm = running_.config.sm.opensm.binary;
  request.up_timeout_ms = options_.up_timeout.count();
  request.memory_mb = options_.memory_mb;
  return request;
}

// The checks every twin passes before it starts, its directory, busy.
// nullptr with *refusal set when it cannot start.
std::shared_ptr<TwinPlanCommand::Run> TwinPlanCommand::Begin(Reply& reply, control::Response* refusal) {
  if (busy_) {
    *refusal = MakeResponse(ResultCode::kBusy, "busy: a twin plan is running; one runs at a time", {{"kind", "busy"}});
    return nullptr;
  }
  if (options_.executable.empty()) {
    *refusal = MakeResponse(ResultCode::kError, "twin plans need the smsupd executable, which this daemon "
                                                "does not know", {{"kind", "internal"}});
    return nullptr;
  }
  Result<std::string> ibsim = FindIbsim();
  Result<std::string> umad2sim = FindUmad2Sim();
  if (!ibsim || !umad2sim) {
    *refusal = MakeResponse(ResultCode::kError, !ibsim ? ibsim.error().message : umad2sim.error().message,
                            {{"kind", "missing-simulator"}});
    return nullptr;
  }
  std::string pattern = RuntimeDir() + "/" + kTwinDirPrefix + "XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    *refusal = MakeResponse(ResultCode::kError, "cannot create a directory for the twin in " + RuntimeDir() + ": " +
                                                    std::strerror(errno), {{"kind", "no-space"}});
    return nullptr;
  }
  busy_ = true;
  auto run = std::make_shared<Run>();
  run->dir = pattern;
  run->reply = std::move(reply);
  run_ = run;
  ibsim_ = *ibsim;
  umad2sim_ = *umad2sim;
  return run;
}

void TwinPlanCommand::Handle(const control::Request& request, const control::Caller& caller, Reply reply) {
  (void)caller;
  auto args = control::ParsePlanArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  control::Response refusal;
  std::shared_ptr<Run> run = Begin(reply, &refusal);
  if (!run) return reply(refusal);
  twin::TwinRequest twin_request = MakeRequest();
  twin_request.ibsim = ibsim_;
  twin_request.umad2sim = umad2sim_;
  const std::string path = args->file.empty() ? (args->yaml ? "<plan>" : running_.config.source_path) : args->file;
  // Validation and rendering can take CPU seconds for a large config.
  auto job = [this, run, running = running_.config, text = std::move(args->yaml), path,
              twin_request](const Deadline& deadline) {
    config::ValidationOutcome outcome =
        text ? config::ValidateText(*text, path, config::KeyFile::kNameOnly, deadline)
             : config::LoadAndValidate(path, deadline);
    nlohmann::json diagnostics = DiagnosticList(outcome);
    Status prepared = Status::Ok();
    if (outcome.ok()) {
      config::Config next = std::move(*outcome.config);
      if (text) config::AssumeRunningKeys(running, next);
      prepared = WriteTwinFiles(next, run->dir, twin_request);
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
      run->diagnostics = diagnostics;
      Prepared(run, prepared);
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

bool TwinPlanCommand::RunConfig(config::Config config, bool compare_model, RunDone done) {
  if (busy_) return false;
  // The daemon's own twins hear back through the reply path of the command.
  auto model = std::make_shared<std::optional<twin::ModelCheck>>();
  Reply reply = [done, model](control::Response response) {
    TwinRunResult result;
    result.model = *model;
    result.ok = response.result == ResultCode::kSuccess;
    if (result.ok) {
      result.report = std::move(response.arguments);
      result.text = std::move(response.text);
    } else {
      result.kind = response.arguments.is_object() ? response.arguments.value("kind", "internal") : "internal";
      result.error = std::move(response.text);
    }
    done(std::move(result));
  };
  control::Response refusal;
  std::shared_ptr<Run> run = Begin(reply, &refusal);
  if (!run) {
    boost::asio::post(io_, [reply, refusal] { reply(refusal); });
    return true;
  }
  twin::TwinRequest twin_request = MakeRequest();
  twin_request.ibsim = ibsim_;
  twin_request.umad2sim = umad2sim_;
  if (compare_model) run->model_config = config;
  run->model = model;
  auto job = [this, run, config = std::move(config), twin_request](const Deadline&) {
    Status prepared = WriteTwinFiles(config, run->dir, twin_request);
    boost::asio::post(io_, [this, run, prepared] {
      if (!run->finished) Prepared(run, prepared);
    });
  };
  RequestJobs::Submitted submitted = jobs_.Submit(
      RequestJobs::Lane::kOwner, 0, std::move(job), [this, run](const std::string& why) {
        boost::asio::post(io_, [this, run, why] {
          if (run->finished) return;
          Answer(run->reply, MakeResponse(ResultCode::kError, "twin: " + why, {{"kind", "internal"}}));
          Finish(run, "");
        });
      });
  if (submitted != RequestJobs::Submitted::kQueued) {
    Answer(run->reply, MakeResponse(ResultCode::kError, RefusalText(submitted), {{"kind", "busy"}}));
    Finish(run, "");
  }
  return true;
}

void TwinPlanCommand::Prepared(std::shared_ptr<Run> run, const Status& prepared) {
  if (!prepared) {
    Answer(run->reply, MakeResponse(ResultCode::kError, "cannot write the twin's files: " + prepared.message(),
                                    {{"kind", SpaceKind(prepared.message())}}));
    return Finish(run, "");
  }
  Launch(run);
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

// The answer a finished runner left in its directory.
control::Response TwinPlanCommand::ResultOf(const Run& run, const std::string& why_killed) const {
  if (!why_killed.empty()) return MakeResponse(ResultCode::kError, "twin plan: " + why_killed, {{"kind", "not-up"}});
  nlohmann::json result;
  Result<std::string> text = ReadWholeFile(run.dir + "/result.json", kMaxResultBytes);
  if (text) result = nlohmann::json::parse(*text, nullptr, false);
  if (!result.is_object())
    return MakeResponse(ResultCode::kError, "twin plan: the twin ended without a result", {{"kind", "internal"}});
  if (!result.value("ok", false)) {
    nlohmann::json arguments = {{"kind", result.value("kind", "internal")}};
    if (result.contains("opensm")) arguments["opensm"] = result["opensm"];
    return MakeResponse(ResultCode::kError, "twin plan: " + result.value("error", std::string("failed")), arguments);
  }
  nlohmann::json arguments = result.value("report", nlohmann::json::object());
  arguments["valid"] = true;
  arguments["diagnostics"] = run.diagnostics;
  return MakeResponse(ResultCode::kSuccess, result.value("text", std::string()), arguments);
}

// A runner cut short (deadline, the daemon stopping) is killed through its
// pidfd (never a recycled pid); its children (the probes, ibsim, OpenSM)
// die with it (PR_SET_PDEATHSIG). Then the result, the directory, the reply.
void TwinPlanCommand::Finish(std::shared_ptr<Run> run, const std::string& why_killed) {
  if (run->finished) return;
  run->finished = true;
  if (run->timer) run->timer->cancel();
  if (run->runner && !why_killed.empty()) (void)run->runner->Signal(SIGKILL);
  if (!run->reply) return Deliver(run, control::Response{}, std::nullopt);
  control::Response response = ResultOf(*run, why_killed);
  if (run->model_config && response.result == ResultCode::kSuccess) return CompareModel(run, std::move(response));
  Deliver(run, std::move(response), std::nullopt);
}

// The twin's tables (twin.json, up to 64 MiB) against smsupd's model of the
// config: off the loop, the directory kept (and the twin busy) until done.
void TwinPlanCommand::CompareModel(std::shared_ptr<Run> run, control::Response response) {
  auto job = [this, run, response, sm_port = running_.port_guid](const Deadline&) {
    std::optional<twin::ModelCheck> model;
    control::Response answer = response;
    Result<std::string> text = ReadWholeFile(run->dir + "/twin.json", kMaxTwinStateBytes);
    Result<twin::FabricState> state = text ? twin::FabricStateFromJson(nlohmann::json::parse(*text, nullptr, false))
                                           : Result<twin::FabricState>(text.error());
    if (state) {
      model = twin::CompareWithModel(*state, twin::ModelTables(*run->model_config, *state, sm_port));
    } else {
      answer = MakeResponse(ResultCode::kError, "twin: its tables cannot be read back: " + state.error().message,
                            {{"kind", "read-back"}});
    }
    boost::asio::post(io_, [this, run, answer, model] { Deliver(run, answer, model); });
  };
  RequestJobs::Submitted submitted = jobs_.Submit(
      RequestJobs::Lane::kOwner, 0, std::move(job), [this, run](const std::string& why) {
        boost::asio::post(io_, [this, run, why] {
          Deliver(run, MakeResponse(ResultCode::kError, "twin: " + why, {{"kind", "internal"}}), std::nullopt);
        });
      });
  if (submitted != RequestJobs::Submitted::kQueued)
    Deliver(run, MakeResponse(ResultCode::kError, RefusalText(submitted), {{"kind", "internal"}}), std::nullopt);
}

void TwinPlanCommand::Deliver(std::shared_ptr<Run> run, control::Response response,
                              std::optional<twin::ModelCheck> model) {
  if (run->delivered) return;
  run->delivered = true;
  std::error_code ignored;
  fs::remove_all(run->dir, ignored);
  spdlog::info("TWIN_FINISHED {}", response.result == ResultCode::kSuccess ? "done" : response.text);
  if (run_ == run) {
    run_.reset();
    busy_ = false;
  }
  if (run->model) *run->model = std::move(model);
  if (run->reply) Answer(run->reply, std::move(response));
}

void TwinPlanCommand::Stop() {
  if (!run_) return;
  std::shared_ptr<Run> run = run_;
  if (!run->finished) return Finish(run, "the daemon is stopping");
  Deliver(run, MakeResponse(ResultCode::kError, "twin plan: the daemon is stopping", {{"kind", "internal"}}),
          std::nullopt);
}

}  // namespace smsupd
