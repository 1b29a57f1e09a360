#include "config/opensm_conf_import.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "common/secrets.h"
#include "config/opensm_options.h"

namespace smsupd::config {
namespace {

constexpr std::size_t kOpenSmConfPieceBytes = 1022;  // fgets(line, 1023, ...) into 1024 bytes

struct Setting {
  std::string value;
  int line = 0;
};

std::string CleanValue(std::string value) {
  std::size_t begin = 0;
  while (begin < value.size() && std::isspace(static_cast<unsigned char>(value[begin]))) ++begin;
  std::size_t end = value.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(value[end - 1]))) --end;
  value = value.substr(begin, end - begin);
  if (value.size() >= 2 && ((value.front() == '"' && value.back() == '"') || (value.front() == '\'' && value.back() == '\'')))
    value = value.substr(1, value.size() - 2);
  return value;
}

// strtoul/strtoull(text, &end, 0) over the whole text, within `max`.
std::optional<unsigned long long> Number(const std::string& text, unsigned long long max) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text.c_str(), &end, 0);
  if (*end != '\0' || errno == ERANGE || value > max) return std::nullopt;
  return value;
}

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// What OpenSM holds for `text` (or the default when it keeps it), in the
// form smsupd.yaml writes; nullopt when it keeps the default.
std::optional<std::string> OpenSmValue(const OpenSmOption& option, const std::string& text, bool& boolean_fuzz) {
  switch (option.type) {
    case OptionType::kBoolean:
      boolean_fuzz = text != "TRUE" && text != "FALSE";
      return text == "TRUE" ? "true" : "false";
    case OptionType::kInteger: {
      if (option.min < 0) {  // opts_parse_int32(): strtol() with no check at all
        long value = std::strtol(text.c_str(), nullptr, 0);
        return std::to_string(static_cast<std::int32_t>(value));
      }
      unsigned long long max = option.min != option.max ? static_cast<unsigned long long>(option.max) : 0xffffffffull;
      std::optional<unsigned long long> value = Number(text, max);
      if (!value) return std::nullopt;
      return std::to_string(*value);
    }
    case OptionType::kHex64: {
      std::optional<unsigned long long> value = Number(text, ~0ull);
      if (!value) return std::nullopt;
      return FormatGuid(*value);
    }
    case OptionType::kString:
      return text;
  }
  return std::nullopt;
}

class ConfReader {
 public:
  ConfReader(const std::string& file, ImportFindings& findings) : file_(file), findings_(findings) {}
  void Line(std::string piece, int line);
  OpenSmConfImport Finish();

 private:
  void Warn(int line, const std::string& message) {
    findings_.push_back({file_, line, ImportFinding::Severity::kWarning, message});
  }
  void Known(const OpenSmOption& option, const Setting& setting, OpenSmConfImport& out);

  const std::string& file_;
  ImportFindings& findings_;
  std::map<std::string, Setting> settings_;
  std::vector<std::string> order_;
};

void ConfReader::Line(std::string piece, int line) {
  if (std::size_t hash = piece.find('#'); hash != std::string::npos) piece.resize(hash);
  std::size_t begin = piece.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return;
  std::size_t end = piece.find_first_of(" \t\n", begin);
  std::string name = piece.substr(begin, end - begin);
  std::string value = end == std::string::npos ? "" : CleanValue(piece.substr(end + 1));
  if (FindOpenSmOption(name) == nullptr) {
    // The word may be `name=value`: only what comes before '=' is shown (a key's value never is).
    std::string shown = RedactSecrets(name.substr(0, name.find('=')));
    std::string nearest = NearestOptionName(shown);
    Warn(line, "'" + shown + "' is not an OpenSM option: OpenSM ignores this line; not imported" +
                   (name.find('=') != std::string::npos ? " (opensm.conf lines are 'name value', not name=value)" : "") +
                   (nearest.empty() ? "" : "; did you mean '" + nearest + "'?"));
    return;
  }
  if (!settings_.count(name)) order_.push_back(name);
  else Warn(line, "'" + name + "' given again (first at line " + std::to_string(settings_[name].line) + "): OpenSM keeps the last");
  settings_[name] = {value, line};
}

