// smctl: the operator's command line for smsupd (docs/smctl.md). One exit
// code table for every command (smctl/exit_codes.h); with --json one
// envelope per command (smctl/json_envelope.h), usage errors included.
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/guid.h"
#include "config/commands.h"
#include "config/import_command.h"
#include "smctl/commands.h"
#include "smctl/control_client.h"
#include "smctl/exit_codes.h"
#include "smctl/instance.h"
#include "smctl/json_envelope.h"
#include "smctl/terminal_text.h"
#include "common/control_arguments.h"

namespace {

using smsupd::smctl::GlobalOptions;

struct Choices {
  GlobalOptions global;
  std::string instance;
  std::uint64_t since = 0;
  bool follow = false;
  smsupd::control::ReloadArguments reload;
  smsupd::control::RollbackArguments rollback;
  std::uint64_t rollback_generation = 0;
  double rollback_timeout_s = 0;
  bool exit_code = false;
  bool twin = false;
  smsupd::control::FailoverArguments failover;
  std::string failover_to;
  smsupd::control::RestartOpenSmArguments restart;
  std::string file;
  std::string out_dir;
  smsupd::control::WhyArguments why;
  smsupd::control::CablingArguments cabling;
  std::string cabling_output;
  smsupd::smctl::PortsOptions ports;
  smsupd::config::ImportOptions import;
};

// --json is accepted before or after the subcommand.
void AddJsonFlag(CLI::App& app, Choices& choices) {
  app.add_flag("--json", choices.global.json, "print the wire form (JSON) instead of a table");
}

void AddCommands(CLI::App& app, Choices& choices) {
  AddJsonFlag(*app.add_subcommand("status", "this node, its OpenSM, the subnet's SMs, health"),
              choices);
  auto* events = app.add_subcommand("events", "what happened (OpenSM, SMs, master, config)");
  events->add_option("--since", choices.since, "only events after sequence number N")
      ->check(CLI::NonNegativeNumber);
  events->add_flag("--follow,-f", choices.follow, "keep streaming new events");
  AddJsonFlag(*events, choices);
  auto* reload = app.add_subcommand("reload", "re-read, validate and apply the config file");
  reload->add_flag("--restart", choices.reload.restart,
                   "allow an OpenSM restart if a startup-only option changed (the MASTER hands "
                   "over first)");
  reload->add_flag("--force", choices.reload.force,
                   "with --restart: restart even the only SM (the subnet has no master meanwhile)");
  reload->add_flag("--wait", choices.reload.wait, "return once applied and verified");
  reload->add_flag("--twin", choices.reload.twin,
                   "run the config on the twin first; apply only if it agrees with the plan (exit 7 if not)");
  reload->add_option("--timeout", choices.reload.timeout_s,
                     "seconds the verification may take (default: verify.timeout_s)")
      ->check(CLI::Range(0.001, 86400.0));
  AddJsonFlag(*reload, choices);
  auto* plan = app.add_subcommand("plan", "what a reload of FILE (default: the config file) would change");
  plan->add_option("FILE", choices.file, "the smsupd.yaml to compare with the applied generation");
  plan->add_flag("--exit-code", choices.exit_code,
                 "exit 1 when something would change, 5 when refused (like git diff)");
  plan->add_flag("--twin", choices.twin,
                 "run the change with the installed OpenSM on a simulated copy of the live fabric "
                 "and compare the P_Key and forwarding tables (root; docs/twin.md)");
  AddJsonFlag(*plan, choices);
  AddJsonFlag(*app.add_subcommand("history", "applied config generations"), choices);
  auto* rollback = app.add_subcommand("rollback", "re-apply an earlier generation (default: the previous)");
  rollback->add_option("GEN", choices.rollback_generation, "generation number (smctl history)")
      ->check(CLI::PositiveNumber);
  rollback->add_flag("--wait", choices.rollback.wait, "return once verified (or failed)");
  rollback->add_option("--timeout", choices.rollback_timeout_s,
                       "seconds the verification may take (default: verify.timeout_s)")
      ->check(CLI::Range(0.001, 86400.0));
  AddJsonFlag(*rollback, choices);
  auto* failover = app.add_subcommand("failover", "hand mastership to another SM, without a gap");
  failover->add_option("--to", choices.failover_to, "port GUID of the SM that must become master")
      ->check([](const std::string& text) {
        return smsupd::ParseGuid(text) ? std::string() : "not a port GUID (0x + 16 hex digits)";
      });
  failover->add_flag("--wait", choices.failover.wait, "return once the new master is in place");
  failover->add_option("--timeout", choices.failover.timeout_s,
                       "seconds the daemon may take (default 15)")
      ->check(CLI::Range(0.001, 3600.0));
  AddJsonFlag(*failover, choices);
  auto* restart = app.add_subcommand(
      "restart-opensm", "restart the local OpenSM; the MASTER hands over to a standby first");
  restart->add_flag("--wait", choices.restart.wait,
                    "return once the restarted OpenSM is STANDBY or MASTER");
  restart->add_flag("--force", choices.restart.force,
                    "restart even with no standby (the subnet has no master meanwhile)");
  restart->add_option("--timeout", choices.restart.timeout_s,
                      "seconds the daemon may take (default 30)")
      ->check(CLI::Range(0.001, 3600.0));
  AddJsonFlag(*restart, choices);
  auto* validate = app.add_subcommand("validate", "check a config file (offline)");
  validate->add_option("FILE", choices.file, "the smsupd.yaml to check")->required();
  AddJsonFlag(*validate, choices);
  auto* render = app.add_subcommand("render", "write opensm.conf and partitions.conf (offline)");
  render->add_option("FILE", choices.file, "the smsupd.yaml to render")->required();
  render->add_option("--out", choices.out_dir, "directory to write into")->required();
  AddJsonFlag(*render, choices);
  auto* import = app.add_subcommand("import", "an OpenSM setup -> smsupd.yaml, read as OpenSM reads it (offline)");
  import->add_option("--opensm-conf", choices.import.opensm_conf, "OpenSM's opensm.conf");
  import->add_option("--partitions", choices.import.partitions, "OpenSM's partitions.conf");
  import->add_option("--node-name-map", choices.import.node_name_map, "OpenSM's node-name map (names -> hosts)");
  import->add_option("--out", choices.import.out_file, "write the YAML to FILE (default: stdout)");
  import->add_flag("--check", choices.import.check,
                   "prove every port gets the same P_Key table from the YAML as from the files (exit 1 if not)");
  auto* why = app.add_subcommand("why", "can two end ports talk over RDMA, and in which partitions");
  why->add_option("A", choices.why.a, "host name, NodeDescription, port GUID (0x + 16 hex) or LID")->required();
  why->add_option("B", choices.why.b, "the other end, named the same ways")->required();
  AddJsonFlag(*why, choices);
  auto* cabling = app.add_subcommand("cabling", "the discovered links against the declared cabling");
  auto* export_flag = cabling->add_flag("--export", choices.cabling.export_csv,
                                        "print today's links as the cabling CSV (a port map to start from)");
  cabling->add_option("--output,-o", choices.cabling_output, "with --export: write the CSV to FILE")
      ->needs(export_flag);
  AddJsonFlag(*cabling, choices);
  auto* ports = app.add_subcommand("ports", "every end port and switch port: state, link rate, error counters");
  ports->add_flag("--problems", choices.ports.problems_only, "only what needs a person, worst first");
  ports->add_option("NAME", choices.ports.names, "host, switch, port name, NodeDescription, GUID or LID");
  AddJsonFlag(*ports, choices);
  AddJsonFlag(*app.add_subcommand("metrics", "the daemon's Prometheus metrics (text format)"), choices);
  AddJsonFlag(*app.add_subcommand("version", "smctl's and the daemon's versions"), choices);
  AddJsonFlag(*app.add_subcommand("list-commands", "the commands the daemon knows"), choices);
}

int Dispatch(const CLI::App& app, const Choices& choices) {
  const GlobalOptions& global = choices.global;
  using namespace smsupd::smctl;
  if (app.got_subcommand("status")) return RunStatus(global, std::cout, std::cerr);
  if (app.got_subcommand("events"))
    return RunEvents(global, choices.since, choices.follow, std::cout, std::cerr);
  if (app.got_subcommand("reload")) {
    smsupd::control::ReloadArguments args = choices.reload;
    args.timeout_given = app.get_subcommand("reload")->count("--timeout") > 0;
    return RunReload(global, args, std::cout, std::cerr);
  }
  if (app.got_subcommand("plan"))
    return RunPlan(global, choices.file, choices.exit_code, choices.twin, std::cout, std::cerr);
  if (app.got_subcommand("history")) return RunHistory(global, std::cout, std::cerr);
  if (app.got_subcommand("rollback")) {
    smsupd::control::RollbackArguments args = choices.rollback;
    if (choices.rollback_generation > 0) args.generation = choices.rollback_generation;
    if (choices.rollback_timeout_s > 0)
      args.timeout_ms = static_cast<std::int64_t>(choices.rollback_timeout_s * 1000);
    return RunRollback(global, args, std::cout, std::cerr);
  }
  if (app.got_subcommand("failover")) {
    smsupd::control::FailoverArguments args = choices.failover;
    if (!choices.failover_to.empty()) args.to = smsupd::ParseGuid(choices.failover_to);
    return RunFailover(global, args, std::cout, std::cerr);
  }
  if (app.got_subcommand("restart-opensm"))
    return RunRestartOpenSm(global, choices.restart, std::cout, std::cerr);
  if (app.got_subcommand("validate")) return RunValidate(global, choices.file, std::cout, std::cerr);
  if (app.got_subcommand("render"))
    return RunRender(global, choices.file, choices.out_dir, std::cout, std::cerr);
  if (app.got_subcommand("import")) {
    if (choices.import.opensm_conf.empty() && choices.import.partitions.empty()) {
      std::cerr << "smctl import: give --opensm-conf FILE and/or --partitions FILE; run smctl import --help\n";
      return kExitUsage;
    }
    return smsupd::config::RunImportCommand(choices.import, std::cout, std::cerr);
  }
  if (app.got_subcommand("why")) return RunWhy(global, choices.why, std::cout, std::cerr);
  if (app.got_subcommand("cabling"))
    return RunCabling(global, choices.cabling, choices.cabling_output, std::cout, std::cerr);
  if (app.got_subcommand("ports")) return RunPorts(global, choices.ports, std::cout, std::cerr);
  if (app.got_subcommand("metrics")) return RunMetrics(global, std::cout, std::cerr);
  if (app.got_subcommand("version")) return RunVersion(global, std::cout, std::cerr);
  if (app.got_subcommand("list-commands")) return RunListCommands(global, std::cout, std::cerr);
  return kExitUsage;
}

// --json anywhere before a "--": a usage error is then an envelope too (the
// parse that failed cannot say whether it saw the flag).
bool JsonRequested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

// The command a failed command line named, for the envelope ("" if none).
std::string CommandNamed(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const CLI::App* command : app.get_subcommands({}))
      if (command->get_name() == argv[i]) return argv[i];
  return "";
}

