// `smctl failover [--to GUID]`: a controlled handover with no moment without
// a master. The MASTER's smsupd sends the HANDOVER to the target itself and,
// once the target has answered it (and so turns MASTER), kills the local
// OpenSM at once (Action::kHandOverThenKill): the new master's first sweep
// is the only sweep, and it finds no second MASTER to hand back to. The
// reply is sent once the new master's sweep has reached this node; the
// killed OpenSM starts again as a standby once that sweep is over. Letting OpenSM hand over by
// itself (priority 0 and a SIGHUP: the heavy sweep that follows finds a
// higher SM and hands over to it, osm_state_mgr.c) costs a whole sweep of
// the old master before the new master's: twice the floor on 2,592 HCAs.
// That yield remains the path when the HANDOVER is not answered, and for a
// claim: run on a STANDBY, the command becomes a claim that the master's
// smsupd serves by yielding.
#include "policies/failover_policy.h"
#include "policies/priority_plan.h"

namespace smsupd::policy {
namespace {

std::string SmList(const std::vector<SmEntry>& sms) {
  std::string text;
  for (const SmEntry& sm : sms)
    text += (text.empty() ? "" : ", ") + FormatGuid(sm.guid) + " " + SmStateName(sm.state);
  return text.empty() ? "none" : text;
}

}  // namespace

bool FailoverPolicy::OnFailoverCommand() {
  const std::optional<Guid> target = command_ ? command_->target : std::nullopt;
  const auto issued_on = command_ ? command_->issued_on : OperatorCommand::IssuedOn::kUnknown;
  if (state_ == SupervisorState::kMaster && issued_on == OperatorCommand::IssuedOn::kStandby &&
      (!target || *target == config_.local_guid)) {
    const std::string done = "this SM became MASTER before the command was decided; nothing to do";
    Emit(Action::EmitEvent("FAILOVER_DONE_ALREADY", done));
    Emit(Action::Reply(true, done));
    return false;
  }
  if (state_ == SupervisorState::kStandby && issued_on == OperatorCommand::IssuedOn::kMaster) {
    const auto master = RemoteMaster();
    const bool reached = master && (!target || master->guid == *target);
    const std::string text = "this SM was no longer MASTER when the command was decided (master: " +
                             (master ? FormatGuid(master->guid) : std::string("none")) +
                             "); nothing done";
    Emit(Action::EmitEvent(reached ? "FAILOVER_DONE_ALREADY" : "FAILOVER_REFUSED", text));
    Emit(Action::Reply(reached, text));
    return false;
  }
  if (state_ == SupervisorState::kStandby) return StartClaim(target);
  if (state_ != SupervisorState::kMaster) {
    const std::string why = std::string("this SM is ") + SupervisorStateName(state_) +
                            ": no failover now";
    Emit(Action::EmitEvent("FAILOVER_REFUSED", why));
    Emit(Action::Reply(false, why));
    return false;
  }
  std::optional<SmEntry> chosen;
  if (auto refusal = FailoverRefusal(target, chosen)) {
    Emit(Action::EmitEvent("FAILOVER_REFUSED", *refusal));
    Emit(Action::Reply(false, *refusal));
    return false;
  }
  handover_target_ = chosen;
  handover_reason_ = "operator failover";
  operator_waiting_ = true;
  direct_handover_ = chosen->lid != 0;  // no LID to send it to: the yield
  // No flip back: a preempting master that was moved away on purpose stops
  // claiming until it is master again.
  parked_ = config_.preempt && config_.role == Role::kMaster;
  Emit(Action::EmitEvent("FAILOVER_REQUESTED", "handing over to " + FormatGuid(chosen->guid)));
  return true;
}

// Failover run on a STANDBY: it claims mastership at master_priority - 1
// (still below the master, so OpenSM does nothing) and the master's smsupd,
// seeing the claim, yields. Without a running smsupd on the master nothing
// happens and the claim times out.
bool FailoverPolicy::StartClaim(const std::optional<Guid>& target) {
  std::string why;
  const auto master = RemoteMaster();
  const auto& port = observation_->local_port;
  if (target && *target != config_.local_guid)
    why = "this SM is a STANDBY: it can only take mastership itself; run the command on the "
          "master to hand over to " + FormatGuid(*target);
  else if (!master)
    why = "no MASTER to take over from";
  else if (!port || !port->active())
    why = "the local port is not Active";
  else if (operator_claim_)
    why = "a failover is already in progress";
  if (!why.empty()) {
    Emit(Action::EmitEvent("FAILOVER_REFUSED", why));
    Emit(Action::Reply(false, why));
    return false;
  }
  operator_claim_ = true;
  deadline_ = now_ + config_.handover_timeout + config_.handover_timeout;
  Emit(Action::EmitEvent("FAILOVER_REQUESTED", "claiming mastership from " +
                                                   FormatGuid(master->guid)));
  return true;
}

// Why the handover cannot be done, or nullopt with `chosen` set to the SM
// OpenSM will hand over to.
std::optional<std::string> FailoverPolicy::FailoverRefusal(
    const std::optional<Guid>& target, std::optional<SmEntry>& chosen) const {
  const auto best = BestStandby(view_, config_.local_guid);
  if (target) {
    if (*target == config_.local_guid) return FormatGuid(*target) + " is this SM, already MASTER";
    const SmEntry* entry = nullptr;
    for (const SmEntry& sm : view_)
      if (sm.guid == *target) entry = &sm;
    if (entry == nullptr)
      return FormatGuid(*target) + " is not an SM of this subnet (SMs: " + SmList(view_) + ")";
    if (entry->state != SmState::kStandby)
      return FormatGuid(*target) + " is " + SmStateName(entry->state) + ", not a STANDBY";
    if (best && best->guid != *target)
      return "OpenSM hands over to the highest-ranked standby " + FormatGuid(best->guid) +
             " (priority " + std::to_string(best->priority) + "), not to " +
             FormatGuid(*target) + " (priority " + std::to_string(entry->priority) + ")";
  }
  if (!best) return "no healthy STANDBY SM to hand over to (SMs: " + SmList(view_) + ")";
  chosen = best;
  return std::nullopt;
}

// smctl restart-opensm / reload --restart: the subnet keeps a master
// whenever it can. A MASTER hands over to the best standby first and stops
// its OpenSM only once the fabric shows the new master (OnHandoverComplete);
// the exit then starts it again as a standby, and preempt decides whether
// it takes mastership back. Any other running SM restarts in place. A MASTER
// with no standby refuses unless forced: the subnet would have no master
// until OpenSM is back.
bool FailoverPolicy::OnRestartCommand() {
  const bool force = command_ && command_->force;
  std::string refusal;
  switch (state_) {
    case SupervisorState::kMaster:
      if (auto best = BestStandby(view_, config_.local_guid)) {
        restarting_ = restart_waiting_ = true;
        ++counters_["restart"];
        handover_target_ = best;
        handover_reason_ = "restart";
        Emit(Action::EmitEvent("OPENSM_RESTART_REQUESTED",
                               "handing over to " + FormatGuid(best->guid) + " first"));
        return true;
      }
      if (!force)
        refusal = "no healthy STANDBY SM to hand over to (SMs: " + SmList(view_) +
                  "): restarting the MASTER's OpenSM would leave the subnet without a master; "
                  "use --force to restart anyway";
      break;
    case SupervisorState::kNotActive:
    case SupervisorState::kDiscovering:
    case SupervisorState::kStandby:
      // The policy has not caught up with an OpenSM that is MASTER already:
      // an in-place restart would leave the subnet without a master.
      if (LocalState() == SmState::kMaster)
        refusal = "the local OpenSM has just become MASTER; try again in a moment";
      break;
    default:
      refusal = std::string("this SM is ") + SupervisorStateName(state_) + ": no restart now";
  }
  if (!refusal.empty()) {
    Emit(Action::EmitEvent("OPENSM_RESTART_REFUSED", refusal));
    Emit(Action::Reply(false, refusal));
    return false;
  }
  restarting_ = restart_waiting_ = true;
  ++counters_["restart"];
  Emit(Action::EmitEvent("OPENSM_RESTART_REQUESTED",
                         state_ == SupervisorState::kMaster
                             ? "restarting the MASTER's OpenSM in place (forced, no standby)"
                             : std::string("restarting OpenSM in place (") +
                                   SupervisorStateName(state_) + ")"));
  Emit(Action::StopOpenSm());
  return false;
}

// The reply of a restart command, once the restarted OpenSM has settled.
void FailoverPolicy::ReplyWhenRestarted(SupervisorState next) {
  if (!restart_waiting_ || restarting_) return;
  if (next == SupervisorState::kStandby || next == SupervisorState::kMaster) {
    restart_waiting_ = false;
    Emit(Action::EmitEvent("OPENSM_RESTARTED_SETTLED",
                           std::string("restarted OpenSM is ") + SupervisorStateName(next)));
    Emit(Action::Reply(true, std::string("OpenSM restarted; this SM is ") +
                                 SupervisorStateName(next)));
  } else if (next == SupervisorState::kStopping || next == SupervisorState::kStopped) {
    restart_waiting_ = false;
    Emit(Action::Reply(false, "smsupd is stopping: OpenSM is not restarted"));
  }
}

}  // namespace smsupd::policy
