// The smctl commands that talk to the daemon. Each returns smctl's exit code
// (control_client.h) and writes results to `out`, complaints to `err`.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

#include "common/control_protocol.h"

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
int RunFailover(const GlobalOptions& options, const control::FailoverArguments& args,
                std::ostream& out, std::ostream& err);
int RunVersion(const GlobalOptions& options, std::ostream& out, std::ostream& err);
int RunListCommands(const GlobalOptions& options, std::ostream& out, std::ostream& err);

}  // namespace smsupd::smctl
