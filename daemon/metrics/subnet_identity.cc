#include "daemon/metrics/subnet_identity.h"

namespace smsupd {

SubnetIdentity SubnetIdentityOf(const config::Config& config) {
  SubnetIdentity identity;
  // The validator has normalised the option to "0x" + 16 hex digits.
  auto prefix = config.sm.opensm.options.find("subnet_prefix");
  identity.subnet_prefix = prefix != config.sm.opensm.options.end() ? prefix->second : kDefaultSubnetPrefix;
  identity.subnet = config.metrics.subnet.empty() ? identity.subnet_prefix : config.metrics.subnet;
  return identity;
}

}  // namespace smsupd
