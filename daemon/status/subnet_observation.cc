#include "daemon/status/subnet_observation.h"

namespace smsupd {
namespace {

std::string Describe(const std::optional<SmRecord>& master) {
  if (!master) return "none";
  return FormatGuid(master->info.guid) + " (LID " + std::to_string(master->lid) + ", priority " +
         std::to_string(master->info.priority) + ")";
}

}  // namespace

std::vector<ObservedChange> CompareObservations(const SubnetObservation& before,
                                                const SubnetObservation& after) {
  std::vector<ObservedChange> changes;
  auto state_of = [](const SubnetObservation& o) {
    return o.local_sm ? std::string(SmStateName(o.local_sm->state)) : std::string("NOTACTIVE");
  };
  std::string old_state = before.valid ? state_of(before) : "NOTACTIVE";
  std::string new_state = state_of(after);
  if (old_state != new_state) {
    changes.push_back({"sm-state-changed", "SM_STATE_CHANGED",
                       "local SM " + old_state + " -> " + new_state,
                       {{"from", old_state}, {"to", new_state}}});
  }
  Guid old_master = before.master ? before.master->info.guid : 0;
  Guid new_master = after.master ? after.master->info.guid : 0;
  if (old_master != new_master) {
    nlohmann::json details = {{"from", old_master ? FormatGuid(old_master) : ""},
                              {"to", new_master ? FormatGuid(new_master) : ""}};
    if (after.master) details["lid"] = after.master->lid;
    changes.push_back({"master-changed", "MASTER_CHANGED",
                       "master " + Describe(before.master) + " -> " + Describe(after.master),
                       details});
  }
  return changes;
}

}  // namespace smsupd
