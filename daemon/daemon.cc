#include "daemon/daemon.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include <boost/asio/post.hpp>

#include "config/validator.h"
#include "daemon/fabric/umad_fabric.h"
#include "daemon/failover/failover_settings.h"

namespace smsupd {

Daemon::Daemon(DaemonOptions options, Notifier& notifier)
    : options_(std::move(options)), notifier_(notifier), signals_(io_, SIGTERM, SIGINT, SIGHUP),
      watchdog_timer_(io_), stop_timer_(io_), launcher_(io_), status_(running_, notifier) {
  // From here on SIGUSR1 (logrotate's postrotate) can no longer kill smsupd.
  signals_.add(SIGUSR1);
}

Daemon::~Daemon() = default;

int Daemon::Run() {
  StoppingGuard stopping(notifier_);  // every return path below says STOPPING=1
  Status started = StartUp();
  if (!started) {
    if (stop_asked_ && startup_exit_ == 0)
      spdlog::info("SIGNAL_STOP received during start-up: {}", started.message());
    else
      spdlog::critical("STARTUP_FAILED {} (exit status {})", started.message(), startup_exit_);
    if (server_) server_->Stop();
    if (worker_) worker_->Stop();
    return startup_exit_;
  }
  WaitForSignals();
  StartWatchdog();
  // The failover policy starts (or has adopted) OpenSM; READY=1 follows that.
  failover_->Start();
  if (stop_asked_) Shutdown();
  io_.run();
  return exit_code_;
}

void Daemon::RequestReload() {
  boost::asio::post(io_, [this] {
    if (applier_ && !stopping_) applier_->Reload();
  });
}

void Daemon::RequestStop() {
  stop_asked_ = true;
  boost::asio::post(io_, [this] {
    if (failover_ && !stopping_) Shutdown();  // before start-up ended: Run() does it
  });
}

Status Daemon::StartUp() {
  config::ValidationOutcome outcome = config::LoadAndValidate(options_.config_path);
  for (const auto& diagnostic : outcome.diagnostics) spdlog::warn("{}", diagnostic.Format());
  if (!outcome.ok()) {
    spdlog::error("CONFIG_REJECTED {}: {} error(s); not starting", options_.config_path,
                  outcome.ErrorCount());
    startup_exit_ = kExitConfigInvalid;
    return Error{"invalid config " + options_.config_path};
  }
  running_.config = std::move(*outcome.config);
  if (Status state_dir = PrepareStateDirectory(running_.config.state_dir); !state_dir)
    return state_dir;
  metrics_ = std::make_unique<MetricsService>(SMSUPD_VERSION, clock_);
  metrics_->Follow(status_.events());
  // The socket first: binding refuses a live socket, so a second smsupd with
  // the same config stops here, before it touches the files or OpenSM.
  control::ControlServerOptions server_options;
  server_options.socket_path = running_.config.control.socket;
  server_options.group = running_.config.control.group;
  server_options.daemon_version = std::string("smsupd ") + SMSUPD_VERSION;
  server_options.answered = [this](const std::string& command, control::ResultCode result) {
    metrics_->RequestAnswered(command, control::ResultCodeName(result));
  };
  server_ = std::make_unique<control::ControlServer>(io_, server_options, router_, status_.events());
  if (Status bound = server_->Start(); !bound) return bound;
  auto port = ResolvePortGuid();
  if (!port) return port.error();
  running_.port_guid = *port;
  StartObservability();
  BuildParts();
  if (Status applied = applier_->ApplyAtStart(); !applied) return applied;
  opensm_->WatchLog();  // OpenSM's log watched from the start
  opensm_->WatchForeignOpenSms();
  policy::PolicyConfig policy = MakePolicyConfig(running_.config, running_.port_guid);
  if (std::string unusable = policy::CheckPolicyConfig(policy); !unusable.empty())
    return Error{"failover settings: " + unusable};
  failover_ = std::make_unique<FailoverController>(
      io_, clock_, *worker_, std::move(policy), MakeFailoverTiming(running_.config),
      running_.config.sm.sm_key.value_or(0), *opensm_, status_,
      [this](const SubnetObservation& seen) {
        status_.Observed(seen);
        metrics_->Observed(seen);
      });
  failover_->SetFarPortSource([this] { return applier_->far_port(); });
  status_.Attach({[this] { return opensm_->Snapshot(); }, [this] { return failover_->Wire(); }});
  status_.RegisterCommands(router_);
  metrics_->RegisterCommands(router_);
  applier_->RegisterCommands(router_);
  why_ = std::make_unique<WhyCommand>(io_, running_, *worker_);
  why_->RegisterCommands(router_);
  cabling_ = std::make_unique<CablingCommand>(io_, running_, *worker_, status_);
  cabling_->RegisterCommands(router_);
  cabling_->Start();
  TwinPlanOptions twin_options;
  twin_options.executable = options_.twin_executable;
  twin_ = std::make_unique<TwinPlanCommand>(io_, running_, launcher_, TwinOptionsFromEnvironment(twin_options));
  twin_->RegisterCommands(router_);
  readiness_ = std::make_unique<TakeoverReadiness>(io_, running_, *twin_, status_, [this] {
    const SubnetObservation& seen = status_.seen();
    return seen.local_sm && seen.local_sm->state == SmState::kStandby;
  });
  readiness_->Start();
  ports_ = std::make_unique<PortsMonitor>(io_, running_, *worker_, status_, [this](const PortsMonitor::Summary& s) {
    metrics_->metrics().SetPortsReadout(s.problems, s.ports, s.unread, s.seconds, s.mads);
  });
  ports_->SetNodeSink([this](const std::map<Guid, Guid>& node_of_port) { opensm_->LearnNodes(node_of_port); });
  ports_->SetPeriodicGate([this] {
    const SubnetObservation& seen = status_.seen();
    return seen.local_sm && seen.local_sm->state == SmState::kMaster;
  });
  ports_->SetPeriodicHold([this] { return failover_->InFirstSweepAsMaster(); });
  ports_->SetLocalPortDown([this] {
    const SubnetObservation& seen = status_.seen();
    return seen.valid && seen.port_error.empty() && seen.local_port.port_state == kPortStateDown;
  });
  ports_->RegisterCommands(router_);
  failover_->RegisterCommands(router_);
  router_.Open();
  // A running OpenSM of ours (smsupd restarted) is adopted as it is; else the
  // failover policy starts one once it has seen the subnet.
  opensm_->Adopt();
  ports_->Start();
  return Status::Ok();
}

// The metrics' sources and listener, and the hooks: both watch the event
// log from the first event on. A listener that cannot bind is logged, not
// fatal: the subnet manager matters more than its metrics.
void Daemon::StartObservability() {
  metrics_->Attach({[this] { return status_.Build(); },
                    [this] { return server_ ? server_->connection_count() : std::size_t{0}; },
                    [this] { return SubnetIdentityOf(running_.config); }});
  if (Status listening = metrics_->StartListener(running_.config.metrics); !listening)
    spdlog::error("METRICS_LISTEN_FAILED {}", listening.message());
  EventHooks::Sources sources{[this] { return status_.Build(); },
                              [this]() -> const config::HookSettings& { return running_.config.hooks; },
                              running_.port_guid};
  DaemonMetrics& metrics = metrics_->metrics();
  EventHooks::Sinks sinks{[&metrics](std::string_view result) { metrics.HookRun(result); },
                          [&metrics] { metrics.HookEventDropped(); }};
  hooks_ = std::make_unique<EventHooks>(std::move(sources), std::move(sinks));
  hooks_->Follow(status_.events());
}

// The OpenSM controller and the applier, wired to each other and to the
// daemon's life through their hooks.
void Daemon::BuildParts() {
  OpenSmHooks opensm_hooks;
  opensm_hooks.on_event = [this](const OpenSmEvent& event) { OnOpenSmEvent(event); };
  opensm_hooks.on_log = [this](const OpenSmLogEvent& event) { OnOpenSmLog(event); };
  opensm_hooks.running = [this] { SendReady(); };
  opensm_hooks.first_start_failed = [this](const Status& failed) {
    spdlog::critical("STARTUP_FAILED cannot start OpenSM: {}", failed.message());
    exit_code_ = 1;
    FinishStop();
  };
  opensm_hooks.stopped = [this] {
    if (stopping_) FinishStop();
  };
  opensm_hooks.start_priority = [this] {
    return failover_ ? failover_->PriorityForStart() : running_.config.sm.priority;
  };
  opensm_ = std::make_unique<OpenSmController>(io_, launcher_, processes_, clock_, running_,
                                               *worker_, status_, options_.opensm_tuning,
                                               std::move(opensm_hooks));
  ApplyHooks apply_hooks;
  apply_hooks.subnet = [this] { return status_.seen(); };
  apply_hooks.reloading = [this](const std::string& text) {
    notifier_.Notify("RELOADING=1\nSTATUS=" + text);
  };
  apply_hooks.reloaded = [this] { notifier_.Notify("READY=1\nSTATUS=" + status_.Line()); };
  apply_hooks.poll_soon = [this] {
    if (failover_) failover_->PollSoon();
  };
  apply_hooks.twin_gate = [this](const config::Config& next, std::function<void(TwinVerdict)> done) {
    if (!twin_) return done(twin::TwinFailed("internal", "smsupd is starting"));
    const bool started = twin_->RunConfig(next, true, [done](TwinRunResult run) {
      done(run.ok ? twin::JudgeTwin(run.report, run.text.substr(0, run.text.find('\n')),
                                    run.model.value_or(twin::ModelCheck{}))
                  : twin::TwinFailed(run.kind, run.error));
    });
    if (!started)
      done(twin::TwinFailed("busy", "another twin runs (smctl plan --twin or the readiness check); one at a time"));
  };
  apply_hooks.restart_opensm = [this](bool force, auto done) {
    if (!failover_) return done(false, "smsupd is starting");
    // Handover (up to handover_timeout), OpenSM's stop and its new start.
    const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::milliseconds(running_.config.sm.failover.handover_timeout_ms) +
        options_.opensm_tuning.stop_deadline + std::chrono::seconds(30));
    failover_->RestartOpenSm(force, /*wait=*/true, limit,
                             [done](bool ok, const std::string& text, nlohmann::json) {
                               done(ok, text);
                             });
  };
  applier_ = std::make_unique<ConfigApplier>(io_, clock_, options_.config_path, running_, *opensm_,
                                             *worker_, status_, std::move(apply_hooks));
}

