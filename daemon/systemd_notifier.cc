#include <systemd/sd-daemon.h>

#include <string>

#include "daemon/notifier.h"

namespace smsupd {

void SystemdNotifier::Notify(std::string_view message) {
  // unset_environment = 0: the watchdog and later messages still need it.
  // OpenSM never sees NOTIFY_SOCKET: the child's environment drops it.
  sd_notify(0, std::string(message).c_str());
}

std::optional<std::chrono::microseconds> SystemdNotifier::WatchdogTimeout() const {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec);
}

}  // namespace smsupd
