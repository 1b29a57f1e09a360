// What the tests that run the whole Daemon in-process (on the fake fabric)
// share: a notifier that tells systemd nothing, and a stand-in OpenSM that
// idles until SIGTERM and ignores SIGHUP.
#pragma once

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/notifier.h"

namespace smsupd::in_process {

class QuietNotifier : public Notifier {
 public:
  void Notify(std::string_view) override {}
  std::optional<std::chrono::microseconds> WatchdogTimeout() const override { return std::nullopt; }
  bool StopIsARestart() const override { return false; }
};

// Writes <dir>/fake-opensm (mode 0755) and returns its path.
inline std::string WriteIdleOpenSm(const std::string& dir) {
  const std::string path = dir + "/fake-opensm";
  std::ofstream(path) << "#!/bin/sh\ntrap 'exit 0' TERM\ntrap '' HUP\n"
                      << "while :; do sleep 1 & wait $!; done\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace smsupd::in_process
