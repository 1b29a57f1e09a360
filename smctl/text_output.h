// smctl's default output: short tables a person reads at a glance. The
// `--json` output is the wire form and lives in commands.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/control_protocol.h"
#include "common/control_wire.h"

namespace smsupd::smctl {

// "3d04h", "1h02m05s", "42s".
std::string FormatUptime(std::int64_t seconds);

// Node + OpenSM line, master line, config, health, then the SM table.
std::string FormatStatus(const control::StatusWire& status);

// One line per event: seq, time, kind, details as key=value.
std::string FormatEvent(const control::EventWire& event);
std::string FormatEventHeader();

// json[key] as text for a table: a string as it is, another value in its
// JSON form, "" when json is no object or the key is absent or null.
std::string FieldText(const nlohmann::json& json, const char* key);

// The `list-commands` reply as a table.
std::string FormatCommandList(const nlohmann::json& commands);

}  // namespace smsupd::smctl
