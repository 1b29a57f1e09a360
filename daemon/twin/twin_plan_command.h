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

class TwinPlanCommand {
 public:
  using Reply = control::CommandHandler::Reply;

  TwinPlanCommand(boost::asio::io_context& io, const RunningConfig& running, ProcessLauncher& launcher,
                  TwinPlanOptions options = {});
  ~TwinPlanCommand();

  void RegisterCommands(control::CommandRouter& router);
  // Kills a twin in progress (its reply says so) and removes its directory.
  void Stop();
  bool busy() const { return busy_; }

 private:
  struct Run;
  void Handle(const control::Request& request, const control::Caller& caller, Reply reply);
  void Launch(std::shared_ptr<Run> run);
  void Finish(std::shared_ptr<Run> run, const std::string& why_killed);
  std::string RuntimeDir() const;
  void RemoveStaleDirectories();

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  ProcessLauncher& launcher_;
  TwinPlanOptions options_;
  bool busy_ = false;
  std::shared_ptr<Run> run_;
  // Validation and rendering, off the loop. Last: its destructor waits.
  RequestJobs jobs_{1, RequestJobs::kTimeLimit};
};

}  // namespace smsupd
