#include "smctl/instance.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>

#include "common/control_protocol.h"

namespace smsupd::smctl {
namespace {

// control.socket of the file; "" when the file sets none; nullopt when it
// cannot be read or is not YAML. Only this key is read: the daemon's
// validator judges the rest of the file.
std::optional<std::string> SocketNamedBy(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  try {
    YAML::Node root = YAML::Load(file);
    YAML::Node socket =
        root.IsMap() && root["control"].IsMap() ? root["control"]["socket"] : YAML::Node();
    if (socket.IsScalar()) return socket.Scalar();
    return std::string();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

}  // namespace

bool ValidInstanceName(std::string_view name) {
  if (name.empty() || name.front() == '.' || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
  });
}

std::string InstanceSocket(const std::string& name, const std::string& config_dir) {
  std::optional<std::string> named = SocketNamedBy(config_dir + "/" + name + ".yaml");
  if (named && !named->empty()) return *named;
  if (named || name == "smsupd") return std::string(control::kDefaultSocketPath);
  return "/run/smsupd-" + name + "/smsupd.sock";
}

}  // namespace smsupd::smctl
