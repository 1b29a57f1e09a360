// What the tests that run the whole Daemon in-process (on the fake fabric)
// share: a notifier that tells systemd nothing, a stand-in OpenSM that
// idles until SIGTERM and ignores SIGHUP, and the teardown.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/daemon.h"
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

// Stops the daemon (waiting up to 30 s), kills the OpenSM its pid file
// names if one is left, and removes `dir`.
inline void StopAndRemove(std::unique_ptr<Daemon>& daemon, std::future<int>& exit_code, const std::string& dir) {
  daemon->RequestStop();
  if (exit_code.valid()) {
    EXPECT_EQ(exit_code.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  }
  daemon.reset();
  std::ifstream pid_file(dir + "/state/opensm.pid");
  std::string line;
  if (std::getline(pid_file, line) && line.rfind("pid=", 0) == 0) ::kill(std::stoi(line.substr(4)), SIGKILL);
  std::filesystem::remove_all(dir);
}

}  // namespace smsupd::in_process
