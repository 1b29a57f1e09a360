#include "daemon/apply/apply_plan.h"

#include "config/plan.h"

namespace smsupd {

ApplyPlan PlanApply(const config::Config& before, const config::Config& after,
                    const std::vector<config::FabricPort>& ports, Guid local_sm_port,
                    const Deadline& deadline) {
  config::ConfigPlan plan = config::PlanConfigChange(before, after, ports, local_sm_port, deadline);
  ApplyPlan result;
  result.changed = plan.changed;
  result.needs_restart = plan.needs_restart;
  result.ports_changed = plan.ports_changed;
  result.summary = plan.Summary();
  result.json = plan.ToJson();
  result.text = plan.Format();
  return result;
}

}  // namespace smsupd
