#include "policies/action.h"

#include <utility>

namespace smsupd::policy {

Action Action::SetLocalPriority(int priority) {
  Action a;
  a.kind = Kind::kSetLocalPriority;
  a.priority = priority;
  return a;
}

Action Action::SendHandover(Guid guid, std::uint16_t lid, std::string why) {
  Action a;
  a.kind = Kind::kSendHandover;
  a.target_guid = guid;
  a.target_lid = lid;
  a.text = std::move(why);
  return a;
}

Action Action::HandOverThenKill(Guid guid, std::uint16_t lid, std::string why) {
  Action a = SendHandover(guid, lid, std::move(why));
  a.kind = Kind::kHandOverThenKill;
  return a;
}

Action Action::TakeOver(std::string why) {
  Action a;
  a.kind = Kind::kTakeOver;
  a.text = std::move(why);
  return a;
}

Action Action::StartOpenSm(int priority) {
  Action a;
  a.kind = Kind::kStartOpenSm;
  a.priority = priority;
  return a;
}

Action Action::RestartOpenSm(int priority) {
  Action a;
  a.kind = Kind::kRestartOpenSm;
  a.priority = priority;
  return a;
}

Action Action::StopOpenSm() {
  Action a;
  a.kind = Kind::kStopOpenSm;
  return a;
}

Action Action::RefreshSms() {
  Action a;
  a.kind = Kind::kRefreshSms;
  return a;
}

Action Action::RaiseProblem(std::string id, std::string text) {
  Action a;
  a.kind = Kind::kRaiseProblem;
  a.id = std::move(id);
  a.text = std::move(text);
  return a;
}

Action Action::ClearProblem(std::string id) {
  Action a;
  a.kind = Kind::kClearProblem;
  a.id = std::move(id);
  return a;
}

Action Action::EmitEvent(std::string kind, std::string text) {
  Action a;
  a.kind = Kind::kEmitEvent;
  a.id = std::move(kind);
  a.text = std::move(text);
  return a;
}

Action Action::Reply(bool ok, std::string text) {
  Action a;
  a.kind = Kind::kReplyToOperator;
  a.ok = ok;
  a.text = std::move(text);
  return a;
}

std::string Action::Describe() const {
  switch (kind) {
    case Kind::kSetLocalPriority:
      return "SetLocalPriority(" + std::to_string(priority) + ")";
    case Kind::kSendHandover:
      return "SendHandover(" + FormatGuid(target_guid) + ", lid " +
             std::to_string(target_lid) + ": " + text + ")";
    case Kind::kHandOverThenKill:
      return "HandOverThenKill(" + FormatGuid(target_guid) + ", lid " +
             std::to_string(target_lid) + ": " + text + ")";
    case Kind::kTakeOver: return "TakeOver(" + text + ")";
    case Kind::kStartOpenSm: return "StartOpenSm(" + std::to_string(priority) + ")";
    case Kind::kRestartOpenSm: return "RestartOpenSm(" + std::to_string(priority) + ")";
    case Kind::kStopOpenSm: return "StopOpenSm()";
    case Kind::kRefreshSms: return "RefreshSms()";
    case Kind::kRaiseProblem: return "RaiseProblem(" + id + ": " + text + ")";
    case Kind::kClearProblem: return "ClearProblem(" + id + ")";
    case Kind::kEmitEvent: return "EmitEvent(" + id + ": " + text + ")";
    case Kind::kReplyToOperator:
      return std::string("Reply(") + (ok ? "ok" : "refused") + ": " + text + ")";
  }
  return "?";
}

}  // namespace smsupd::policy
