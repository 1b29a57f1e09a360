// The plan of an apply, as the pipeline and `smctl plan` consume it: a
// summary of config/plan.h's ConfigPlan (what changes, which ports' P_Key
// tables, restart or SIGHUP) in its three forms (journal line, JSON, table).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/deadline.h"
#include "common/guid.h"
#include "config/config.h"
#include "config/pkey_tables.h"

namespace smsupd {

struct ApplyPlan {
  bool changed = false;
  bool needs_restart = false;
  int ports_changed = 0;
  std::string summary;      // one line for logs, events and history
  nlohmann::json json = nlohmann::json::object();  // ConfigPlan::ToJson()
  std::string text;         // ConfigPlan::Format(), for smctl plan
};

// `ports`: the end ports last seen on the fabric (may be empty).
// Past `deadline` it throws DeadlineExceeded (a request's job).
ApplyPlan PlanApply(const config::Config& before, const config::Config& after,
                    const std::vector<config::FabricPort>& ports, Guid local_sm_port,
                    const Deadline& deadline = Deadline::Never());

}  // namespace smsupd
