// One apply in progress (config_applier.h has the flow). Internal to the
// applier's files.
#pragma once

#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "daemon/apply/apply_decision.h"
#include "daemon/apply/fabric_verification.h"
#include "daemon/apply/apply_plan.h"
#include "daemon/apply/config_applier.h"
#include "daemon/apply/twin_verdict.h"

namespace smsupd {

struct ApplyRun {
  ApplyRequest request;
  ConfigApplier::Reply reply;  // empty once answered (without --wait: right after install)
  config::Config next;
  ApplyPlan plan;
  // The twin gate: its mode for this apply (kOff: none ran), true while it
  // runs (nothing is saved or installed yet), and its verdict's JSON.
  config::TwinGate twin_mode = config::TwinGate::kOff;
  bool gating = false;
  nlohmann::json twin = nullptr;
  std::string twin_warning;  // advisory: the disagreement the reply reports
  std::vector<std::string> restart_needed;  // startup-only options still pending
  bool restarting = false;                  // OpenSM is restarted for this apply
  std::string restart_refusal;              // why it was not (no standby, ...)
  bool unchanged = false;                   // same YAML (and cabling file) as the current generation
  std::uint64_t generation = 0;             // the generation this apply installs
  std::uint64_t previous = 0;               // the generation that was current before
  std::string hash;
  std::chrono::milliseconds timeout{0};
  Clock::TimePoint deadline;        // the whole verification
  Clock::TimePoint sweep_deadline;  // this round's wait for SUBNET UP
  int attempt = 1;
  std::uint64_t subnet_up_baseline = 0;
  bool sweep_seen = false;
  bool partition_error = false;
  std::string partition_error_line;
  bool local_master = true;
  Guid master_port = 0;
  std::unique_ptr<boost::asio::steady_timer> timer;
  FabricVerification verification;
  bool timed_out = false;
  ApplyStep step = ApplyStep::kSkipped;
  // On an auto-rollback: the run that failed, whose caller gets the reply.
  std::shared_ptr<ApplyRun> failed;
};

}  // namespace smsupd
