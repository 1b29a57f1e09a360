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

#include <thread>

#include <nlohmann/json.hpp>

#include "daemon/daemon.h"
#include "daemon/notifier.h"
#include "smctl/control_client.h"

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

// One request to the daemon's socket, as smctl sends it; a client error
// comes back as an error response.
inline control::Response Call(const std::string& socket, const std::string& command, nlohmann::json arguments) {
  smctl::ControlClient client(socket, std::chrono::seconds(60));
  auto response = client.Call({control::kProtocolVersion, command, std::move(arguments)});
  if (!response) return control::MakeResponse(control::ResultCode::kError, client.error().message);
  return *response;
}

// Waits up to 20 s until `socket` answers `status`.
inline bool WaitForSocket(const std::string& socket) {
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < end) {
    if (std::filesystem::exists(socket) && Call(socket, "status", nlohmann::json::object()).ok()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // polling a condition, not synchronising on time
  }
  return false;
}

}  // namespace smsupd::in_process
