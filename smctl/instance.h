// `smctl -i NAME`: the control socket of the smsupd instance NAME, the one
// smsupd@NAME.service runs with /etc/smsupd/NAME.yaml (docs/smctl.md
// "Instances").
#pragma once

#include <string>
#include <string_view>

namespace smsupd::smctl {

inline constexpr std::string_view kDefaultConfigDir = "/etc/smsupd";

// Letters, digits and `_ . : -`, not starting with '.': what a systemd
// instance name holds without escaping, and never a path.
bool ValidInstanceName(std::string_view name);

// The socket NAME's daemon serves: `control.socket` of <config_dir>/NAME.yaml;
// the daemon's default when that file leaves it out; and when the file
// cannot be read (a group member may not read it), the packaged convention:
// /run/smsupd/smsupd.sock for NAME `smsupd`, /run/smsupd-NAME/smsupd.sock
// for every other NAME. NAME must be valid.
std::string InstanceSocket(const std::string& name, const std::string& config_dir);

}  // namespace smsupd::smctl
