// smsupd [--config FILE] | --check FILE | --version
// Runs in the foreground, as systemd expects (Type=notify); never forks.
#include <CLI/CLI.hpp>
#include <iostream>
#include <unistd.h>

#include "config/commands.h"
#include "daemon/daemon.h"
#include "daemon/logging.h"
#include "daemon/notifier.h"

int main(int argc, char** argv) {
  CLI::App app{"smsupd: runs and supervises OpenSM from one YAML file"};
  std::string config_path = "/etc/smsupd/smsupd.yaml";
  std::string check_path;
  bool json = false;
  bool version = false;
  app.add_option("-c,--config", config_path, "config file")->capture_default_str();
  app.add_option("--check", check_path, "validate FILE and exit (0 valid, 1 invalid, 2 unreadable)");
  app.add_flag("--json", json, "with --check: print the result as JSON");
  app.add_flag("--version", version, "print the version and exit");
  CLI11_PARSE(app, argc, argv);

  if (version) {
    std::cout << "smsupd " << SMSUPD_VERSION << "\n";
    return 0;
  }
  if (!check_path.empty())
    return smsupd::config::RunValidateCommand(check_path, json, std::cout, std::cerr);

  smsupd::SetUpLogging(smsupd::DetectLogTarget(), "smsupd[" + std::to_string(::getpid()) + "]");
  smsupd::SystemdNotifier notifier;
  smsupd::DaemonOptions options;
  options.config_path = config_path;
  smsupd::Daemon daemon(options, notifier);
  return daemon.Run();
}
