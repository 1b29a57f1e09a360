// smsupd [--config FILE] | --check FILE | --version
// Runs in the foreground, as systemd expects (Type=notify); never forks.
#include <CLI/CLI.hpp>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

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
  smsupd::Daemon daemon(options, notifier);
  return daemon.Run();
}
