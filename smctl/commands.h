// The smctl commands. Each returns smctl's exit code (exit_codes.h) and
// writes results to `out`, complaints to `err`; with --json `out` gets one
// envelope (json_envelope.h), except the event stream of `events`.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include <optional>

#include <nlohmann/json.hpp>

#include "common/control_protocol.h"
#include "common/control_arguments.h"
#include "smctl/control_client.h"
#include "smctl/exit_codes.h"
#include "smctl/json_envelope.h"

namespace smsupd::smctl {

struct GlobalOptions {
  std::string socket{control::kDefaultSocketPath};
  bool json = false;  // print the wire form instead of tables
  std::chrono::milliseconds timeout{10000};  // per request
};

int RunStatus(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunEvents(const GlobalOptions& options, std::uint64_t since, bool follow, std::ostream& out,
              std::ostream& err);
int RunReload(const GlobalOptions& options, const control::ReloadArguments& args,
              std::ostream& out, std::ostream& err);
// smctl restart-opensm [--wait] [--force] [--timeout S].
int RunRestartOpenSm(const GlobalOptions& options, const control::RestartOpenSmArguments& args,
                     std::ostream& out, std::ostream& err);
int RunFailover(const GlobalOptions& options, const control::FailoverArguments& args,
                std::ostream& out, std::ostream& err);
// smctl plan: exit 0 no change (or changes, without --exit-code), 1 changes
// (only with --exit-code), 4 FILE invalid, 6 FILE unreadable, 5 refused
// with --exit-code (1 without it); 2 and 3 as everywhere.
// How long `--wait` without `--timeout` waits for the daemon: twice the
// longest verify.timeout_s (an apply plus its automatic rollback), plus 5 s.
inline constexpr long kLongestApplyWaitMs = 2 * 600 * 1000 + 5000;
// The twin gate's own bound (the twin's 240 s deadline, its judgement) and a margin.
inline constexpr long kTwinGateWaitMs = 260 * 1000;

// With `twin`: the daemon's twin-plan (docs/twin.md), which takes seconds to
// minutes; the same exit codes, "changed" meaning what the twin saw.
int RunPlan(const GlobalOptions& options, const std::string& file, bool exit_code_mode, bool twin,
            std::ostream& out, std::ostream& err);
int RunHistory(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunRollback(const GlobalOptions& options, const control::RollbackArguments& args,
                std::ostream& out, std::ostream& err);
// smctl why A B: exit 0 when the two share a usable partition on the fabric,
// 1 when they do not (or the fabric could not tell), 4 when a name is
// unknown (error.code "unknown-name", the closest names in the message).
int RunWhy(const GlobalOptions& options, const control::WhyArguments& args, std::ostream& out,
           std::ostream& err);
// smctl cabling: exit 0 when the links match the declared cabling (or none
// is declared), 1 when they differ (ok is true: an answer, not an error).
// With export: the CSV on `out`, or in `output` (written by smctl, as the
// caller; exit 1 "write-failed" when it cannot be).
int RunCabling(const GlobalOptions& options, const control::CablingArguments& args, const std::string& output,
               std::ostream& out, std::ostream& err);
// smctl ports [--problems] [NAME...]: exit 0 on a read-out (1 with
// --problems when any problem is listed), 4 when a NAME is unknown, 1 when
// the read-out failed.
struct PortsOptions {
  bool problems_only = false;
  std::vector<std::string> names;
};
int RunPorts(const GlobalOptions& options, const PortsOptions& ports, std::ostream& out, std::ostream& err);
// smctl metrics: the daemon's Prometheus text exposition, as /metrics serves it.
int RunMetrics(const GlobalOptions& options, std::ostream& out, std::ostream& err);
// "smctl 0.1.0 (protocol 1)": what `smctl --version` prints, without asking
// the daemon.
std::string VersionLine();
// {"smctl": "0.1.0", "protocol": 1}: smctl's own part of `version --json`.
nlohmann::json OwnVersion();
int RunVersion(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunListCommands(const GlobalOptions& options, std::ostream& out, std::ostream& err);

// Offline, no daemon: smctl validate FILE; smctl render FILE --out DIR.
// Exit 0 valid / written, 4 invalid, 6 FILE unreadable; render 1 when the
// files could not be written. With --json, render reports each written
// file's path, mode and sha256 (never its text: opensm.conf holds the keys).
int RunValidate(const GlobalOptions& options, const std::string& file, std::ostream& out,
                std::ostream& err);
int RunRender(const GlobalOptions& options, const std::string& file, const std::string& out_dir,
              std::ostream& out, std::ostream& err);

// Shared by the command files. A transport failure as an outcome.
CommandOutcome FromClientError(const ClientError& error);
// A refusal of an apply or plan: exit 4 when the daemon says the config is
// invalid ("valid": false), 6 when it could not read it ("unreadable": true),
// else 1.
CommandOutcome RefusedConfig(const control::Response& response);
// Sends one request; nullopt with *failure set unless the daemon succeeded.
std::optional<control::Response> Ask(ControlClient& client, const std::string& command,
                                     nlohmann::json arguments, CommandOutcome* failure);

}  // namespace smsupd::smctl