int UsageError(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  if (!JsonRequested(argc, argv)) return app.exit(error) == 0 ? smsupd::smctl::kExitOk : smsupd::smctl::kExitUsage;
  using namespace smsupd::smctl;
  std::string command = CommandNamed(app, argc, argv);
  if (dynamic_cast<const CLI::CallForVersion*>(&error)) {
    CommandOutcome outcome;
    outcome.text = VersionLine();
    outcome.data = OwnVersion();
    return Finish(true, "version", outcome, std::cout, std::cerr);
  }
  if (error.get_exit_code() == 0) return app.exit(error);  // --help: the usage text, exit 0
  std::string message = error.what();
  message += "; run smctl " + (command.empty() ? "" : command + " ") + "--help";
  return Finish(true, command, Failed(kExitUsage, "usage", message), std::cout, std::cerr);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"smctl: control smsupd, the subnet-manager supervisor"};
  app.name("smctl");
  Choices choices;
  if (const char* socket = std::getenv("SMSUPD_SOCKET"); socket && *socket)
    choices.global.socket = socket;
  auto* socket = app.add_option("--socket", choices.global.socket,
                                "daemon control socket (env SMSUPD_SOCKET; default /run/smsupd/smsupd.sock)");
  app.add_option("-i,--instance", choices.instance,
                 "the daemon of smsupd@NAME.service: the socket named by /etc/smsupd/NAME.yaml")
      ->check([](const std::string& name) {
        return smsupd::smctl::ValidInstanceName(name) ? std::string()
                                                      : "not an instance name (letters, digits, _ . : -)";
      })
      ->excludes(socket);
  AddJsonFlag(app, choices);
  // smctl's own version, without a daemon (`smctl version` asks it too).
  app.set_version_flag("--version", smsupd::smctl::VersionLine(), "print smctl's version and exit");
  app.require_subcommand(1);
  // Global options are accepted after the command too (`smctl status
  // --socket PATH`): the commands, made below, inherit this.
  app.fallthrough();
  AddCommands(app, choices);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "successful" parse errors (0); every real one maps to 2.
    return UsageError(app, e, argc, argv);
  }
  if (!choices.instance.empty()) {
    const char* config_dir = std::getenv("SMSUPD_CONFIG_DIR");
    choices.global.socket = smsupd::smctl::InstanceSocket(
        choices.instance, config_dir && *config_dir ? config_dir : std::string(smsupd::smctl::kDefaultConfigDir));
  }
  // Until smctl exits, nothing it prints can drive the terminal.
  smsupd::smctl::TerminalSafeStream safe_out(std::cout);
  smsupd::smctl::TerminalSafeStream safe_err(std::cerr);
  try {
    return Dispatch(app, choices);
  } catch (const nlohmann::json::exception& e) {  // a reply of the wrong shape: a failure, not an abort
    using namespace smsupd::smctl;
    std::vector<CLI::App*> chosen = app.get_subcommands();
    return Finish(choices.global.json, chosen.empty() ? "" : chosen.front()->get_name(),
                  Failed(kExitFailed, "bad-reply", std::string("unreadable reply from smsupd: ") + e.what()),
                  std::cout, std::cerr);
  }
}
