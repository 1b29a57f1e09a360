// smsupd [--config FILE] | --check FILE | --port-guid FILE | --stop-post | --version
// Runs in the foreground, as systemd expects (Type=notify); never forks.
// Exit statuses of the daemon: daemon/daemon.h (kExitConfigInvalid...).
#include <CLI/CLI.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "common/guid.h"
#include "config/commands.h"
#include "config/validator.h"
#include "daemon/daemon.h"
#include "daemon/logging.h"
#include "daemon/notifier.h"
#include "daemon/stop_post.h"
#include "daemon/twin/twin_probe.h"
#include "daemon/twin/twin_runner.h"

namespace {

// `smsupd --port-guid FILE`: FILE's sm.port_guid as Debian names its
// opensm@GUID.service instances ("0x" and 16 lower-case hex digits, as
// `ibstat -p` prints), for the unit's ExecStartPre=. Exit 0 printed; 1 the
// file is invalid or sets no sm.port_guid; 2 it cannot be read. Only a
// one-line reason on stderr: the daemon itself reports the diagnostics.
int PrintPortGuid(const std::string& file) {
  smsupd::config::ValidationOutcome outcome = smsupd::config::LoadAndValidate(file);
  if (outcome.unreadable || !outcome.config) {
    std::cerr << file << ": " << (outcome.unreadable ? "cannot be read" : "invalid")
              << " (smsupd --check " << file << " says why)\n";
    return outcome.unreadable ? smsupd::config::kExitUnreadable : smsupd::config::kExitInvalid;
  }
  if (!outcome.config->sm.port_guid) {
    std::cerr << file << ": sets no sm.port_guid\n";
    return smsupd::config::kExitInvalid;
  }
  std::cout << smsupd::FormatGuid(*outcome.config->sm.port_guid) << "\n";
  return smsupd::config::kExitValid;
}

}  // namespace

int main(int argc, char** argv) {
  // The twin plan's helper modes (docs/twin.md), run by the daemon itself
  // and never by hand: parsed before the CLI so they stay out of --help.
  if (argc >= 2 && std::string(argv[1]) == "--twin-probe") return smsupd::twin::RunTwinProbe(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "--twin-run") return smsupd::twin::RunTwinRunner(argc, argv);
  CLI::App app{"smsupd: runs and supervises OpenSM from one YAML file"};
  std::string config_path = "/etc/smsupd/smsupd.yaml";
  std::string check_path;
  std::string port_guid_path;
  bool json = false;
  bool version = false;
  bool stop_post = false;
  app.add_option("-c,--config", config_path, "config file")->capture_default_str();
  app.add_option("--check", check_path, "validate FILE and exit (0 valid, 1 invalid, 2 unreadable)");
  app.add_option("--port-guid", port_guid_path,
                 "print FILE's sm.port_guid and exit (0 printed, 1 invalid or none, 2 unreadable)");
  app.add_flag("--json", json, "with --check: print the result as JSON");
  app.add_flag("--stop-post", stop_post,
               "the units' ExecStopPost=: stop what smsupd left in its cgroup unless systemd "
               "starts smsupd again");
  app.add_flag("--version", version, "print the version and exit");
  CLI11_PARSE(app, argc, argv);

  if (version) {
    std::cout << "smsupd " << SMSUPD_VERSION << "\n";
    return 0;
  }
  if (stop_post) return smsupd::RunStopPost(std::cerr);
  if (!port_guid_path.empty()) return PrintPortGuid(port_guid_path);
  if (!check_path.empty())
    return smsupd::config::RunValidateCommand(check_path, json, std::cout, std::cerr);

  smsupd::SetUpLogging(smsupd::DetectLogTarget(), "smsupd[" + std::to_string(::getpid()) + "]");
  // Room for the control socket's 1,024 connections besides OpenSM's pipes
  // and the MAD device: the soft limit is often 1,024.
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 4096 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = std::min<rlim_t>(4096, files.rlim_max);
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  smsupd::SystemdNotifier notifier;
  smsupd::DaemonOptions options;
  options.config_path = config_path;
  char self[4096];
  ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (length > 0) options.twin_executable.assign(self, static_cast<std::size_t>(length));
  smsupd::Daemon daemon(options, notifier);
  return daemon.Run();
}
