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
      }) {}

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
  notifier_.Notify("READY=1\nSTATUS=" + StatusLine());
  spdlog::info("DAEMON_READY config {} generation {}, control socket {}", config_.source_path,
               generation_.number, config_.control.socket);
  WaitForSignals();
  StartWatchdog();
  observer_->Start();
  io_.run();
  return exit_code_;
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

  OpenSmLaunchSpec spec{config_.sm.opensm.binary, StatePaths{config_.state_dir}.OpenSmConf(),
                        config_.state_dir, port_guid_};
  supervisor_ = std::make_unique<OpenSmSupervisor>(
      io_, launcher_, processes_, clock_, spec, options_.opensm_tuning,
      [this](const OpenSmEvent& event) { OnSupervisorEvent(event); });
  Status opensm = supervisor_->Start();
  if (!opensm) return Error{"cannot start OpenSM: " + opensm.message()};

  observer_ = std::make_unique<SubnetObserver>(
      io_, *worker_, options_.poll_interval,
      [this](const SubnetObservation& seen, const std::vector<ObservedChange>& changes) {
        OnSubnetPoll(seen, changes);
      });
  return Status::Ok();
}

Result<Guid> Daemon::ResolvePortGuid() {
  std::shared_ptr<Fabric> fabric;
  if (options_.make_fabric) {
    fabric = options_.make_fabric(config_.sm.port_guid);
  } else {
    UmadFabricOptions fabric_options;
    fabric_options.port_guid = config_.sm.port_guid;
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

void Daemon::Shutdown() {
  stopping_ = true;
  notifier_.Notify("STOPPING=1");
  observer_->Stop();
  server_->Stop();
  supervisor_->Stop([this] {
    worker_->Stop();
    signals_.cancel();
    watchdog_timer_.cancel();
    io_.stop();
  });
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
