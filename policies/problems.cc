#include "policies/problems.h"

#include <algorithm>

namespace smsupd::policy {
namespace {

std::string GuidList(const std::vector<Guid>& guids) {
  std::string text;
  for (Guid g : guids) text += (text.empty() ? "" : ", ") + FormatGuid(g);
  return text;
}

std::vector<Guid> GuidsInState(const std::vector<SmEntry>& sms, SmState state) {
  std::vector<Guid> out;
  for (const SmEntry& sm : sms)
    if (sm.state == state) out.push_back(sm.guid);
  return out;
}

// OpenSM decides between SMs of equal priority by GUID alone: smsupd's plan
// then no longer decides who is master. Only the top priority matters.
std::optional<std::string> EqualTopPriority(const std::vector<SmEntry>& sms) {
  int top = -1;
  std::vector<Guid> at_top;
  for (const SmEntry& sm : sms) {
    if (sm.state == SmState::kNotActive) continue;
    if (sm.priority > top) { top = sm.priority; at_top.clear(); }
    if (sm.priority == top) at_top.push_back(sm.guid);
  }
  if (at_top.size() < 2) return std::nullopt;
  return "SMs " + GuidList(at_top) + " share the top priority " + std::to_string(top) +
         "; OpenSM picks the lower GUID";
}

std::optional<std::string> UnknownSms(const ProblemInputs& in) {
  if (in.inventory.empty()) return std::nullopt;
  std::vector<Guid> unknown;
  for (const SmEntry& sm : in.sms) {
    if (sm.guid == in.local_guid) continue;
    if (std::find(in.inventory.begin(), in.inventory.end(), sm.guid) == in.inventory.end())
      unknown.push_back(sm.guid);
  }
  if (unknown.empty()) return std::nullopt;
  return "SM " + GuidList(unknown) + " is not in the inventory (switch-embedded SM?)";
}

void DetectRedundancyProblems(const ProblemInputs& in, ProblemSet& out) {
  if (in.dual_master_settled)
    out[kProblemDualMaster] = "MASTERs: " + GuidList(GuidsInState(in.sms, SmState::kMaster));
  if (in.no_master_settled) out[kProblemNoMaster] = "no SM of the subnet is MASTER";
  if (in.local_state == SmState::kMaster && in.sms_known) {
    bool standby = false;
    for (const SmEntry& sm : in.sms)
      standby |= sm.guid != in.local_guid && sm.state == SmState::kStandby;
    if (!standby) out[kProblemNoStandby] = "no STANDBY SM: no redundancy";
  }
}

// Conditions that already carry their own grace period when detected.
bool SelfTimed(const std::string& id) {
  return id == kProblemDualMaster || id == kProblemNoMaster || id == kProblemActCountStalled;
}

}  // namespace

ProblemSet DetectProblems(const ProblemInputs& in) {
  ProblemSet out;
  DetectRedundancyProblems(in, out);
  if (auto text = EqualTopPriority(in.sms)) out[kProblemEqualPriority] = *text;
  if (auto text = UnknownSms(in)) out[kProblemUnknownSm] = *text;
  if (in.sm_key_mismatch)
    out[kProblemSmKeyMismatch] =
        "OpenSM logged ERR 2F18: an SM with another SM_Key ignores this one (split brain)";
  if (in.act_count_stalled)
    out[kProblemActCountStalled] =
        "master " + FormatGuid(in.watched_master.value_or(0)) +
        " answers SMInfo but its ActCount does not advance";
  if ((in.opensm_running || in.opensm_waits_for_port) &&
      (!in.local_port || in.local_port->port_state == 1))
    out[kProblemLocalPortDown] = in.local_port ? "local port is Down"
                                               : "local port does not answer PortInfo";
  return out;
}

Actions ProblemTracker::Update(const ProblemSet& detected, TimePoint now) {
  ProblemSet next;
  std::map<std::string, TimePoint> seen;
  for (const auto& [id, text] : detected) {
    auto it = first_seen_.find(id);
    seen[id] = it == first_seen_.end() ? now : it->second;
    if (raised_.count(id) || SelfTimed(id) || now - seen[id] >= settle_) next[id] = text;
  }
  first_seen_ = std::move(seen);
  for (const auto& [id, text] : sticky_) next[id] = text;
  Actions actions;
  for (const auto& [id, text] : raised_)
    if (!next.count(id)) actions.push_back(Action::ClearProblem(id));
  for (const auto& [id, text] : next)
    if (!raised_.count(id)) actions.push_back(Action::RaiseProblem(id, text));
  raised_ = std::move(next);
  return actions;
}

void ProblemTracker::SetSticky(const std::string& id, const std::string& text) {
  sticky_[id] = text;
}

void ProblemTracker::ClearSticky(const std::string& id) { sticky_.erase(id); }

}  // namespace smsupd::policy
