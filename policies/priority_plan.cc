#include "policies/priority_plan.h"

#include <algorithm>

namespace smsupd::policy {

bool OutRanks(int priority_a, Guid guid_a, int priority_b, Guid guid_b) {
  return priority_a > priority_b || (priority_a == priority_b && guid_a < guid_b);
}

bool OutRanks(const SmEntry& a, const SmEntry& b) {
  return OutRanks(a.priority, a.guid, b.priority, b.guid);
}

std::optional<SmEntry> ElectionWinner(const std::vector<SmEntry>& sms) {
  std::optional<SmEntry> best;
  for (const SmEntry& sm : sms) {
    if (sm.state == SmState::kNotActive) continue;
    if (!best || OutRanks(sm, *best)) best = sm;
  }
  return best;
}

std::optional<SmEntry> BestStandby(const std::vector<SmEntry>& sms, Guid exclude) {
  std::optional<SmEntry> best;
  for (const SmEntry& sm : sms) {
    if (sm.state != SmState::kStandby || sm.guid == exclude) continue;
    if (!best || OutRanks(sm, *best)) best = sm;
  }
  return best;
}

int ClaimPriority(const PolicyConfig& config) { return config.master_priority - 1; }

std::optional<int> HighestRankingBelow(int wanted, Guid local, int master_priority,
                                       Guid master_guid) {
  for (int p = std::min(wanted, kMaxPriority); p >= 0; --p) {
    if (!OutRanks(p, local, master_priority, master_guid)) return p;
  }
  return std::nullopt;
}

int StandbyPriority(const PolicyConfig& config, bool claiming,
                    const std::optional<SmEntry>& master) {
  const int wanted = claiming ? ClaimPriority(config) : config.standby_priority;
  // A master at the yield priority is handing over: outranking it is the
  // point, and following it down would make its heavy sweep find nobody.
  if (!master || master->guid == config.local_guid || master->priority == kYieldPriority)
    return wanted;
  return HighestRankingBelow(wanted, config.local_guid, master->priority, master->guid)
      .value_or(kYieldPriority);
}

int StartPriority(const PolicyConfig& config, const std::optional<SmEntry>& master) {
  if (master && master->guid != config.local_guid)
    return StandbyPriority(config, /*claiming=*/false, master);
  return config.role == Role::kMaster ? config.master_priority : config.standby_priority;
}

int ReturningPriority(const PolicyConfig& config) {
  return std::max(config.standby_priority - 1, kYieldPriority + 1);
}

std::string CheckPolicyConfig(const PolicyConfig& config) {
  if (config.master_priority > kMaxPriority || config.standby_priority < 1)
    return "priorities must lie in 1..15";
  if (ClaimPriority(config) <= config.standby_priority)
    return "master priority must exceed standby priority by at least 2 "
           "(master - 1 is the claim priority of a returning master)";
  if (config.miss_threshold < 1) return "miss threshold must be at least 1";
  if (config.local_guid == 0) return "local port GUID unknown";
  return "";
}

}  // namespace smsupd::policy
