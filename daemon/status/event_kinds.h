// Stable log IDs as event kinds, and the journal level of each announced
// ID. One place, so that `smctl events`, the journal and the catalogue in
// docs/log-messages.md agree.
#pragma once

#include <string>
#include <string_view>

#include <spdlog/common.h>

namespace smsupd {

// A stable log ID as an event kind: OPENSM_EXITED -> "opensm-exited".
std::string EventKindOf(std::string_view log_id);

// The journal level of an announced log ID (Reporter::Announce): warn for
// the failover events an operator must look at (MASTER_LOST, DUAL_MASTER,
// HANDOVER_FAILED, ...), info for the rest.
spdlog::level::level_enum LogLevelOf(std::string_view log_id);

}  // namespace smsupd
