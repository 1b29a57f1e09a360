// fabric_probe: runs smsupd's own Fabric calls (UmadFabric through a
// MadWorker, as the daemon does) on the node it is attached to and prints one
// JSON object per command on stdout. Integration tests run it on a simulated
// node (umad2sim preload) and compare its answers with the test bed's.
//
//   fabric_probe [--port-guid 0x..] [--timeout-ms N] [--attempts N]
//                [--deadline-ms N] [--discovery-window N] COMMAND...
// COMMAND: local | active-ports | sminfo:LID | portinfo:LID:PORT |
//          nodeinfo:LID | smrecords | saprobe:LID | pkeys:LID:PORT | discover |
//          handover:LID:GUID:PRIORITY | wait-master:LID:MS | wait-smlid:LID:MS |
//          time-sminfo:LID:COUNT (round-trip latency: median, p99, max) |
//          topology | counters:LID:PORT |
//          readout (one `smctl ports` read-out, paced as the daemon paces it)
// Every object has "command", "ok", "elapsed_us" and either "error" or the
// answer. Exit status: 0 if every command succeeded, 1 otherwise, 2 usage.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/fabric/mad_worker.h"
#include "daemon/fabric/umad_fabric.h"
#include "tests/daemon/fabric/fabric_probe_commands.h"

namespace {

using smsupd::probe::ProbeCommand;

struct Flags {
  smsupd::UmadFabricOptions fabric;
  std::chrono::milliseconds deadline{5000};
  std::vector<std::string> commands;
};

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "--port-guid" && has_value) {
      flags.fabric.port_guid = smsupd::ParseGuid(argv[++i]);
      if (!flags.fabric.port_guid) return false;
    } else if (arg == "--timeout-ms" && has_value) {
      flags.fabric.smp.per_attempt = std::chrono::milliseconds(std::stoi(argv[++i]));
    } else if (arg == "--attempts" && has_value) {
      flags.fabric.smp.attempts = std::stoi(argv[++i]);
    } else if (arg == "--discovery-window" && has_value) {
      flags.fabric.discovery_window = static_cast<size_t>(std::stoi(argv[++i]));
    } else if (arg == "--deadline-ms" && has_value) {
      flags.deadline = std::chrono::milliseconds(std::stoi(argv[++i]));
    } else if (arg.rfind("--", 0) == 0) {
      return false;
    } else {
      flags.commands.push_back(arg);
    }
  }
  return !flags.commands.empty();
}

// Runs one command on the MAD thread and waits for its answer.
nlohmann::json RunOne(boost::asio::io_context& io, smsupd::MadWorker& worker,
                      const ProbeCommand& command, std::chrono::milliseconds deadline) {
  auto start = std::chrono::steady_clock::now();
  nlohmann::json out;
  bool done = false;
  worker.Submit([&command](smsupd::Fabric& fabric) { return command.run(fabric); },
                [&](smsupd::Result<nlohmann::json> result) {
                  out = result ? *result : nlohmann::json{{"error", result.error().message}};
                  out["ok"] = result.ok();
                  done = true;
                },
                std::max(deadline, command.min_deadline));
  while (!done) io.run_one();
  out["command"] = command.text;
  out["elapsed_us"] = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::cerr << "usage: fabric_probe [--port-guid 0x..] [--timeout-ms N] [--attempts N] "
                 "[--deadline-ms N] [--discovery-window N] COMMAND...\n";
    return 2;
  }
  std::vector<ProbeCommand> commands;
  for (const std::string& text : flags.commands) {
    smsupd::Result<ProbeCommand> command = smsupd::probe::ParseProbeCommand(text);
    if (!command) {
      std::cerr << "fabric_probe: " << command.error().message << "\n";
      return 2;
    }
    commands.push_back(std::move(*command));
  }
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  smsupd::MadWorker worker(io, std::make_shared<smsupd::UmadFabric>(flags.fabric));
  bool all_ok = true;
  for (const ProbeCommand& command : commands) {
    nlohmann::json out = RunOne(io, worker, command, flags.deadline);
    all_ok = all_ok && out["ok"].get<bool>();
    std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  }
  worker.Stop();
  return all_ok ? 0 : 1;
}
