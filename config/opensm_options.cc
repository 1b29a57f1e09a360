#include "config/opensm_options.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_map>

#include "common/guid.h"
#include "config/edit_distance.h"
#include "config/opensm_options_table.h"
#include "config/renderer.h"

namespace smsupd::config {
namespace {

const std::unordered_map<std::string_view, const OpenSmOption*>& OptionIndex() {
  static const auto* index = [] {
    auto* map = new std::unordered_map<std::string_view, const OpenSmOption*>();
    for (const OpenSmOption& option : AllOpenSmOptions()) (*map)[option.name] = &option;
    return map;
  }();
  return *index;
}

bool AllHex(std::string_view digits) {
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isxdigit(static_cast<unsigned char>(c));
  });
}

bool AllDecimal(std::string_view digits) {
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// Decimal or 0x-hex, as OpenSM's strtoul(..., 0) reads them; a leading 0
// (octal to OpenSM) is refused because people do not mean octal.
std::optional<std::int64_t> ParseInteger(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
    if (!AllHex(digits) || digits.size() > 8) return std::nullopt;
    base = 16;
  } else if (!AllDecimal(digits) || digits.size() > 10 ||
             (digits.size() > 1 && digits[0] == '0')) {
    return std::nullopt;
  }
  std::int64_t value = std::stoll(std::string(digits), nullptr, base);
  return negative ? -value : value;
}

// OpenSM reads opensm.conf with fgets(line, 1023, ...): a longer line goes
// on as a line of its own (osm_subnet.c, osm_subn_parse_conf_file).
constexpr std::size_t kOpenSmLineBytes = 1022;

// Whether OpenSM reads `name value` back with exactly this value: its reader
// ends the line at a NUL or '#', and trims white space and one pair of
// quotes around the value (clean_val in osm_subnet.c).
bool ReadsBackAsWritten(std::string_view name, std::string_view text) {
  if (text.empty() || name.size() + 1 + text.size() + 1 > kOpenSmLineBytes) return false;
  for (char c : text)
    if (c == '#' || std::iscntrl(static_cast<unsigned char>(c))) return false;
  if (text.front() == ' ' || text.back() == ' ') return false;
  bool quoted = text.size() >= 2 && (text.front() == '"' || text.front() == '\'') &&
                text.back() == text.front();
  return !quoted;
}

Result<std::string> NormalizeBoolean(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower == "true") return std::string("TRUE");
  if (lower == "false") return std::string("FALSE");
  return Error{"true or false (written TRUE/FALSE for OpenSM)"};
}

Result<std::string> NormalizeInteger(const OpenSmOption& option, std::string_view text) {
  std::optional<std::int64_t> value = ParseInteger(text);
  std::string range = std::to_string(option.min) + ".." + std::to_string(option.max);
  if (!value) return Error{"an integer " + range + " (decimal or 0x-hex)"};
  if (option.min != option.max && (*value < option.min || *value > option.max))
    return Error{"an integer " + range};
  return std::string(text);
}

Result<std::string> NormalizeHex64(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
      !AllHex(text.substr(2)) || text.size() > 18)
    return Error{"0x followed by 1 to 16 hex digits"};
  return FormatGuid(std::stoull(std::string(text.substr(2)), nullptr, 16));
}

}  // namespace

std::span<const OpenSmOption> AllOpenSmOptions() {
  return {kOpenSmOptions, kOpenSmOptionCount};
}

const OpenSmOption* FindOpenSmOption(std::string_view name) {
  auto it = OptionIndex().find(name);
  return it == OptionIndex().end() ? nullptr : it->second;
}

std::string NearestOptionName(std::string_view name) {
  std::vector<std::string_view> names;
  for (const OpenSmOption& option : AllOpenSmOptions()) names.push_back(option.name);
  return NearestName(name, names);
}

Result<std::string> NormalizeOptionValue(const OpenSmOption& option, std::string_view text,
                                         bool is_yaml_bool) {
  if (is_yaml_bool && option.type != OptionType::kBoolean)
    return Error{"not a boolean: OpenSM option '" + std::string(option.name) + "' takes " +
                 (option.type == OptionType::kString ? "a string" : "a number")};
  switch (option.type) {
    case OptionType::kBoolean:
      return NormalizeBoolean(text);
    case OptionType::kInteger:
      return NormalizeInteger(option, text);
    case OptionType::kHex64:
      return NormalizeHex64(text);
    case OptionType::kString:
      break;
  }
  if (!ReadsBackAsWritten(option.name, text))
    return Error{"a string OpenSM reads back as written: no '#' or control characters, no "
                 "surrounding spaces or quotes, at most " +
                 std::to_string(kOpenSmLineBytes - option.name.size() - 2) + " bytes"};
  return std::string(text);
}

std::vector<std::string> OptionsNeedingRestart(const Config& before, const Config& after) {
  std::map<std::string, std::string> old_values = OpenSmOptionValues(before, RenderInputs{});
  std::map<std::string, std::string> new_values = OpenSmOptionValues(after, RenderInputs{});
  std::vector<std::string> names;
  auto consider = [&](const std::string& name) {
    const OpenSmOption* option = FindOpenSmOption(name);
    if (option == nullptr || option->changeable_at_runtime) return;
    auto old_it = old_values.find(name);
    auto new_it = new_values.find(name);
    std::string old_value = old_it != old_values.end() ? old_it->second : std::string(option->default_value);
    std::string new_value = new_it != new_values.end() ? new_it->second : std::string(option->default_value);
    if (old_value != new_value) names.push_back(name);
  };
  for (const auto& [name, value] : old_values) consider(name);
  for (const auto& [name, value] : new_values) consider(name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Where smsupd's default differs from OpenSM's (sm.opensm.options may still
// set them):
// - force_log_flush TRUE, because OpenSM otherwise keeps INFO lines such as
//   "SUBNET UP" in its stdio buffer until some later error line, and the
//   apply's verification and the failover timeline wait for that line.
// - max_wire_smps 16 instead of 4: a sweep's walk is one SMP round trip
//   after another, so the window sets its pace. A restarted OpenSM is a
//   STANDBY only once its whole discovery is over, and a new master's first
//   sweep starts with the same walk (docs/opensm-behaviour.md "A starting
//   OpenSM's discovery and max_wire_smps").
std::span<const SmsupdDefault> SmsupdDefaults() {
  static constexpr SmsupdDefault kDefaults[] = {{"force_log_flush", "TRUE"},
                                                {"max_wire_smps", "16"}};
  return kDefaults;
}

}  // namespace smsupd::config