// The port may not be there yet at boot (the driver still loading, a port
// training): start-up waits for it, tells systemd why (STATUS=) and asks
// for the time (EXTEND_TIMEOUT_USEC), up to port_deadline; then it exits
// with kExitPortMissing and systemd starts it again (docs/systemd.md "A port
// that is not there yet"). SIGTERM ends the wait.
Result<Guid> Daemon::ResolvePortGuid() {
  std::shared_ptr<Fabric> fabric;
  if (options_.make_fabric) {
    fabric = options_.make_fabric(running_.config.sm.port_guid);
  } else {
    UmadFabricOptions fabric_options;
    fabric_options.port_guid = running_.config.sm.port_guid;
    // The master's liveness poll: three short attempts inside one poll
    // interval, so one dropped MAD is not a miss and a dead master costs a
    // round no more than ~150 ms (docs/failover.md "Watching").
    fabric_options.smp = MadTimeouts{std::chrono::milliseconds(50), 3};
    fabric_options.sa = MadTimeouts{std::chrono::milliseconds(300), 2};
    fabric = std::make_shared<UmadFabric>(fabric_options);
  }
  worker_ = std::make_unique<MadWorker>(io_, std::move(fabric));
  const std::string port = running_.config.sm.port_guid
                               ? "port " + FormatGuid(*running_.config.sm.port_guid)
                               : std::string("the local port");
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const auto start = std::chrono::steady_clock::now();
  const auto give_up = start + options_.port_deadline;
  std::string last_error = "no answer";
  bool waiting = false;
  signals_.async_wait([this](boost::system::error_code error, int signal) {
    if (!error && signal != SIGHUP) stop_asked_ = true;
  });
  while (!stop_asked_) {
    const auto attempt_start = std::chrono::steady_clock::now();
    const auto left = duration_cast<milliseconds>(give_up - attempt_start);
    if (left <= milliseconds(0)) break;
    Result<Guid> found = LookUpPort(std::min(left, options_.port_retry));
    if (found) {
      signals_.cancel();
      if (waiting) {
        spdlog::info("PORT_APPEARED {} after {} s", FormatGuid(*found),
                     duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count());
        // The rest of start-up gets the unit's usual start time again.
        notifier_.Notify("STATUS=starting on port " + FormatGuid(*found) + "\nEXTEND_TIMEOUT_USEC=90000000");
      }
      spdlog::info("PORT_RESOLVED OpenSM will bind port {}", FormatGuid(*found));
      return *found;
    }
    last_error = found.error().message;
    if (!waiting) {
      waiting = true;
      spdlog::warn("PORT_WAITING {} is not there yet ({}); waiting up to {} s", port, last_error,
                   duration_cast<std::chrono::seconds>(options_.port_deadline).count());
      notifier_.Notify("STATUS=waiting for " + port + " to appear\nEXTEND_TIMEOUT_USEC=" +
                       std::to_string(duration_cast<std::chrono::microseconds>(
                                          left + std::chrono::seconds(30)).count()));
    }
    const auto spent = std::chrono::steady_clock::now() - attempt_start;
    if (spent < options_.port_retry)
      PauseStartUp(duration_cast<milliseconds>(options_.port_retry - spent));
  }
  signals_.cancel();
  if (stop_asked_) {
    startup_exit_ = 0;  // a stop asked for, not a failure
    return Error{"stopped while waiting for " + port};
  }
  startup_exit_ = kExitPortMissing;
  return Error{"PORT_MISSING " + port + " did not appear within " +
               std::to_string(duration_cast<std::chrono::seconds>(options_.port_deadline).count()) +
               " s: " + last_error};
}

