// The one place that knows OpenSM's option table. Built from
// OpenSM 3.3.23: the names, defaults and value kinds `opensm -c` writes, and
// the `can_update` column of opt_config[] in osm_subnet.c (options re-read
// on every heavy sweep, i.e. after SIGHUP).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "config/config.h"

namespace smsupd::config {

enum class OptionType {
  kBoolean,  // OpenSM takes only the exact string TRUE as true
  kInteger,  // decimal or 0x-hex; min/max when OpenSM has a range
  kHex64,    // 64-bit value such as a key or prefix, written 0x...
  kString,   // names, paths, lists; "(null)" means unset
};

struct OpenSmOption {
  std::string_view name;
  OptionType type;
  std::string_view default_value;  // as `opensm -c` writes it
  bool changeable_at_runtime;      // re-read on SIGHUP / heavy sweep
  bool owned_by_smsupd;            // refused in sm.opensm.options
  std::string_view use_instead;    // YAML key, or "set by smsupd"
  std::int64_t min = 0;            // kInteger only
  std::int64_t max = 0;            // kInteger only; min == max: no range known
};

// nullptr when OpenSM 3.3.23 has no option of that name.
const OpenSmOption* FindOpenSmOption(std::string_view name);

// Every option, in the order `opensm -c` writes them.
std::span<const OpenSmOption> AllOpenSmOptions();

// Checks a value given in YAML (scalar text; `is_yaml_bool` when it was a
// YAML true/false) and returns the text OpenSM must read, or an Error whose
// message says what would be valid.
Result<std::string> NormalizeOptionValue(const OpenSmOption& option, std::string_view text,
                                         bool is_yaml_bool);

// Names of opensm.conf options whose rendered value differs between the two
// configs and that OpenSM reads only at start (a SIGHUP would not apply
// them). Sorted, without duplicates.
std::vector<std::string> OptionsNeedingRestart(const Config& before, const Config& after);

// The closest option name, for "did you mean" hints; empty if none is close.
std::string NearestOptionName(std::string_view name);

// An option smsupd renders at its own value, not OpenSM's default, when
// sm.opensm.options does not set it.
struct SmsupdDefault {
  std::string_view name;
  std::string_view value;  // as opensm.conf reads it
};
std::span<const SmsupdDefault> SmsupdDefaults();

}  // namespace smsupd::config
