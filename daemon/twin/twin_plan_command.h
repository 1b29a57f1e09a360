// `smctl plan --twin` on the daemon's side: the "twin-plan" command. Checks
// that the simulator is installed, validates and renders the proposed config
// (off the event loop, like `plan`), writes it into a private directory under
// the daemon's runtime directory (the control socket's), and starts
// `smsupd --twin-run DIR` (twin_runner.h), which does the rest. The reply
// comes when the runner ends, or when the deadline kills it; the directory
// is removed either way.
//
// One twin at a time: a request while one runs is answered kBusy. Root only
// (the command is kChanging): it starts a simulator and an OpenSM on this
// node, though it sends nothing but reads to the live fabric.
//
// The daemon's own twins go through RunConfig(): the reload gate
// (docs/twin.md "The twin as a gate") and the takeover readiness check
// (takeover_readiness.h). They share the one-at-a-time rule with the
// command: whichever comes second is refused.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "daemon/apply/request_jobs.h"
#include "daemon/apply/running_config.h"
#include "daemon/control/command_router.h"
#include "daemon/process/process.h"
#include "daemon/twin/twin_gate.h"
#include "daemon/twin/twin_runner.h"

namespace smsupd {

struct TwinPlanOptions {
  // OpenSM's first sweep on the twin (a 2,592-HCA fat tree takes seconds).
  std::chrono::milliseconds up_timeout{60000};
  // The whole run, after which the runner and everything it started are killed.
  std::chrono::milliseconds deadline{240000};
  // Address space of each process of the twin (RLIMIT_AS).
  int64_t memory_mb = 4096;
  // The smsupd executable (its --twin-run mode is the runner); empty: no twin.
  std::string executable;
};

// Where the simulator's parts are installed, or why they are not (naming
// the Debian packages). Searched in $PATH and the multiarch library dirs.
Result<std::string> FindIbsim();
Result<std::string> FindUmad2Sim();

// What one of the daemon's own twins found (RunConfig).
struct TwinRunResult {
  bool ok = false;
  std::string kind, error;          // !ok: docs/twin.md's kinds, and what happened
  nlohmann::json report;            // ok: the twin-plan report
  std::string text;                 // ok: the report as smctl prints it
  std::optional<twin::ModelCheck> model;  // ok and asked for: the twin's tables against the model
};

// The options of the daemon's environment: $SMSUPD_TWIN_UP_TIMEOUT_S (1..600)
// replaces up_timeout (tests make an OpenSM that never comes up fail fast).
TwinPlanOptions TwinOptionsFromEnvironment(TwinPlanOptions options);

class TwinPlanCommand {
 public:
  using Reply = control::CommandHandler::Reply;
  using RunDone = std::function<void(TwinRunResult)>;

  TwinPlanCommand(boost::asio::io_context& io, const RunningConfig& running, ProcessLauncher& launcher,
                  TwinPlanOptions options = {});
  ~TwinPlanCommand();

  void RegisterCommands(control::CommandRouter& router);
  // Runs `config` (validated) on the twin against the live fabric; with
  // `compare_model` the twin's P_Key tables are also compared with
  // smsupd's model of `config` (twin_gate.h). `done` is called once, on the
  // loop. False, and `done` never called, when a twin runs already.
  bool RunConfig(config::Config config, bool compare_model, RunDone done);
  // Kills a twin in progress (its reply says so) and removes its directory.
  void Stop();
  bool busy() const { return busy_; }

 private:
  struct Run;
  void Handle(const control::Request& request, const control::Caller& caller, Reply reply);
  // Takes `reply` only when the twin starts.
  std::shared_ptr<Run> Begin(Reply& reply, control::Response* refusal);
  twin::TwinRequest MakeRequest() const;
  void Prepared(std::shared_ptr<Run> run, const Status& prepared);
  void Launch(std::shared_ptr<Run> run);
  void Finish(std::shared_ptr<Run> run, const std::string& why_killed);
  control::Response ResultOf(const Run& run, const std::string& why_killed) const;
  void CompareModel(std::shared_ptr<Run> run, control::Response response);
  void Deliver(std::shared_ptr<Run> run, control::Response response, std::optional<twin::ModelCheck> model);
  std::string RuntimeDir() const;
  void RemoveStaleDirectories();

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  ProcessLauncher& launcher_;
  TwinPlanOptions options_;
  bool busy_ = false;
  std::shared_ptr<Run> run_;
  std::string ibsim_, umad2sim_;  // found by the last Begin()
  // Validation and rendering, off the loop. Last: its destructor waits.
  RequestJobs jobs_{1, RequestJobs::kTimeLimit};
};

}  // namespace smsupd
