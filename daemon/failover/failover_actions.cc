// FailoverController: executing the policy's actions, reporting them, and
// answering `smctl failover`.
#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

#include "daemon/failover/failover_controller.h"
#include "common/control_arguments.h"
#include "common/control_wire.h"

namespace smsupd {
namespace {

using control::MakeResponse;
using control::ResultCode;

// A HANDOVER is one SMP; the deadline only guards a wedged MAD thread.
constexpr std::chrono::milliseconds kHandoverDeadline{1000};

std::string GuidOrEmpty(Guid guid) { return guid != 0 ? FormatGuid(guid) : ""; }

// OpenSM answers a HANDOVER before it changes state (osm_sminfo_rcv.c), so
// an answer says it accepted; before the local OpenSM is killed for it, the
// target's own SMInfo must say MASTER. The state change follows the answer
// on another of OpenSM's threads: within microseconds on an idle machine,
// but a loaded one can hold that thread between the two for milliseconds
// (seen: three reads back to back, all STANDBY, and the target MASTER a
// moment later, while the old master's OpenSM was resumed as a MASTER of
// 15). So the target is read until it says MASTER, for up to
// kMasterCheckTime: the first reads back to back, then kMasterCheckPause
// apart. The local OpenSM stays paused meanwhile.
constexpr std::chrono::milliseconds kMasterCheckTime{200};
constexpr std::chrono::milliseconds kMasterCheckPause{5};
constexpr int kBackToBackChecks = 3;

Status TargetIsMaster(Fabric& fabric, std::uint16_t lid) {
  const auto end = std::chrono::steady_clock::now() + kMasterCheckTime;
  std::string seen = "no answer";
  for (int reads = 1;; ++reads) {
    Result<SmInfo> sm = fabric.GetSmInfo(lid);
    if (sm && sm->state == SmState::kMaster) return Status::Ok();
    seen = sm ? std::string(SmStateName(sm->state)) : sm.error().message;
    if (std::chrono::steady_clock::now() >= end) break;
    if (reads >= kBackToBackChecks) std::this_thread::sleep_for(kMasterCheckPause);
  }
  return Error{"the HANDOVER was answered, but the target is not MASTER (" + seen + ") after " +
               std::to_string(kMasterCheckTime.count()) + " ms"};
}

}  // namespace

void FailoverController::Execute(const policy::Action& action) {
  using Kind = policy::Action::Kind;
  if (action.kind != Kind::kEmitEvent && action.kind != Kind::kRaiseProblem &&
      action.kind != Kind::kClearProblem)
    spdlog::info("FAILOVER_ACTION {}", action.Describe());
  switch (action.kind) {
    case Kind::kSetLocalPriority: local_sm_.SetPriority(action.priority); break;
    case Kind::kSendHandover: SendHandover(action.target_lid, action.target_guid, action.text); break;
    case Kind::kHandOverThenKill:
      SendHandover(action.target_lid, action.target_guid, action.text, /*then_kill=*/true);
      break;
    case Kind::kTakeOver: {
      const uint16_t lid = last_round_.local_port ? last_round_.local_port->lid : 0;
      SendHandover(lid, policy_.config().local_guid, action.text);
      break;
    }
    case Kind::kStartOpenSm: local_sm_.Start(action.priority, false); break;
    case Kind::kRestartOpenSm: local_sm_.Start(action.priority, true); break;
    case Kind::kStopOpenSm: local_sm_.Stop(); break;
    case Kind::kRefreshSms: InventoryNow(); break;
    case Kind::kRaiseProblem: Problem(action.id, action.text, true); break;
    case Kind::kClearProblem: Problem(action.id, action.text, false); break;
    case Kind::kEmitEvent:
      Report(action.id, action.text);
      if (action.id == "FAILOVER_REQUESTED" && waiting_ && !waiting_->wait)
        Answer(true, "failover started: " + action.text);
      if (action.id == "OPENSM_RESTART_REQUESTED" && waiting_ && !waiting_->wait)
        Answer(true, "restart started: " + action.text);
      break;
    case Kind::kReplyToOperator: Answer(action.ok, action.text); break;
  }
}

// SubnSet(SMInfo HANDOVER) carrying the local SM's SMInfo (its real port
// GUID, never 0: docs/opensm-behaviour.md "SMInfo Set: HANDOVER and the GUID-0 trap") to `lid`; to
// the local LID it is a take-over. `then_kill`: the local OpenSM is paused
// (SIGSTOP) before the HANDOVER and killed the moment the target reads
// MASTER: the new master's first sweep reads it as no SM at all, never as
// a MASTER of higher priority to hand straight back to. Without an answer
// it is resumed, and the next observation says so.
void FailoverController::SendHandover(std::uint16_t lid, Guid guid, const std::string& why,
                                      bool then_kill) {
  if (lid == 0) {
    Report("HANDOVER_NOT_SENT", "no LID for " + FormatGuid(guid) + ": " + why);
    direct_handover_failed_ = then_kill;
    PollSoon();
    return;
  }
  SmInfo payload;
  payload.guid = policy_.config().local_guid;
  payload.sm_key = sm_key_;
  payload.priority = policy_.commanded_priority().value_or(policy_.config().standby_priority);
  payload.state = SmState::kMaster;
  if (last_round_.local_sm) payload.act_count = last_round_.local_sm->act_count;
  spdlog::info("HANDOVER_SENDING to {} LID {}: {}", FormatGuid(guid), lid, why);
  // Frozen until the kill, the local OpenSM cannot answer the new master's
  // sweep as a MASTER of priority 15 (it would hand straight back to it).
  const bool paused = then_kill && local_sm_.PauseForHandover();
  worker_.Submit(
      [lid, payload, then_kill](Fabric& fabric) {
        Status sent = fabric.SendHandover(lid, payload);
        return sent && then_kill ? TargetIsMaster(fabric, lid) : sent;
      },
      [this, lid, guid, then_kill, paused](Status sent) {
        if (!sent) {
          spdlog::error("HANDOVER_SEND_FAILED to {} LID {}: {}", FormatGuid(guid), lid,
                        sent.message());
          Report("HANDOVER_SEND_FAILED", FormatGuid(guid) + ": " + sent.message());
          if (paused) local_sm_.ResumeAfterHandover();
          direct_handover_failed_ = then_kill;
        } else {
          if (then_kill) local_sm_.KillAfterHandover();
          timeline_.HandoverSent(std::chrono::system_clock::now());
        }
        PollSoon();
      },
      kHandoverDeadline);
}

void FailoverController::Failover(std::optional<Guid> to, bool wait,
                                  std::chrono::milliseconds timeout, Reply reply) {
  policy::OperatorCommand command{policy::OperatorCommand::Kind::kFailover, to};
  if (policy_.state() == policy::SupervisorState::kMaster)
    command.issued_on = policy::OperatorCommand::IssuedOn::kMaster;
  else if (policy_.state() == policy::SupervisorState::kStandby)
    command.issued_on = policy::OperatorCommand::IssuedOn::kStandby;
  Command(command, wait, timeout, std::move(reply));
}

void FailoverController::RestartOpenSm(bool force, bool wait, std::chrono::milliseconds timeout,
                                       Reply reply) {
  policy::OperatorCommand command{policy::OperatorCommand::Kind::kRestart, std::nullopt};
  command.force = force;
  Command(command, wait, timeout, std::move(reply));
}

// One operator command at a time; it is decided on the next round that takes
// a fresh inventory.
void FailoverController::Command(policy::OperatorCommand command, bool wait,
                                 std::chrono::milliseconds timeout, Reply reply) {
  if (waiting_) {
    reply(false, "a failover or restart is already in progress", nlohmann::json::object());
    return;
  }
  Guid from = latest_.master ? latest_.master->info.guid : 0;
  waiting_ = Waiting{std::move(reply), wait, from, clock_.Now()};
  reply_timer_.expires_after(timeout);
  reply_timer_.async_wait([this, timeout](boost::system::error_code error) {
    if (error || !waiting_) return;
    Answer(false, "no result within " + std::to_string(timeout.count()) +
                      " ms; the handover may still complete (see smctl events)");
  });
  pending_command_ = command;
  InventoryNow();
}

void FailoverController::Answer(bool ok, const std::string& text) {
  if (!waiting_) return;
  Waiting waiting = std::move(*waiting_);
  waiting_.reset();
  reply_timer_.cancel();
  Guid master = latest_.master ? latest_.master->info.guid : 0;
  // A success is decided on the master this port names (the watch); its
  // SMInfo poll may have missed that round (a sweeping master answers late),
  // which leaves no master in the picture but is the same master.
  if (ok && master == 0 && watch_) master = watch_->guid;
  if (policy_.state() == policy::SupervisorState::kMaster) master = policy_.config().local_guid;
  nlohmann::json details = {
      {"from", GuidOrEmpty(waiting.from)},
      {"to", ok && waiting.wait ? GuidOrEmpty(master) : ""},
      {"master", GuidOrEmpty(master)},
      {"elapsed_ms", std::chrono::duration_cast<std::chrono::milliseconds>(clock_.Now() -
                                                                          waiting.since)
                         .count()}};
  waiting.reply(ok, text, std::move(details));
}

void FailoverController::Problem(const std::string& id, const std::string& text, bool raised) {
  if (raised)
    reporter_.RaiseProblem(id, text);
  else
    reporter_.ClearProblem(id);
}

void FailoverController::RegisterCommands(control::CommandRouter& router) {
  router.Register("failover", [this](const control::Request& request, const control::Caller& caller,
                                     control::CommandHandler::Reply reply) {
    HandleFailover(request, caller, std::move(reply));
  });
  router.Register("restart-opensm", [this](const control::Request& request,
                                           const control::Caller& caller,
                                           control::CommandHandler::Reply reply) {
    HandleRestart(request, caller, std::move(reply));
  });
}

void FailoverController::HandleRestart(const control::Request& request,
                                       const control::Caller& caller,
                                       control::CommandHandler::Reply reply) {
  spdlog::info("RESTART_OPENSM_COMMAND by uid {} (pid {})", caller.uid, caller.pid);
  auto args = control::ParseRestartOpenSmArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  if (stop_requested_) return reply(MakeResponse(ResultCode::kError, "smsupd is stopping"));
  auto timeout = std::chrono::milliseconds(static_cast<long>(args->timeout_s * 1000));
  RestartOpenSm(args->force, args->wait, timeout,
                [reply = std::move(reply)](bool ok, const std::string& text, nlohmann::json details) {
                  spdlog::log(ok ? spdlog::level::info : spdlog::level::warn,
                              "RESTART_OPENSM_RESULT {}: {}", ok ? "ok" : "failed", text);
                  reply(MakeResponse(ok ? ResultCode::kSuccess : ResultCode::kError, text,
                                     std::move(details)));
                });
}

void FailoverController::HandleFailover(const control::Request& request,
                                        const control::Caller& caller,
                                        control::CommandHandler::Reply reply) {
  spdlog::info("FAILOVER_COMMAND by uid {} (pid {})", caller.uid, caller.pid);
  auto args = control::ParseFailoverArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  if (stop_requested_) return reply(MakeResponse(ResultCode::kError, "smsupd is stopping"));
  auto timeout = std::chrono::milliseconds(static_cast<long>(args->timeout_s * 1000));
  Failover(args->to, args->wait, timeout,
           [reply = std::move(reply)](bool ok, const std::string& text, nlohmann::json details) {
             spdlog::log(ok ? spdlog::level::info : spdlog::level::warn, "FAILOVER_RESULT {}: {}",
                         ok ? "ok" : "failed", text);
             reply(MakeResponse(ok ? ResultCode::kSuccess : ResultCode::kError, text,
                                std::move(details)));
           });
}

control::FailoverWire FailoverController::Wire() const {
  control::FailoverWire wire;
  wire.state = policy::SupervisorStateName(policy_.state());
  wire.commanded_priority = policy_.commanded_priority().value_or(-1);
  wire.counters = policy_.counters();
  return wire;
}

}  // namespace smsupd
