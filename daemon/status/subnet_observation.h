// The subnet as the last failover watch round saw it (the SMs, the master,
// the local port), kept between rounds so that `smctl status` answers
// without sending a MAD, and the changes between two such pictures that
// become events (CompareObservations: pure, unit-tested). Filled by
// FailoverController (daemon/failover), read by StatusBoard.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/fabric/fabric.h"

namespace smsupd {

struct SubnetObservation {
  bool valid = false;  // false until the first poll answered
  std::string port_error;  // the local port could not be read
  PortInfo local_port;
  std::optional<SmInfo> local_sm;     // absent: OpenSM does not answer (yet)
  std::optional<SmRecord> master;     // absent: the local port knows no master
  std::vector<SmRecord> sms;          // from the SA; empty without a master
  // This round's answered SMInfo polls and how long each took (metrics).
  std::vector<std::chrono::microseconds> sminfo_poll_times;
};

// A change worth an event: `kind` is the event kind (sm-state-changed,
// master-changed), `log_id` the stable log ID, `details` for the event.
struct ObservedChange {
  std::string kind;
  std::string log_id;
  std::string text;
  nlohmann::json details;
};

std::vector<ObservedChange> CompareObservations(const SubnetObservation& before,
                                                const SubnetObservation& after);

}  // namespace smsupd
