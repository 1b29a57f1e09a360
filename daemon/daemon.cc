#include "daemon/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include "config/validator.h"
#include "daemon/fabric/umad_fabric.h"

namespace smsupd {

Daemon::Daemon(DaemonOptions options, Notifier& notifier)
    : options_(std::move(options)), notifier_(notifier), signals_(io_, SIGTERM, SIGINT, SIGHUP),
      watchdog_timer_(io_), launcher_(io_),
      health_([this](const control::ProblemWire& problem, bool raised) {
        spdlog::log(raised ? spdlog::level::warn : spdlog::level::info, "{} {} {}",
                    raised ? "PROBLEM_RAISED" : "PROBLEM_CLEARED", problem.id, problem.text);
        AddEvent(raised ? control::kEventProblemRaised : control::kEventProblemCleared,
                 {{"id", problem.id}, {"text", problem.text}});
      }),
      stop_timer_(io_) {}

Daemon::~Daemon() = default;

int Daemon::Run() {
  StoppingGuard stopping(notifier_);  // every return path below says STOPPING=1
  Status started = StartUp();
  if (!started) {
    spdlog::critical("STARTUP_FAILED {}", started.message());
    if (server_) server_->Stop();
    if (worker_) worker_->Stop();
    return 1;
  }
  WaitForSignals();
  StartWatchdog();
  // The failover policy starts (or has adopted) OpenSM; READY=1 follows that.
  failover_->Start();
  io_.run();
  return exit_code_;
}

void Daemon::SendReady() {
  if (ready_sent_) return;
  ready_sent_ = true;
  notifier_.Notify("READY=1\nSTATUS=" + StatusLine());
  spdlog::info("DAEMON_READY config {} generation {}, control socket {}", config_.source_path,
               generation_.number, config_.control.socket);
}

Status Daemon::StartUp() {
  config::ValidationOutcome outcome = config::LoadAndValidate(options_.config_path);
  for (const auto& diagnostic : outcome.diagnostics) spdlog::warn("{}", diagnostic.Format());
  if (!outcome.ok()) {
    spdlog::error("CONFIG_REJECTED {}: {} error(s); not starting", options_.config_path,
                  outcome.ErrorCount());
    return Error{"invalid config " + options_.config_path};
  }
  config_ = std::move(*outcome.config);
  // The socket first: binding refuses a live socket, so a second smsupd with
  // the same config stops here, before it touches the files or OpenSM.
  control::ControlServerOptions server_options;
  server_options.socket_path = config_.control.socket;
  server_options.group = config_.control.group;
  server_options.daemon_version = std::string("smsupd ") + SMSUPD_VERSION;
  server_ = std::make_unique<control::ControlServer>(io_, server_options, *this, events_);
  Status bound = server_->Start();
  if (!bound) return bound;
  auto port = ResolvePortGuid();
  if (!port) return port.error();
  port_guid_ = *port;
  Status applied = ApplyInitialConfig(port_guid_);
  if (!applied) return applied;
  EnsureApplyParts();  // OpenSM's log watched from the start; this generation stored

  OpenSmLaunchSpec spec{config_.sm.opensm.binary, StatePaths{config_.state_dir}.OpenSmConf(),
                        config_.state_dir, port_guid_};
  supervisor_ = std::make_unique<OpenSmSupervisor>(
      io_, launcher_, processes_, clock_, spec, options_.opensm_tuning,
      [this](const OpenSmEvent& event) { OnSupervisorEvent(event); });
  policy::PolicyConfig policy = MakePolicyConfig();
  if (std::string unusable = policy::CheckPolicyConfig(policy); !unusable.empty())
    return Error{"failover settings: " + unusable};
  failover_ = std::make_unique<FailoverController>(io_, *worker_, std::move(policy),
                                                   MakeFailoverTiming(),
                                                   config_.sm.sm_key.value_or(0), *this);
  // A running OpenSM of ours (smsupd restarted) is adopted as it is; else the
  // failover policy starts one once it has seen the subnet (StartOpenSm).
  if (supervisor_->Adopt()) SendReady();
  return Status::Ok();
}

Result<Guid> Daemon::ResolvePortGuid() {
  std::shared_ptr<Fabric> fabric;
  if (options_.make_fabric) {
    fabric = options_.make_fabric(config_.sm.port_guid);
  } else {
    UmadFabricOptions fabric_options;
    fabric_options.port_guid = config_.sm.port_guid;
    // The master's liveness poll: three short attempts inside one poll
    // interval, so one dropped MAD is not a miss and a dead master costs a
    // round no more than ~150 ms (docs/failover.md "Watching").
    fabric_options.smp = MadTimeouts{std::chrono::milliseconds(50), 3};
    fabric_options.sa = MadTimeouts{std::chrono::milliseconds(300), 2};
    fabric = std::make_shared<UmadFabric>(fabric_options);
  }
  worker_ = std::make_unique<MadWorker>(io_, std::move(fabric));
  std::optional<Result<Guid>> resolved;
  worker_->Submit([](Fabric& fabric) { return fabric.LocalPortGuid(); },
                  [&resolved](Result<Guid> guid) { resolved = std::move(guid); },
                  options_.port_deadline);
  while (!resolved && io_.run_one() > 0) {
  }
  io_.restart();
  if (!resolved || !*resolved)
    return Error{"cannot find the local port: " +
                 (resolved ? resolved->error().message : std::string("no answer"))};
  spdlog::info("PORT_RESOLVED OpenSM will bind port {}", FormatGuid(**resolved));
  return **resolved;
}

Status Daemon::ApplyInitialConfig(Guid port_guid) {
  auto hash = WriteRenderedConfig(config_, port_guid);
  if (!hash) return Error{"cannot write OpenSM's files: " + hash.error().message};
  StatePaths paths{config_.state_dir};
  generation_ = NextGenerationAtStart(ReadGeneration(paths), *hash);
  Status written = WriteGeneration(paths, generation_);
  if (!written) spdlog::warn("GENERATION_NOT_SAVED {}", written.message());
  spdlog::info("CONFIG_APPLIED generation {} hash {} from {}", generation_.number,
               generation_.hash, config_.source_path);
  AddEvent(control::kEventConfigApplied,
           {{"generation", generation_.number}, {"hash", generation_.hash}, {"at", "start"}});
  return Status::Ok();
}

void Daemon::WaitForSignals() {
  signals_.async_wait([this](boost::system::error_code error, int signal) {
    if (error) return;
    if (signal == SIGHUP) {
      spdlog::info("SIGNAL_HUP reloading {}", options_.config_path);
      Reload({}, [](control::Response) {});
    } else if (!stopping_) {
      spdlog::info("SIGNAL_STOP {} received: stopping OpenSM and exiting", ::strsignal(signal));
      Shutdown();
    }
    WaitForSignals();
  });
}

// SIGTERM: the failover policy hands over first when this SM is MASTER,
// then stops OpenSM (StopOpenSm -> FinishStop). The timer makes sure the
// process ends even if that never completes.
void Daemon::Shutdown() {
  stopping_ = true;
  notifier_.Notify("STOPPING=1");
  auto limit = std::chrono::milliseconds(config_.sm.failover.handover_timeout_ms) +
               options_.opensm_tuning.stop_deadline + std::chrono::seconds(5);
  stop_timer_.expires_after(limit);
  stop_timer_.async_wait([this](boost::system::error_code error) {
    if (error) return;
    spdlog::error("STOP_FORCED the handover and stop did not finish in time; stopping OpenSM now");
    supervisor_->Stop([this] { FinishStop(); });
  });
  failover_->StopRequested();
}

void Daemon::FinishStop() {
  if (finished_) return;
  finished_ = true;
  failover_->Stop();
  server_->Stop();
  worker_->Stop();
  signals_.cancel();
  watchdog_timer_.cancel();
  stop_timer_.cancel();
  io_.stop();
}

// Pinged from the event loop itself: a wedged loop stops the pings and
// systemd restarts us (KillMode=process keeps OpenSM, the next smsupd adopts it).
void Daemon::StartWatchdog() {
  auto timeout = notifier_.WatchdogTimeout();
  if (!timeout) return;
  watchdog_timer_.expires_after(*timeout / 2);
  watchdog_timer_.async_wait([this](boost::system::error_code error) {
    if (error || stopping_) return;
    notifier_.Notify("WATCHDOG=1");
    StartWatchdog();
  });
}

void Daemon::AddEvent(std::string_view kind, nlohmann::json details) {
  events_.Append(kind, std::move(details));
}

}  // namespace smsupd
