#include "config/config.h"

namespace smsupd::config {

const char* RoleName(Role role) { return role == Role::kMaster ? "master" : "standby"; }

const char* MembershipName(Membership membership) {
  switch (membership) {
    case Membership::kFull:
      return "full";
    case Membership::kLimited:
      return "limited";
    case Membership::kBoth:
      return "both";
  }
  return "limited";
}

const char* TwinGateName(TwinGate gate) {
  switch (gate) {
    case TwinGate::kOff: return "off";
    case TwinGate::kAdvisory: return "advisory";
    case TwinGate::kRequired: return "required";
  }
  return "off";
}

const char* PortsKeywordName(PortsKeyword keyword) {
  switch (keyword) {
    case PortsKeyword::kAll:
      return "ALL";
    case PortsKeyword::kAllCas:
      return "ALL_CAS";
    case PortsKeyword::kAllSwitches:
      return "ALL_SWITCHES";
    case PortsKeyword::kAllRouters:
      return "ALL_ROUTERS";
    case PortsKeyword::kSelf:
      return "SELF";
  }
  return "ALL";
}

}  // namespace smsupd::config
