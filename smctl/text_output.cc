#include "smctl/text_output.h"
#include "common/control_wire.h"

#include <cstdarg>
#include <cstdio>
#include <sstream>

namespace smsupd::smctl {
namespace {

std::string Plural(std::int64_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string Formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Formatted(const char* format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int length = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string line(length > 0 ? static_cast<std::size_t>(length) : 0, '\0');
  std::vsnprintf(line.data(), line.size() + 1, format, again);
  va_end(again);
  return line + "\n";
}

std::string HostSuffix(const std::string& host) { return host.empty() ? "" : "  " + host; }

std::string OpenSmLine(const control::StatusWire& status) {
  const auto& opensm = status.opensm;
  const auto& local = status.local_sm;
  std::string restarts = Plural(opensm.restarts, "restart");
  if (opensm.pid == 0) return "not running (" + restarts + ")";
  std::string lid = local.lid ? "LID " + std::to_string(local.lid) : "no LID";
  return "pid " + std::to_string(opensm.pid) + ", up " + FormatUptime(opensm.uptime_s) + ", " +
         restarts + ", port " + FormatGuid(opensm.port_guid) + ", " + lid + ", " + local.state +
         ", priority " + std::to_string(local.priority);
}

std::string MasterLine(const control::StatusWire& status) {
  if (!status.master) return "none seen";
  const auto& master = *status.master;
  std::string line = FormatGuid(master.guid) + "  LID " + std::to_string(master.lid) +
                     "  priority " + std::to_string(master.priority) + HostSuffix(master.host);
  if (master.guid == status.local_sm.guid && status.local_sm.state == "MASTER")
    line += " (this node)";
  return line;
}

std::string HealthLines(const control::StatusWire& status) {
  if (status.problems.empty()) return Formatted("%-9s %s", "Health", "healthy");
  std::string text =
      Formatted("%-9s %s", "Health",
                Plural(static_cast<std::int64_t>(status.problems.size()), "problem").c_str());
  for (const auto& problem : status.problems)
    text += Formatted("  %-20s %s%s", problem.id.c_str(), problem.text.c_str(),
                      problem.since.empty() ? "" : (" (since " + problem.since + ")").c_str());
  return text;
}

std::string DetailText(const nlohmann::json& details) {
  std::string text;
  for (const auto& [key, value] : details.items()) {
    if (!text.empty()) text += " ";
    text += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

}  // namespace

std::string FormatUptime(std::int64_t seconds) {
  char text[64];
  if (seconds >= 86400)
    std::snprintf(text, sizeof text, "%lldd%02lldh", static_cast<long long>(seconds / 86400),
                  static_cast<long long>(seconds % 86400 / 3600));
  else if (seconds >= 3600)
    std::snprintf(text, sizeof text, "%lldh%02lldm%02llds", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds % 3600 / 60), static_cast<long long>(seconds % 60));
  else if (seconds >= 60)
    std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(seconds / 60),
                  static_cast<long long>(seconds % 60));
  else
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(seconds));
  return text;
}

std::string FormatStatus(const control::StatusWire& status) {
  std::string text;
  text += Formatted("%-9s %s", "Node", status.node.c_str());
  text += Formatted("%-9s %s", "OpenSM", OpenSmLine(status).c_str());
  text += Formatted("%-9s %s", "Master", MasterLine(status).c_str());
  if (status.failover) {
    const control::FailoverWire& f = *status.failover;
    std::string line = f.state + " (role " + f.role + ", " +
                       (f.preempt ? "preempt" : "sticky") + ", sm_priority " +
                       (f.commanded_priority >= 0 ? std::to_string(f.commanded_priority) : "-") +
                       ")";
    text += Formatted("%-9s %s", "Failover", line.c_str());
  }
  std::string config = "generation " + std::to_string(status.config.generation) +
                       (status.config.hash.empty() ? "" : ", hash " + status.config.hash);
  text += Formatted("%-9s %s", "Config", config.c_str());
  text += HealthLines(status);
  text += "\n" + Formatted("SMs in the subnet: %zu", status.sms.size());
  if (status.sms.empty()) return text;
  text += Formatted("  %-18s  %5s  %-11s  %4s  %s", "GUID", "LID", "STATE", "PRIO", "HOST");
  for (const auto& sm : status.sms)
    text += Formatted("  %-18s  %5u  %-11s  %4d  %s", FormatGuid(sm.guid).c_str(), sm.lid,
                      sm.state.c_str(), sm.priority, sm.host.empty() ? "-" : sm.host.c_str());
  return text;
}

std::string FormatEventHeader() {
  return Formatted("%6s  %-24s  %-18s  %s", "SEQ", "TIME", "KIND", "DETAILS");
}

std::string FormatEvent(const control::EventWire& event) {
  return Formatted("%6llu  %-24s  %-18s  %s", static_cast<unsigned long long>(event.seq),
                   event.time.c_str(), event.kind.c_str(), DetailText(event.details).c_str());
}

std::string FormatCommandList(const nlohmann::json& commands) {
  std::string text = Formatted("%-14s  %-9s  %s", "COMMAND", "ACCESS", "WHAT IT DOES");
  for (const auto& command : commands) {
    std::string summary = command.value("summary", "");
    if (command.value("reserved", false)) summary += " (reserved)";
    text += Formatted("%-14s  %-9s  %s", command.value("name", "?").c_str(),
                      command.value("access", "?").c_str(), summary.c_str());
  }
  return text;
}

std::string FieldText(const nlohmann::json& json, const char* key) {
  if (!json.is_object()) return "";
  auto it = json.find(key);
  if (it == json.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace smsupd::smctl
