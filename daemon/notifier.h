// The service manager's notify channel behind an interface.
// The contract follows systemd's own daemons: READY=1 only when really ready,
// RELOADING=1 while a reload runs, STOPPING=1 on every exit path, WATCHDOG=1
// from the event loop itself so that a hung loop is caught.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace smsupd {

class Notifier {
 public:
  virtual ~Notifier() = default;
  // One sd_notify(3) message such as "READY=1\nSTATUS=...". Failures are
  // ignored: a daemon started outside systemd has no one to tell.
  virtual void Notify(std::string_view message) = 0;
  // The interval at which WATCHDOG=1 must arrive, when the service manager
  // asked for one (WatchdogSec=); nullopt otherwise.
  virtual std::optional<std::chrono::microseconds> WatchdogTimeout() const = 0;
  // True when the stop under way is the first half of a restart of smsupd
  // itself (`systemctl restart smsupd`): OpenSM then keeps running, without a
  // gap, for the next smsupd to adopt. False when unknown.
  virtual bool StopIsARestart() const = 0;
};

// Talks to systemd through libsystemd's sd_notify(); a no-op without
// NOTIFY_SOCKET in the environment.
class SystemdNotifier : public Notifier {
 public:
  void Notify(std::string_view message) override;
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override;
  // Asks systemd over D-Bus for the job of this service's unit: "restart"
  // (systemd runs a restart job as a stop, then patches it to a start).
  bool StopIsARestart() const override;
};

// The type of the job systemd runs on the calling process's unit now
// ("stop", "restart", ...), or "" (no job, not under systemd, no answer
// within half a second). Asked over D-Bus.
std::string SystemdJobType();

// Calls notifier.Notify("STOPPING=1") when it goes out of scope, so every
// return path of the daemon's main says so.
class StoppingGuard {
 public:
  explicit StoppingGuard(Notifier& notifier) : notifier_(notifier) {}
  ~StoppingGuard() { notifier_.Notify("STOPPING=1"); }
  StoppingGuard(const StoppingGuard&) = delete;
  StoppingGuard& operator=(const StoppingGuard&) = delete;

 private:
  Notifier& notifier_;
};

}  // namespace smsupd
