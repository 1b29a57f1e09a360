// The Daemon's side of failover (issue 5): the policy's settings from the
// config, `smctl failover`, and the FailoverActuator actions on OpenSM's
// files and process. What the policy decides and why: docs/failover.md.
#include <spdlog/spdlog.h>

#include <set>

#include "daemon/daemon.h"

namespace smsupd {
namespace {

using control::MakeResponse;
using control::ResultCode;

// Policy events an operator should see as warnings in the journal.
bool IsWarning(const std::string& kind) {
  static const std::set<std::string> kWarnings = {
      "MASTER_LOST", "NO_MASTER", "DUAL_MASTER", "HANDOVER_FAILED", "TAKEOVER_FAILED",
      "FAILOVER_FAILED", "FAILOVER_ILLEGAL_EVENT", "OPENSM_HUNG", "OPENSM_STOP_TIMEOUT",
      "STOP_WITHOUT_STANDBY", "HANDOVER_SEND_FAILED", "HANDOVER_NOT_SENT", "PREEMPT_BLOCKED"};
  return kWarnings.contains(kind);
}

}  // namespace

policy::PolicyConfig Daemon::MakePolicyConfig() const {
  const config::SmSettings& sm = config_.sm;
  policy::PolicyConfig policy;
  policy.local_guid = port_guid_;
  policy.role = sm.role == config::Role::kMaster ? policy::Role::kMaster : policy::Role::kStandby;
  // sm.priority is the priority of this node's role; the other one keeps its
  // default (every node's YAML should use the same two: docs/failover.md).
  if (policy.role == policy::Role::kMaster)
    policy.master_priority = sm.priority;
  else
    policy.standby_priority = sm.priority;
  policy.preempt = sm.preempt;
  policy.hold_time = std::chrono::seconds(sm.failover.hold_time_s);
  policy.miss_threshold = sm.failover.miss_threshold;
  // The master's port answers but its SM does not: the SM process is dead
  // (its own smsupd hands over within milliseconds) or hung. Wait ~1.5 s
  // more before taking over: a master busy in a long sweep on a lossy
  // fabric must not be taken over.
  policy.silent_sm_extra_misses = 7;
  policy.handover_timeout = std::chrono::milliseconds(sm.failover.handover_timeout_ms);
  // The SMs smsupd expects: this port and the inventory's ports. Any other
  // SM (a switch-embedded one, a forgotten OpenSM) raises UNKNOWN_SM.
  policy.inventory.push_back(port_guid_);
  for (const auto& [host, guids] : config_.hosts)
    policy.inventory.insert(policy.inventory.end(), guids.begin(), guids.end());
  return policy;
}

FailoverTiming Daemon::MakeFailoverTiming() const {
  FailoverTiming timing;
  timing.poll_interval = std::chrono::milliseconds(config_.sm.failover.poll_interval_ms);
  timing.inventory_interval = std::chrono::milliseconds(config_.sm.failover.inventory_interval_ms);
  return timing;
}

std::optional<int> Daemon::CommandedPriority() const {
  return failover_ ? failover_->commanded_priority() : std::nullopt;
}

void Daemon::PollSoon() {
  if (failover_) failover_->PollSoon();
}

void Daemon::HandleFailover(const control::Request& request, Reply reply) {
  auto args = control::ParseFailoverArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  if (stopping_) return reply(MakeResponse(ResultCode::kError, "smsupd is stopping"));
  auto timeout = std::chrono::milliseconds(static_cast<long>(args->timeout_s * 1000));
  failover_->Failover(args->to, args->wait, timeout,
                      [reply = std::move(reply)](bool ok, const std::string& text,
                                                 nlohmann::json details) {
                        spdlog::log(ok ? spdlog::level::info : spdlog::level::warn,
                                    "FAILOVER_RESULT {}: {}", ok ? "ok" : "failed", text);
                        reply(MakeResponse(ok ? ResultCode::kSuccess : ResultCode::kError, text,
                                           std::move(details)));
                      });
}

// opensm.conf at the new priority, then SIGHUP: OpenSM re-reads sm_priority
// in the heavy sweep the signal forces, even as a STANDBY (docs/failover.md).
void Daemon::SetLocalPriority(int priority) {
  auto written = WriteRenderedConfig(config_, port_guid_, priority);
  if (!written) {
    spdlog::error("PRIORITY_NOT_SET sm_priority {}: {}", priority, written.error().message);
    return;
  }
  rendered_priority_ = priority;
  Status hup = supervisor_->Hangup();
  spdlog::info("PRIORITY_SET sm_priority {}{}", priority,
               hup ? "; OpenSM re-reads it (SIGHUP)" : "; OpenSM not running: " + hup.message());
  AddEvent("priority-set", {{"priority", priority}});
}

void Daemon::StartOpenSm(int priority, bool restart) {
  auto written = WriteRenderedConfig(config_, port_guid_, priority);
  if (written) rendered_priority_ = priority;
  else spdlog::error("PRIORITY_NOT_SET sm_priority {}: {}", priority, written.error().message);
  const auto state = supervisor_->Snapshot().state;
  if (restart && state != OpenSmSnapshot::State::kRunning) {
    // The dead OpenSM's IsSM bit must not outlive it (fabric.h): queued
    // behind the HANDOVER the same step sent, before OpenSM starts again.
    worker_->Submit([](Fabric& fabric) { return fabric.ClearStaleSmFlag(); },
                    [](Status cleared) {
                      if (!cleared) spdlog::warn("ISSM_NOT_CLEARED {}", cleared.message());
                    },
                    std::chrono::milliseconds(1000));
  }
  // Running, or waiting out the restart back-off: the supervisor starts it
  // with the file just written.
  if (state != OpenSmSnapshot::State::kStopped) return;
  Status started = supervisor_->Start();
  if (started) {
    SendReady();
    return;
  }
  if (!ready_sent_) {
    spdlog::critical("STARTUP_FAILED cannot start OpenSM: {}", started.message());
    exit_code_ = 1;
    FinishStop();
    return;
  }
  spdlog::error("OPENSM_START_FAILED {} ({})", started.message(), restart ? "restart" : "start");
  health_.Raise("OPENSM_START_FAILED", "OpenSM cannot be started: " + started.message());
}

void Daemon::StopOpenSm() {
  if (stopping_) {
    supervisor_->Stop([this] { FinishStop(); });
  } else {
    supervisor_->Stop([] {});
  }
}

void Daemon::Problem(const std::string& id, const std::string& text, bool raised) {
  if (raised)
    health_.Raise(id, text);
  else
    health_.Clear(id);
}

void Daemon::FailoverEvent(const std::string& kind, const std::string& text) {
  if (kind == "OPENSM_ADOPTED") return;  // the supervisor reports the adoption itself
  spdlog::log(IsWarning(kind) ? spdlog::level::warn : spdlog::level::info, "{} {}", kind, text);
  AddEvent(EventKindOf(kind), {{"text", text}});
}

void Daemon::Observed(const SubnetObservation& seen) {
  auto changes = CompareObservations(seen_, seen);
  seen_ = seen;
  // An adopted OpenSM keeps its priority: the file must say the same, or
  // the next heavy sweep (which re-reads it) would change it.
  if (auto priority = CommandedPriority(); priority && priority != rendered_priority_) {
    if (WriteRenderedConfig(config_, port_guid_, *priority)) rendered_priority_ = priority;
  }
  OnSubnetPoll(seen_, changes);
}

}  // namespace smsupd