void ConfReader::Known(const OpenSmOption& option, const Setting& setting, OpenSmConfImport& out) {
  const std::string name(option.name);
  if (IsSecretOption(name)) {
    std::optional<unsigned long long> value = Number(setting.value, ~0ull);
    std::optional<unsigned long long> fallback = Number(std::string(option.default_value), ~0ull);
    if (value && value != fallback) out.keys.push_back({name, setting.line});
    else if (!value) Warn(setting.line, name + " does not parse as a number: OpenSM keeps its default; not imported");
    return;
  }
  if (name == "partition_config_file") out.partition_config_file = setting.value;
  if (name == "guid") {
    std::optional<unsigned long long> value = Number(setting.value, ~0ull);
    if (value && *value != 0) out.port_guid = *value, out.port_guid_line = setting.line;
    return;
  }
  if (name == "sm_priority") {
    std::optional<unsigned long long> value = Number(setting.value, 255);
    if (!value) Warn(setting.line, "sm_priority '" + setting.value + "' does not parse: OpenSM keeps 0");
    else if (*value > 15) Warn(setting.line, "sm_priority " + setting.value + " is above 15: OpenSM uses 0");
    out.sm_priority = value && *value <= 15 ? static_cast<int>(*value) : 0;
    out.sm_priority_line = setting.line;
    return;
  }
  bool fuzz = false;
  std::optional<std::string> value = OpenSmValue(option, setting.value, fuzz);
  if (fuzz) Warn(setting.line, name + " '" + setting.value + "': OpenSM takes only TRUE as true, so this is " + (*value == "true" ? "TRUE" : "FALSE"));
  if (name == "allow_both_pkeys") {
    out.allow_both_pkeys = value == "true";
    out.allow_both_line = setting.line;
    return;
  }
  if (!value) {
    Warn(setting.line, name + " '" + setting.value + "' does not parse: OpenSM keeps its default; not imported");
    return;
  }
  bool ignored = false;
  std::optional<std::string> fallback = OpenSmValue(option, std::string(option.default_value), ignored);
  if (value == fallback || (option.type == OptionType::kString && *value == "(null)" && fallback == "(null)")) return;
  if (option.owned_by_smsupd) {  // not a misreading: a comment in the YAML, no finding
    out.not_imported.push_back({name, std::string(option.use_instead), setting.line});
    return;
  }
  bool is_bool = option.type == OptionType::kBoolean;
  Result<std::string> checked = NormalizeOptionValue(option, *value, is_bool);
  if (!checked.ok()) {
    Warn(setting.line, name + " '" + setting.value + "' cannot be written for OpenSM as smsupd.yaml does (" +
                           checked.error().message + "): not imported");
    return;
  }
  out.options.push_back({name, option.type == OptionType::kString ? Quoted(*value) : *value, setting.line});
}

OpenSmConfImport ConfReader::Finish() {
  OpenSmConfImport out;
  for (const std::string& name : order_) Known(*FindOpenSmOption(name), settings_[name], out);
  for (const SmsupdDefault& ours : SmsupdDefaults()) {
    const std::string name(ours.name);
    if (std::any_of(out.options.begin(), out.options.end(),
                    [&](const ImportedOption& o) { return o.name == name; }))
      continue;
    const OpenSmOption& option = *FindOpenSmOption(name);
    bool ignored = false;
    const auto it = settings_.find(name);
    out.smsupd_defaults.push_back(
        {name, OpenSmValue(option, std::string(option.default_value), ignored).value_or(""),
         OpenSmValue(option, std::string(ours.value), ignored).value_or(""),
         it == settings_.end() ? 0 : it->second.line});
  }
  return out;
}

}  // namespace

OpenSmConfImport ReadOpenSmConf(std::string_view text, const std::string& file, ImportFindings& findings) {
  ConfReader reader(file, findings);
  int line = 1;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t newline = text.find('\n', pos);
    std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    if (end - pos > kOpenSmConfPieceBytes) {
      end = pos + kOpenSmConfPieceBytes;
      findings.push_back({file, line, ImportFinding::Severity::kWarning,
                          "line longer than 1022 bytes: OpenSM reads the rest as another line"});
    }
    std::string piece(text.substr(pos, end - pos));
    if (std::size_t nul = piece.find('\0'); nul != std::string::npos) piece.resize(nul);
    reader.Line(std::move(piece), line);
    if (text[end - 1] == '\n') ++line;
    pos = end;
  }
  return reader.Finish();
}

}  // namespace smsupd::config
