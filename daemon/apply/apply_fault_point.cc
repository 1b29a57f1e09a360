#include "daemon/apply/apply_fault_point.h"

#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string>

namespace smsupd {

#if SMSUPD_TEST_FAULTS

void ReachedApplyStep(std::string_view step) {
  static const std::string stop_at = [] {
    const char* value = std::getenv(kFaultStopAtVariable);
    return std::string(value ? value : "");
  }();
  if (stop_at.empty() || stop_at != step) return;
  spdlog::warn("FAULT_STOP {}={}: stopping the process here", kFaultStopAtVariable, stop_at);
  spdlog::default_logger()->flush();
  ::raise(SIGSTOP);
}

#else

// A build without the hook (SMSUPD_TEST_FAULTS=OFF): the
// variable means nothing.
void ReachedApplyStep(std::string_view) {}

#endif

}  // namespace smsupd