Result<Guid> Daemon::LookUpPort(std::chrono::milliseconds deadline) {
  std::optional<Result<Guid>> resolved;
  worker_->Submit([](Fabric& fabric) { return fabric.LocalPortGuid(); },
                  [&resolved](Result<Guid> guid) { resolved = std::move(guid); }, deadline);
  while (!resolved && io_.run_one() > 0) {
  }
  io_.restart();
  if (!resolved) return Error{"no answer"};
  return std::move(*resolved);
}

void Daemon::PauseStartUp(std::chrono::milliseconds pause) {
  boost::asio::steady_timer timer(io_, pause);
  bool done = false;
  timer.async_wait([&done](boost::system::error_code) { done = true; });
  while (!done && !stop_asked_ && io_.run_one() > 0) {
  }
  timer.cancel();
  while (!done && io_.run_one() > 0) {
  }
  io_.restart();
}

void Daemon::OnOpenSmEvent(const OpenSmEvent& event) {
  if (event.kind == "OPENSM_CRASH_LOOP") return status_.OpenSmChanged(event);
  if (event.kind == "OPENSM_STARTED") applier_->OpenSmStarted();
  status_.OpenSmChanged(event);
  // The failover policy hears of every start and exit at once (a MASTER's
  // exit hands over to the best standby in the same step).
  if (failover_) {
    if (event.kind == "OPENSM_STARTED" || event.kind == "OPENSM_ADOPTED")
      failover_->OpenSmChanged(true, "");
    else if (event.kind == "OPENSM_EXITED" || event.kind == "OPENSM_STOPPED" ||
             event.kind == "OPENSM_KILLED_AFTER_HANDOVER")
      failover_->OpenSmChanged(false, opensm_->Snapshot().last_exit);
  }
  status_.Publish();
}

