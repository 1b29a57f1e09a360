// metrics: and hooks: sections of smsupd.yaml (docs/config-reference.md):
// how the daemon is watched from outside. Nothing here is rendered for
// OpenSM, and nothing here can carry a secret.
#include <algorithm>

#include "config/listen_address.h"
#include "config/validator_internal.h"

namespace smsupd::config {

namespace {

bool IsSubnetNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// metrics.subnet: a label value operators match on and alert texts show.
void ReadSubnetName(const YAML::Node& node, ValidationState& state) {
  auto text = ReadString(node, "metrics.subnet", state.sink);
  if (!text) return;
  if (text->empty() || text->size() > kMaxSubnetNameLength ||
      !std::all_of(text->begin(), text->end(), IsSubnetNameCharacter)) {
    state.sink.Error(node, "metrics.subnet", "'" + *text + "' is not a subnet name",
                     "1 to " + std::to_string(kMaxSubnetNameLength) +
                         " letters, digits, '.', '_' or '-', the same on both daemons of the pair, e.g. fabric-a");
    return;
  }
  state.config.metrics.subnet = *text;
}

}  // namespace

void ReadMetricsSection(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "metrics", {"listen", "allow_remote", "subnet"}, state.sink);
  if (!view.valid()) return;
  MetricsSettings& metrics = state.config.metrics;
  if (const YAML::Node* subnet = view.Get("subnet")) ReadSubnetName(*subnet, state);
  if (const YAML::Node* remote = view.Get("allow_remote"))
    if (auto value = ReadBool(*remote, "metrics.allow_remote", state.sink)) metrics.allow_remote = *value;
  const YAML::Node* listen = view.Get("listen");
  if (listen == nullptr) return;
  auto text = ReadString(*listen, "metrics.listen", state.sink);
  if (!text || text->empty()) return;
  auto address = ParseListenAddress(*text);
  if (!address) {
    state.sink.Error(*listen, "metrics.listen", "'" + *text + "' is not an address and port",
                     "IPv4:PORT or [IPv6]:PORT, e.g. 127.0.0.1:9662");
    return;
  }
  if (!address->loopback && !metrics.allow_remote) {
    state.sink.Error(*listen, "metrics.listen",
                     "'" + *text + "' is not a loopback address: the metrics would be readable "
                     "from the network",
                     "127.0.0.1:PORT or [::1]:PORT, or set metrics.allow_remote: true");
    return;
  }
  if (!address->loopback) {
    state.sink.Warning(*listen, "metrics.listen",
                       "'" + *text + "' is not a loopback address: smsupd's systemd units allow IP only "
                       "to and from localhost (IPAddressDeny=any), so scrapes from other hosts get no answer",
                       std::string("allow the scrapers' addresses in the drop-in ") + kMetricsDropInPath +
                           " ([Service] IPAddressAllow=ADDRESS..., then systemctl daemon-reload and restart; "
                           "docs/systemd.md)");
  }
  metrics.listen = address->BindText();
}

void ReadHooksSection(const YAML::Node& node, ValidationState& state) {
  MappingView view(node, "hooks", {"directory", "timeout_ms"}, state.sink);
  if (!view.valid()) return;
  HookSettings& hooks = state.config.hooks;
  if (const YAML::Node* directory = view.Get("directory"))
    if (auto value = ReadAbsolutePath(*directory, "hooks.directory", state.sink))
      hooks.directory = *value;
  if (const YAML::Node* timeout = view.Get("timeout_ms"))
    if (auto value = ReadInteger(*timeout, "hooks.timeout_ms", 100, 600000, state.sink))
      hooks.timeout_ms = static_cast<int>(*value);
}

}  // namespace smsupd::config
