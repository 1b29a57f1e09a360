// The failover policy's settings and the watch timing, built from the
// config in force. Free functions: the config decides, nothing else.
#pragma once

#include "common/guid.h"
#include "config/config.h"
#include "daemon/failover/failover_controller.h"
#include "policies/policy_config.h"

namespace smsupd {

// `local_port`: the port this node's OpenSM binds.
policy::PolicyConfig MakePolicyConfig(const config::Config& config, Guid local_port);
FailoverTiming MakeFailoverTiming(const config::Config& config);

}  // namespace smsupd
