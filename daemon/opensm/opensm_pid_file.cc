#include "daemon/opensm/opensm_pid_file.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "common/atomic_file.h"

namespace smsupd {
namespace {

template <typename T>
bool ParseNumber(std::string_view text, T& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// A binary replaced on disk (package upgrade) shows as "PATH (deleted)"; the
// running OpenSM is still the one started from PATH.
std::string_view WithoutDeletedSuffix(std::string_view exe) {
  constexpr std::string_view kDeleted = " (deleted)";
  if (exe.size() > kDeleted.size() && exe.substr(exe.size() - kDeleted.size()) == kDeleted)
    exe.remove_suffix(kDeleted.size());
  return exe;
}

bool HasConfArgument(const std::vector<std::string>& cmdline, const std::string& conf) {
  for (size_t i = 1; i + 1 < cmdline.size(); ++i)
    if (cmdline[i] == "-F" && cmdline[i + 1] == conf) return true;
  return false;
}

}  // namespace

std::string FormatPidRecord(const OpenSmPidRecord& record) {
  std::ostringstream out;
  out << "pid=" << record.pid << "\n"
      << "start_ticks=" << record.start_ticks << "\n"
      << "binary=" << record.binary << "\n"
      << "exe=" << record.exe << "\n"
      << "port_guid=" << FormatGuid(record.port_guid) << "\n"
      << "conf=" << record.conf_path << "\n";
  return out.str();
}

Result<OpenSmPidRecord> ParsePidRecord(std::string_view text) {
  OpenSmPidRecord record;
  bool has_pid = false, has_ticks = false, has_guid = false;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "pid") has_pid = ParseNumber(value, record.pid) && record.pid > 0;
    else if (key == "start_ticks") has_ticks = ParseNumber(value, record.start_ticks);
    else if (key == "binary") record.binary = value;
    else if (key == "exe") record.exe = value;
    else if (key == "conf") record.conf_path = value;
    else if (key == "port_guid") {
      auto guid = ParseGuid(value);
      has_guid = guid.has_value();
      if (guid) record.port_guid = *guid;
    }
  }
  if (!has_pid || !has_ticks || !has_guid || record.exe.empty() || record.conf_path.empty())
    return Error{"incomplete pid record"};
  return record;
}

Status WritePidFile(const std::string& path, const OpenSmPidRecord& record) {
  return WriteFileAtomically(path, FormatPidRecord(record), 0644);
}

Result<OpenSmPidRecord> ReadPidFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text) return text.error();
  auto record = ParsePidRecord(*text);
  if (!record) return Error{path + ": " + record.error().message};
  return record;
}

Status CheckAdoptable(const OpenSmPidRecord& record, const ProcessFacts& facts,
                      const OpenSmIdentity& wanted) {
  std::string who = "process " + std::to_string(record.pid);
  if (facts.start_ticks != record.start_ticks)
    return Error{who + " started at another time: the pid was reused"};
  if (WithoutDeletedSuffix(facts.exe) != record.exe)
    return Error{who + " runs " + facts.exe + ", not " + record.exe};
  if (!wanted.exe.empty() && WithoutDeletedSuffix(facts.exe) != wanted.exe)
    return Error{who + " runs " + facts.exe + ", not the configured " + wanted.binary};
  if (!HasConfArgument(facts.cmdline, record.conf_path))
    return Error{who + " was not started with -F " + record.conf_path};
  if (record.port_guid != wanted.port_guid)
    return Error{who + " serves port " + FormatGuid(record.port_guid) + ", not " +
                 FormatGuid(wanted.port_guid)};
  if (record.binary != wanted.binary)
    return Error{who + " runs " + record.binary + " but the config names " + wanted.binary};
  if (record.conf_path != wanted.conf_path)
    return Error{who + " reads " + record.conf_path + ", not " + wanted.conf_path};
  return Status::Ok();
}

}  // namespace smsupd
