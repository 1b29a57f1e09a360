// FailoverController: executing the policy's actions and answering
// `smctl failover`.
#include <spdlog/spdlog.h>

#include "daemon/failover_controller.h"

namespace smsupd {
namespace {

using SteadyNow = std::chrono::steady_clock;

// A HANDOVER is one SMP; the deadline only guards a wedged MAD thread.
constexpr std::chrono::milliseconds kHandoverDeadline{1000};

std::string GuidOrEmpty(Guid guid) { return guid != 0 ? FormatGuid(guid) : ""; }

}  // namespace

void FailoverController::Execute(const policy::Action& action) {
  using Kind = policy::Action::Kind;
  if (action.kind != Kind::kEmitEvent && action.kind != Kind::kRaiseProblem &&
      action.kind != Kind::kClearProblem)
    spdlog::info("FAILOVER_ACTION {}", action.Describe());
  switch (action.kind) {
    case Kind::kSetLocalPriority: actuator_.SetLocalPriority(action.priority); break;
    case Kind::kSendHandover: SendHandover(action.target_lid, action.target_guid, action.text); break;
    case Kind::kTakeOver: {
      const uint16_t lid = last_round_.local_port ? last_round_.local_port->lid : 0;
      SendHandover(lid, policy_.config().local_guid, action.text);
      break;
    }
    case Kind::kStartOpenSm: actuator_.StartOpenSm(action.priority, false); break;
    case Kind::kRestartOpenSm: actuator_.StartOpenSm(action.priority, true); break;
    case Kind::kStopOpenSm: actuator_.StopOpenSm(); break;
    case Kind::kRaiseProblem: actuator_.Problem(action.id, action.text, true); break;
    case Kind::kClearProblem: actuator_.Problem(action.id, action.text, false); break;
    case Kind::kEmitEvent:
      actuator_.FailoverEvent(action.id, action.text);
      if (action.id == "FAILOVER_REQUESTED" && waiting_ && !waiting_->wait)
        Answer(true, "failover started: " + action.text);
      break;
    case Kind::kReplyToOperator: Answer(action.ok, action.text); break;
  }
}

// SubnSet(SMInfo HANDOVER) carrying the local SM's SMInfo (its real port
// GUID, never 0: FABRIC.md) to `lid`; to the local LID it is a take-over.
void FailoverController::SendHandover(std::uint16_t lid, Guid guid, const std::string& why) {
  if (lid == 0) {
    actuator_.FailoverEvent("HANDOVER_NOT_SENT", "no LID for " + FormatGuid(guid) + ": " + why);
    return;
  }
  SmInfo payload;
  payload.guid = policy_.config().local_guid;
  payload.sm_key = sm_key_;
  payload.priority = policy_.commanded_priority().value_or(policy_.config().standby_priority);
  payload.state = SmState::kMaster;
  if (last_round_.local_sm) payload.act_count = last_round_.local_sm->act_count;
  spdlog::info("HANDOVER_SENDING to {} LID {}: {}", FormatGuid(guid), lid, why);
  worker_.Submit(
      [lid, payload](Fabric& fabric) { return fabric.SendHandover(lid, payload); },
      [this, lid, guid](Status sent) {
        if (!sent) {
          spdlog::error("HANDOVER_SEND_FAILED to {} LID {}: {}", FormatGuid(guid), lid,
                        sent.message());
          actuator_.FailoverEvent("HANDOVER_SEND_FAILED", FormatGuid(guid) + ": " + sent.message());
        }
        PollSoon();
      },
      kHandoverDeadline);
}

void FailoverController::Failover(std::optional<Guid> to, bool wait,
                                  std::chrono::milliseconds timeout, Reply reply) {
  if (waiting_) {
    reply(false, "a failover is already in progress", nlohmann::json::object());
    return;
  }
  Guid from = latest_.master ? latest_.master->info.guid : 0;
  waiting_ = Waiting{std::move(reply), wait, from, SteadyNow::now()};
  reply_timer_.expires_after(timeout);
  reply_timer_.async_wait([this, timeout](boost::system::error_code error) {
    if (error || !waiting_) return;
    Answer(false, "no result within " + std::to_string(timeout.count()) +
                      " ms; the handover may still complete (see smctl events)");
  });
  pending_command_ = policy::OperatorCommand{policy::OperatorCommand::Kind::kFailover, to};
  InventoryNow();
}

void FailoverController::Answer(bool ok, const std::string& text) {
  if (!waiting_) return;
  Waiting waiting = std::move(*waiting_);
  waiting_.reset();
  reply_timer_.cancel();
  Guid master = latest_.master ? latest_.master->info.guid : 0;
  if (policy_.state() == policy::SupervisorState::kMaster) master = policy_.config().local_guid;
  nlohmann::json details = {
      {"from", GuidOrEmpty(waiting.from)},
      {"to", ok && waiting.wait ? GuidOrEmpty(master) : ""},
      {"master", GuidOrEmpty(master)},
      {"elapsed_ms", std::chrono::duration_cast<std::chrono::milliseconds>(SteadyNow::now() -
                                                                          waiting.since)
                         .count()}};
  waiting.reply(ok, text, std::move(details));
}

}  // namespace smsupd
