#include "daemon/twin/opensm_findings.h"

#include <cstdio>
#include <cstdlib>

#include "common/guid.h"
#include "common/printable_text.h"
#include "daemon/opensm/opensm_log_watcher.h"

namespace smsupd::twin {
namespace {

void Add(std::vector<std::string>& list, std::string_view line) {
  if (list.size() >= kMaxFindingLines) return;
  std::string text = PrintableText(line, kMaxFindingLineBytes);
  list.push_back(std::move(text));
}

// The message after OpenSM's "-> " record header, else the line.
std::string_view Message(std::string_view line) {
  auto arrow = line.find(" -> ");
  return arrow == std::string_view::npos ? line : line.substr(arrow + 4);
}

// Seconds since midnight of a record ("Dec 02 21:12:36 836120 [...]").
std::optional<double> Timestamp(std::string_view line) {
  if (line.size() < 22) return std::nullopt;
  int h = 0, m = 0, s = 0;
  long usec = 0;
  std::string head(line.substr(7, 15));
  if (std::sscanf(head.c_str(), "%2d:%2d:%2d %6ld", &h, &m, &s, &usec) != 4) return std::nullopt;
  if (h > 23 || m > 59 || s > 60 || usec < 0 || usec > 999999) return std::nullopt;
  return h * 3600.0 + m * 60.0 + s + usec / 1e6;
}

template <typename F>
void ForEachLine(std::string_view text, F f) {
  while (!text.empty()) {
    auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    f(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

bool Contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

void ReadLogLine(std::string_view line, OpenSmFindings& out, std::optional<double>& start) {
  if (!start) start = Timestamp(line);
  const std::string_view message = Message(line);
  constexpr std::string_view kConfigured = " tables configured on all switches";
  if (auto at = message.find(kConfigured); at != std::string_view::npos && !out.subnet_up) {
    std::string_view engine = message.substr(0, at);
    if (auto space = engine.rfind(' '); space != std::string_view::npos) engine.remove_prefix(space + 1);
    out.engine_used = PrintableText(engine, 32);
  }
  if (!out.subnet_up && (Contains(message, ": cannot build lid matrices") || Contains(message, ": cannot build fwd tables")))
    Add(out.engines_failed, message);
  if (Contains(message, "credit loop") || Contains(message, "Credit loop") || Contains(message, "deadlock"))
    Add(out.credit_loops, message);
  auto kind = ClassifyOpenSmLogLine(line);
  if (kind == OpenSmLogEvent::Kind::kPartitionConfigError) {
    Add(out.partition_errors, message);
    if (Contains(message, "retrying with default config")) out.default_partition_fallback = true;
  }
  // ERROR-level records (0x01 alone: the banner is logged at 0x03).
  if (Contains(message, "ERR ") || Contains(line, "] 0x01 -> ")) {
    ++out.errors_total;
    Add(out.errors, message);
  }
  if (kind == OpenSmLogEvent::Kind::kSubnetUp && !out.subnet_up) {
    out.subnet_up = true;
    auto at = Timestamp(line);
    if (start && at) out.first_sweep_ms = (*at >= *start ? *at - *start : *at + 86400 - *start) * 1000.0;
  }
  if (Contains(message, "Errors during initialization")) out.initialization_errors = true;
}

uint64_t HexAfter(std::string_view text, std::string_view key) {
  auto at = text.find(key);
  if (at == std::string_view::npos) return 0;
  std::string value(text.substr(at + key.size(), 20));
  return std::strtoull(value.c_str(), nullptr, 16);
}

std::string WordAfter(std::string_view text, std::string_view key) {
  auto at = text.find(key);
  if (at == std::string_view::npos) return "";
  std::string_view rest = text.substr(at + key.size());
  return PrintableText(rest.substr(0, rest.find(' ')), 40);
}

}  // namespace

OpenSmFindings ReadOpenSmFindings(std::string_view log, std::string_view output) {
  OpenSmFindings out;
  std::optional<double> start;
  ForEachLine(log, [&](std::string_view line) { ReadLogLine(line, out, start); });
  // OpenSM prints its option parsing to stdout (osm_subnet.c log_report):
  // every "Loading Cached Option" line and a banner, and among them the
  // complaints kept here. The lines that echo a path or a value OpenSM
  // read are never complaints, whatever words the path holds (a directory
  // named "...Warning..." or "...error..." is no warning).
  ForEachLine(output, [&](std::string_view line) {
    std::string_view trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    for (std::string_view echo : {"Loading Cached Option:", "Reading Cached Option File:", "Config file is ",
                                  "Log File:", "Command Line Arguments:"})
      if (trimmed.rfind(echo, 0) == 0) return;
    for (std::string_view word : {"-E-", "Invalid", "invalid", "Warning", "Unrecognized", "rror", "ERR "})
      if (Contains(line, word)) return Add(out.warnings, line);
  });
  return out;
}

std::vector<MulticastGroup> ReadMulticastGroups(std::string_view sa_dump) {
  std::vector<MulticastGroup> groups;
  ForEachLine(sa_dump, [&](std::string_view line) {
    if (groups.size() >= kMaxMulticastGroups || line.rfind("MC Group ", 0) != 0) return;
    MulticastGroup group;
    group.mlid = static_cast<uint16_t>(HexAfter(line, "MC Group 0x"));
    group.mgid = WordAfter(line, "mgid=");
    group.pkey = static_cast<uint16_t>(HexAfter(line, "pkey=0x"));
    group.mtu = static_cast<int>(HexAfter(line, "mtu=0x") & 0x3f);  // the top bits are a selector
    group.rate = static_cast<int>(HexAfter(line, "rate=0x") & 0x3f);
    group.qkey = static_cast<uint32_t>(HexAfter(line, "qkey=0x"));
    groups.push_back(std::move(group));
  });
  return groups;
}

std::string AskedEngine(std::string_view routing_engine) {
  std::string_view first = routing_engine.substr(0, routing_engine.find(','));
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
  if (first.empty() || first == "(null)") return "minhop";
  return PrintableText(first, 32);
}

std::string RoutingEngineOption(std::string_view opensm_conf) {
  std::string value;
  ForEachLine(opensm_conf, [&](std::string_view line) {
    constexpr std::string_view kKey = "routing_engine";
    if (line.rfind(kKey, 0) != 0 || line.size() <= kKey.size() || (line[kKey.size()] != ' ' && line[kKey.size()] != '\t'))
      return;
    std::string_view rest = line.substr(kKey.size());
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    value = std::string(rest.substr(0, 256));
  });
  return value;
}

nlohmann::json ToJson(const OpenSmFindings& f) {
  nlohmann::json out = {{"subnet_up", f.subnet_up},
                        {"initialization_errors", f.initialization_errors},
                        {"engine_used", f.engine_used},
                        {"engines_failed", f.engines_failed},
                        {"errors", f.errors},
                        {"errors_total", f.errors_total},
                        {"partition_errors", f.partition_errors},
                        {"default_partition_fallback", f.default_partition_fallback},
                        {"warnings", f.warnings},
                        {"credit_loops", f.credit_loops}};
  out["first_sweep_ms"] = f.first_sweep_ms ? nlohmann::json(static_cast<int64_t>(*f.first_sweep_ms)) : nlohmann::json();
  return out;
}

nlohmann::json ToJson(const MulticastGroup& g) {
  return {{"mlid", FormatHex(g.mlid, 4)}, {"mgid", g.mgid}, {"pkey", FormatPKey(g.pkey)},
          {"mtu", g.mtu}, {"rate", g.rate}, {"qkey", g.qkey}};
}

}  // namespace smsupd::twin