void Daemon::OnOpenSmLog(const OpenSmLogEvent& event) {
  if (event.kind == OpenSmLogEvent::Kind::kPartitionConfigError)
    applier_->PartitionConfigRefused(event.line);
  else if (event.kind == OpenSmLogEvent::Kind::kSmKeyMismatch && failover_)
    failover_->SmKeyMismatchSeen();  // SM_KEY_MISMATCH (docs/failover.md)
  else if (event.kind == OpenSmLogEvent::Kind::kSubnetUp && failover_)
    failover_->SubnetUpLogged(event.line);  // a stage of the failover timeline
  else if ((event.kind == OpenSmLogEvent::Kind::kEnteringMaster ||
            event.kind == OpenSmLogEvent::Kind::kEnteringStandby) && failover_)
    failover_->SmStateLogged(event.kind == OpenSmLogEvent::Kind::kEnteringMaster);
}

void Daemon::SendReady() {
  if (ready_sent_) return;
  ready_sent_ = true;
  notifier_.Notify("READY=1\nSTATUS=" + status_.Line());
  spdlog::info("DAEMON_READY config {} generation {}, control socket {}",
               running_.config.source_path, running_.generation.number,
               running_.config.control.socket);
}

void Daemon::WaitForSignals() {
  signals_.async_wait([this](boost::system::error_code error, int signal) {
    if (error) return;
    if (signal == SIGHUP) {
      spdlog::info("SIGNAL_HUP reloading {}", options_.config_path);
      if (!stopping_) applier_->Reload();
    } else if (signal == SIGUSR1) {
      if (opensm_) opensm_->ReopenLog();  // OPENSM_LOG_REOPEN
    } else if (!stopping_) {
      spdlog::info("SIGNAL_STOP {} received: stopping OpenSM and exiting", ::strsignal(signal));
      Shutdown();
    }
    WaitForSignals();
  });
}

