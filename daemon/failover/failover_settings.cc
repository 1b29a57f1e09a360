#include "daemon/failover/failover_settings.h"

#include <cstdlib>

namespace smsupd {
namespace {

// The MASTER_NOT_SWEEPING rule waits for OpenSM's "SUBNET UP" line (an INFO
// line, log_flags bit 0x02), read as soon as it is written (force_log_flush
// TRUE, smsupd's default). sm.opensm.options that hide the line turn the
// rule off: it would take every new master for a hung one.
bool SubnetUpIsLogged(const config::OpenSmSettings& opensm) {
  constexpr unsigned long kLogInfo = 0x02;
  if (auto it = opensm.options.find("force_log_flush"); it != opensm.options.end() && it->second != "TRUE")
    return false;
  if (auto it = opensm.options.find("log_flags"); it != opensm.options.end())
    return (std::strtoul(it->second.c_str(), nullptr, 0) & kLogInfo) != 0;
  return true;
}

}  // namespace

policy::PolicyConfig MakePolicyConfig(const config::Config& config, Guid local_port) {
  const config::SmSettings& sm = config.sm;
  policy::PolicyConfig policy;
  policy.local_guid = local_port;
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
  // ... and a master silent since an answer in its sweep (computing routes
  // under OpenSM's lock) a second longer than its own smsupd's hang rule.
  policy.busy_master_silence = policy.local_silent_timeout + std::chrono::seconds(1);
  policy.handover_timeout = std::chrono::milliseconds(sm.failover.handover_timeout_ms);
  policy.master_sweep_timeout = SubnetUpIsLogged(sm.opensm)
                                    ? std::chrono::milliseconds(sm.failover.master_sweep_timeout_ms)
                                    : std::chrono::milliseconds(0);
  // The SMs smsupd expects: this port and the inventory's ports. Any other
  // SM (a switch-embedded one, a forgotten OpenSM) raises UNKNOWN_SM.
  policy.inventory.push_back(local_port);
  for (const auto& [host, guids] : config.hosts)
    policy.inventory.insert(policy.inventory.end(), guids.begin(), guids.end());
  return policy;
}

FailoverTiming MakeFailoverTiming(const config::Config& config) {
  FailoverTiming timing;
  timing.poll_interval = std::chrono::milliseconds(config.sm.failover.poll_interval_ms);
  timing.inventory_interval = std::chrono::milliseconds(config.sm.failover.inventory_interval_ms);
  return timing;
}

}  // namespace smsupd
