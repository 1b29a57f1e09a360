// The smctl commands that talk to the daemon. Each returns smctl's exit code
// (control_client.h) and writes results to `out`, complaints to `err`.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "common/control_protocol.h"
#include "common/control_arguments.h"

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
// smctl plan exit codes (with --exit-code; without it changes exit 0 and a
// refusal 1): 0 no change, 1 changes, 2 usage, 3 daemon unreachable, 4 FILE
// invalid or unreadable (nothing would apply), 5 refused / daemon error.
inline constexpr int kExitPlanInvalid = 4;
inline constexpr int kExitPlanRefused = 5;
// How long `--wait` without `--timeout` waits for the daemon: twice the
// longest verify.timeout_s (an apply plus its automatic rollback), plus 5 s.
inline constexpr long kLongestApplyWaitMs = 2 * 600 * 1000 + 5000;

int RunPlan(const GlobalOptions& options, const std::string& file, bool exit_code_mode,
            std::ostream& out, std::ostream& err);
int RunHistory(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunRollback(const GlobalOptions& options, const control::RollbackArguments& args,
                std::ostream& out, std::ostream& err);
// smctl metrics: the daemon's Prometheus text exposition, as /metrics serves it.
int RunMetrics(const GlobalOptions& options, std::ostream& out, std::ostream& err);
// "smctl 0.1.0 (protocol 1)": what `smctl --version` prints, without asking
// the daemon.
std::string VersionLine();
int RunVersion(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunListCommands(const GlobalOptions& options, std::ostream& out, std::ostream& err);

}  // namespace smsupd::smctl
