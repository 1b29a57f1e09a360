#include "daemon/status/event_kinds.h"

#include <array>
#include <cctype>

namespace smsupd {

std::string EventKindOf(std::string_view log_id) {
  std::string kind(log_id);
  for (char& c : kind) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
  return kind;
}

spdlog::level::level_enum LogLevelOf(std::string_view log_id) {
  static constexpr std::array<std::string_view, 14> kWarnings = {
      "MASTER_LOST", "NO_MASTER", "DUAL_MASTER", "HANDOVER_FAILED", "TAKEOVER_FAILED",
      "FAILOVER_FAILED", "FAILOVER_ILLEGAL_EVENT", "OPENSM_HUNG", "OPENSM_STOP_TIMEOUT",
      "STOP_WITHOUT_STANDBY", "HANDOVER_SEND_FAILED", "HANDOVER_NOT_SENT", "PREEMPT_BLOCKED",
      "MASTER_NOT_SWEEPING"};
  for (std::string_view warning : kWarnings)
    if (warning == log_id) return spdlog::level::warn;
  return spdlog::level::info;
}

}  // namespace smsupd
