// sm.failover:, generations: and verify: sections of smsupd.yaml: settings
// the daemon itself uses at run time. None of them is an OpenSM option, so
// none is rendered into opensm.conf.
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

// One integer key of a section with its range; `target` receives the value.
struct IntegerKey {
  std::string_view key;
  std::int64_t min;
  std::int64_t max;
  int* target;
};

void ReadIntegerKeys(const YAML::Node& node, const std::string& path,
                     const std::vector<IntegerKey>& keys, ValidationState& state) {
  std::vector<std::string_view> allowed;
  for (const IntegerKey& key : keys) allowed.push_back(key.key);
  MappingView view(node, path, allowed, state.sink);
  if (!view.valid()) return;
  for (const IntegerKey& key : keys)
    if (const YAML::Node* value = view.Get(key.key))
      if (auto number = ReadInteger(*value, view.PathOf(key.key), key.min, key.max, state.sink))
        *key.target = static_cast<int>(*number);
}

// OpenSM's own standby takes over after (polling_retry_number + 1) x
// sminfo_polling_timeout of silence: 5 x 2000 ms as rendered (renderer.cc).
constexpr int kOpenSmOwnTakeoverMs = 10000;

}  // namespace

void ReadFailoverSection(const YAML::Node& node, ValidationState& state) {
  FailoverSettings& failover = state.config.sm.failover;
  ReadIntegerKeys(node, "sm.failover",
                  {{"poll_interval_ms", 50, 1000, &failover.poll_interval_ms},
                   {"miss_threshold", 1, 20, &failover.miss_threshold},
                   {"inventory_interval_ms", 500, 60000, &failover.inventory_interval_ms},
                   {"hold_time_s", 0, 3600, &failover.hold_time_s},
                   {"handover_timeout_ms", 1000, kMaxHandoverTimeoutMs, &failover.handover_timeout_ms},
                   {"master_sweep_timeout_ms", 5000, 600000, &failover.master_sweep_timeout_ms}},
                  state);
  int detection_ms = failover.poll_interval_ms * failover.miss_threshold;
  if (detection_ms >= kOpenSmOwnTakeoverMs)
    state.sink.Warning(node, "sm.failover",
                       "poll_interval_ms x miss_threshold = " + std::to_string(detection_ms) +
                           " ms: OpenSM's own standby takes over after " +
                           std::to_string(kOpenSmOwnTakeoverMs) + " ms, before smsupd decides",
                       "keep poll_interval_ms x miss_threshold well below 10000 (default 150 x 3)");
}

void ReadGenerationsSection(const YAML::Node& node, ValidationState& state) {
  ReadIntegerKeys(node, "generations", {{"keep", 2, 1000, &state.config.generations.keep}}, state);
}

void ReadVerifySection(const YAML::Node& node, ValidationState& state) {
  VerifySettings& verify = state.config.verify;
  ReadIntegerKeys(
      node, "verify",
      {{"sample_ports", 0, 100000, &verify.sample_ports}, {"timeout_s", 1, 600, &verify.timeout_s}},
      state);
}

// apply.twin: off | advisory | required; apply.twin_readiness_interval_s:
// 0 (off) or 60..86400.
void ReadApplySection(const YAML::Node& node, ValidationState& state) {
  ApplySettings& apply = state.config.apply;
  MappingView view(node, "apply", {"twin", "twin_readiness_interval_s"}, state.sink);
  if (!view.valid()) return;
  if (const YAML::Node* twin = view.Get("twin"))
    if (auto value = ReadChoice(*twin, "apply.twin", {"off", "advisory", "required"}, state.sink))
      apply.twin = *value == "required" ? TwinGate::kRequired
                   : *value == "advisory" ? TwinGate::kAdvisory : TwinGate::kOff;
  if (const YAML::Node* interval = view.Get("twin_readiness_interval_s"))
    if (auto value = ReadInteger(*interval, "apply.twin_readiness_interval_s", 0, kMaxTwinReadinessIntervalS,
                                 state.sink)) {
      if (*value != 0 && *value < kMinTwinReadinessIntervalS)
        state.sink.Error(*interval, "apply.twin_readiness_interval_s",
                         "a readiness check every " + std::to_string(*value) + " s is too often (each runs OpenSM "
                         "on a simulated copy of the fabric)",
                         "0 (off) or " + std::to_string(kMinTwinReadinessIntervalS) + ".." +
                             std::to_string(kMaxTwinReadinessIntervalS));
      else
        apply.twin_readiness_interval_s = static_cast<int>(*value);
    }
}

}  // namespace smsupd::config