// SIGTERM: the failover controller hands over first when this SM is
// MASTER, then stops OpenSM (hooks.stopped -> FinishStop). The timer makes
// sure the process ends even if that never completes.
void Daemon::Shutdown() {
  stopping_ = true;
  if (notifier_.StopIsARestart()) {
    // `systemctl restart smsupd`: OpenSM keeps running (as MASTER or
    // STANDBY) and the next smsupd adopts it: no moment without a master.
    notifier_.Notify("STOPPING=1");
    applier_->Stop();
    spdlog::info("SMSUPD_RESTARTING OpenSM (pid {}) keeps running for the next smsupd to adopt",
                 opensm_->Snapshot().pid);
    status_.AddEvent("smsupd-restarting", {{"opensm_pid", opensm_->Snapshot().pid}});
    return FinishStop();
  }
  auto limit = std::chrono::milliseconds(running_.config.sm.failover.handover_timeout_ms) +
               options_.opensm_tuning.stop_deadline + std::chrono::seconds(5);
  // The service manager waits the whole sequence (a handover first), not
  // only its own TimeoutStopSec: a stop cut short leaves OpenSM running.
  notifier_.Notify("STOPPING=1\nEXTEND_TIMEOUT_USEC=" +
                   std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                      limit + std::chrono::seconds(5))
                                      .count()));
  applier_->Stop();
  stop_timer_.expires_after(limit);
  stop_timer_.async_wait([this](boost::system::error_code error) {
    if (error) return;
    spdlog::error("STOP_FORCED the handover and stop did not finish in time; stopping OpenSM now");
    opensm_->Stop();
  });
  failover_->StopRequested();
}

void Daemon::FinishStop() {
  if (finished_) return;
  finished_ = true;
  if (hooks_) hooks_->Stop();
  failover_->Stop();
  if (cabling_) cabling_->Stop();
  if (readiness_) readiness_->Stop();
  server_->Stop();
  worker_->Stop();
  signals_.cancel();
  watchdog_timer_.cancel();
  stop_timer_.cancel();
  io_.stop();
}

// Pinged from the event loop itself: a wedged loop stops the pings and
// systemd restarts us (KillMode=process keeps OpenSM, the next smsupd adopts it).
// Also while stopping: a handover can outlast the watchdog interval.
void Daemon::StartWatchdog() {
  auto timeout = notifier_.WatchdogTimeout();
  if (!timeout) return;
  watchdog_timer_.expires_after(*timeout / 2);
  watchdog_timer_.async_wait([this](boost::system::error_code error) {
    if (error || finished_) return;
    notifier_.Notify("WATCHDOG=1");
    StartWatchdog();
  });
}

}  // namespace smsupd
