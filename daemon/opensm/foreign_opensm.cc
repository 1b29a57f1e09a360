#include "daemon/opensm/foreign_opensm.h"

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <string_view>

#include "common/printable_text.h"
#include "common/problems.h"

namespace smsupd {
namespace {

// OpenSM reads --guid with strtoull(..., 16): "0x" is optional.
std::optional<Guid> OpenSmGuidArgument(std::string_view text) {
  if (text.starts_with("0x") || text.starts_with("0X")) text.remove_prefix(2);
  if (text.empty() || text.size() > 16 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return std::nullopt;
  return std::strtoull(std::string(text).c_str(), nullptr, 16);
}

// argv[0] and the argument list, printable and short, for the problem text.
std::string Describe(pid_t pid, const std::vector<std::string>& cmdline) {
  std::string text;
  for (const std::string& arg : cmdline) {
    if (!text.empty()) text += ' ';
    text += arg;
  }
  return "pid " + std::to_string(pid) + " (" + PrintableText(text, 200) + ")";
}

}  // namespace

std::optional<std::string> OpenSmBindsPort(const std::vector<std::string>& cmdline, Guid port) {
  std::optional<std::string> guid_text;
  bool config_file = false;
  for (std::size_t i = 1; i < cmdline.size(); ++i) {
    std::string_view arg = cmdline[i];
    const bool has_next = i + 1 < cmdline.size();
    if ((arg == "-g" || arg == "--guid") && has_next) {
      guid_text = cmdline[++i];
    } else if (arg.starts_with("--guid=")) {
      guid_text = std::string(arg.substr(7));
    } else if (arg.starts_with("-g") && arg.size() > 2 && !arg.starts_with("--")) {
      guid_text = std::string(arg.substr(2));
    } else if (arg == "-F" || arg == "--config" || arg.starts_with("--config=") ||
               (arg.starts_with("-F") && !arg.starts_with("--"))) {
      config_file = true;
      if (arg == "-F" || arg == "--config") ++i;
    }
  }
  if (guid_text) {
    std::optional<Guid> guid = OpenSmGuidArgument(*guid_text);
    if (guid && *guid == port) return "--guid " + FormatGuid(port);
    return std::nullopt;
  }
  if (config_file) return std::nullopt;
  return std::string("no --guid: it binds the first active port");
}

ForeignOpenSmWatch::ForeignOpenSmWatch(boost::asio::io_context& io, const ProcessTable& processes,
                                       Reporter& reporter, std::function<Target()> target)
    : io_(io), processes_(processes), reporter_(reporter), target_(std::move(target)), timer_(io) {}

void ForeignOpenSmWatch::Start() {
  if (running_) return;
  running_ = true;
  ScanNow();
  Arm();
}

void ForeignOpenSmWatch::Stop() {
  running_ = false;
  timer_.cancel();
}

void ForeignOpenSmWatch::Arm() {
  timer_.expires_after(kScanInterval);
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (error || !running_) return;
    ScanNow();
    Arm();
  });
}

void ForeignOpenSmWatch::ScanNow() {
  const Target target = target_();
  std::string found;
  std::size_t count = 0;
  if (target.port != 0) {
    for (const NamedProcess& process : processes_.FindByName("opensm")) {
      if (process.pid == target.own_pid) continue;
      std::optional<std::string> why = OpenSmBindsPort(process.cmdline, target.port);
      if (!why) continue;
      if (++count <= kMaxReported)
        found += (found.empty() ? "" : "; ") + Describe(process.pid, process.cmdline) + ": " + *why;
    }
  }
  if (count > kMaxReported) found += "; and " + std::to_string(count - kMaxReported) + " more";
  if (found == reported_) return;
  if (found.empty()) {
    spdlog::info("FOREIGN_OPENSM_GONE no other OpenSM runs on port {}", FormatGuid(target.port));
    reporter_.ClearProblem(kProblemForeignOpenSm);
  } else {
    const std::string text = "an OpenSM smsupd does not supervise runs on port " + FormatGuid(target.port) +
                             ": " + found + ". Stop it (Debian's: systemctl mask --now opensm.service)";
    spdlog::error("FOREIGN_OPENSM {}", text);
    reporter_.RaiseProblem(kProblemForeignOpenSm, text);
  }
  reported_ = found;
}

}  // namespace smsupd
