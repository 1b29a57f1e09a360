#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
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

namespace {

struct BusUnref {
  void operator()(sd_bus* bus) const { sd_bus_flush_close_unref(bus); }
};
struct MessageUnref {
  void operator()(sd_bus_message* message) const { sd_bus_message_unref(message); }
};

}  // namespace

std::string SystemdJobType() {
  char* unit = nullptr;
  if (sd_pid_get_unit(::getpid(), &unit) < 0 || unit == nullptr) return "";
  std::unique_ptr<char, decltype(&std::free)> unit_name(unit, &std::free);
  sd_bus* raw = nullptr;
  if (sd_bus_open_system(&raw) < 0) return "";
  std::unique_ptr<sd_bus, BusUnref> bus(raw);
  sd_bus_set_method_call_timeout(bus.get(), 500000);
  char* path = nullptr;
  if (sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path) < 0) return "";
  std::unique_ptr<char, decltype(&std::free)> unit_path(path, &std::free);
  sd_bus_error error = SD_BUS_ERROR_NULL;
  sd_bus_message* reply = nullptr;
  int got = sd_bus_get_property(bus.get(), "org.freedesktop.systemd1", path,
                                "org.freedesktop.systemd1.Unit", "Job", &error, &reply, "(uo)");
  sd_bus_error_free(&error);
  if (got < 0) return "";
  std::unique_ptr<sd_bus_message, MessageUnref> job(reply);
  uint32_t id = 0;
  const char* job_path = nullptr;
  if (sd_bus_message_read(job.get(), "(uo)", &id, &job_path) < 0 || id == 0) return "";
  char* type = nullptr;
  got = sd_bus_get_property_string(bus.get(), "org.freedesktop.systemd1", job_path,
                                   "org.freedesktop.systemd1.Job", "JobType", &error, &type);
  sd_bus_error_free(&error);
  if (got < 0 || type == nullptr) return "";
  std::string result = type;
  std::free(type);
  return result;
}

bool SystemdNotifier::StopIsARestart() const {
  if (std::getenv("INVOCATION_ID") == nullptr) return false;  // not started by systemd
  const std::string type = SystemdJobType();
  return type == "restart" || type == "try-restart";
}

}  // namespace smsupd
