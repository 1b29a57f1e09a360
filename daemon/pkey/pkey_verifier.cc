// VerifyPKeys: read, compare, recognise OpenSM's fallback.
#include "daemon/pkey/pkey_verifier.h"

#include <algorithm>
#include <optional>

#include "config/pkey_tables.h"

namespace smsupd {
namespace {

constexpr uint16_t kDefaultFullEntry = 0xffff;

// The entries a table read from the fabric holds: no empty slots (a P_Key
// of 0 is not a partition, with or without the full bit).
std::set<uint16_t> Entries(const std::vector<uint16_t>& table) {
  std::set<uint16_t> entries;
  for (uint16_t entry : table)
    if ((entry & ~config::kPKeyFullBit) != 0) entries.insert(entry);
  return entries;
}

// 15-bit P_Key -> full, as PKeyMismatch shows it.
std::map<uint16_t, bool> AsTable(const std::set<uint16_t>& entries) {
  std::map<uint16_t, bool> table;
  for (uint16_t entry : entries) {
    bool& full = table[entry & ~config::kPKeyFullBit];
    full = full || (entry & config::kPKeyFullBit) != 0;
  }
  return table;
}

std::map<Guid, std::string> HostNames(const config::Config& config) {
  std::map<Guid, std::string> names;
  for (const auto& [host, guids] : config.hosts)
    for (Guid guid : guids) names.emplace(guid, host);
  return names;
}

// The expected entries of the ports to read. The master's port is passed
// too, flagged, because SELF and the SM-port base rule depend on it.
std::map<Guid, std::set<uint16_t>> ExpectedEntries(const config::Config& config,
                                                   const std::vector<DiscoveredPort>& chosen,
                                                   Guid sm_port) {
  std::vector<config::FabricPort> ports;
  bool sm_listed = false;
  for (const DiscoveredPort& port : chosen) {
    bool is_sm = sm_port != 0 && port.port_guid == sm_port;
    sm_listed = sm_listed || is_sm;
    ports.push_back(config::FabricPort{port.port_guid, PortKindOf(port.node_type), is_sm});
  }
  if (sm_port != 0 && !sm_listed) ports.push_back(config::FabricPort{sm_port, config::PortKind::kCa, true});
  return config::ExpectedPKeyEntries(config, ports);
}

// The local port is read by directed route (LID 0 in Fabric calls); any
// other port needs the LID the SM gave it.
Result<std::vector<uint16_t>> ReadTable(Fabric& fabric, const DiscoveredPort& port, Guid local_port) {
  if (port.port_guid == local_port) return fabric.GetPKeyTable(0, port.port_num);
  if (port.lid == 0) return Error{"no LID assigned"};
  return fabric.GetPKeyTable(port.lid, port.port_num);
}

// OpenSM's fallback: every port read holds exactly a full 0x7fff, while the
// config puts some of them in other partitions.
bool LooksLikeFallback(const std::map<Guid, std::set<uint16_t>>& expected,
                       const std::map<Guid, std::set<uint16_t>>& actual) {
  if (actual.empty()) return false;
  bool config_has_others = false;
  for (const auto& [guid, entries] : actual) {
    if (entries != std::set<uint16_t>{kDefaultFullEntry}) return false;
    auto it = expected.find(guid);
    if (it == expected.end()) continue;
    for (uint16_t entry : it->second)
      config_has_others =
          config_has_others || (entry & ~config::kPKeyFullBit) != config::kDefaultPKey;
  }
  return config_has_others;
}

// A table the config fills to its capacity (or beyond) only has to hold
// expected entries: OpenSM programs the first ones and logs the rest, and at
// exactly capacity it was seen to program one fewer (ibsim's 8-entry switch
// port 0; tests/config conformance tests). The validator warns about such
// configs (limits.pkeys_per_port).
bool Matches(const std::set<uint16_t>& want, const std::set<uint16_t>& got, size_t capacity) {
  if (capacity == 0 || want.size() < capacity) return got == want;
  return !got.empty() && std::includes(want.begin(), want.end(), got.begin(), got.end());
}

PKeyMismatch MakeMismatch(const DiscoveredPort& port, std::string host, const std::set<uint16_t>& want,
                          const std::set<uint16_t>& got) {
  PKeyMismatch mismatch;
  mismatch.guid = port.port_guid;
  mismatch.lid = port.lid;
  mismatch.host = std::move(host);
  mismatch.expected = AsTable(want);
  mismatch.actual = AsTable(got);
  mismatch.expected_entries = want;
  mismatch.actual_entries = got;
  return mismatch;
}

// What every port's check needs, gathered once.
struct Context {
  std::map<Guid, std::string> hosts;
  std::map<Guid, std::set<uint16_t>> expected;
  Guid local_port = 0;
  std::chrono::steady_clock::time_point deadline;

  // "h3 0x...": the inventory name, else the node description.
  std::string Name(Guid guid, const std::string& description) const {
    auto host = hosts.find(guid);
    return host != hosts.end() ? host->second : description;
  }
  std::string Label(Guid guid, const std::string& description) const {
    std::string name = Name(guid, description);
    return (name.empty() ? std::string() : name + " ") + FormatGuid(guid);
  }
};

// Reads one port's table and records it: unreachable, a mismatch, or a
// match. Returns the entries read (for the fallback check).
std::optional<std::set<uint16_t>> CheckPort(Fabric& fabric, const DiscoveredPort& port, const Context& context,
                                            PKeyVerification& verification) {
  Result<std::vector<uint16_t>> table = std::chrono::steady_clock::now() < context.deadline
                                            ? ReadTable(fabric, port, context.local_port)
                                            : Error{"not read: verification out of time"};
  if (!table) {
    verification.unreachable.push_back(context.Label(port.port_guid, port.node_description) + ": " +
                                       table.error().message);
    return std::nullopt;
  }
  ++verification.checked;
  std::set<uint16_t> entries = Entries(*table);
  auto want = context.expected.find(port.port_guid);
  const std::set<uint16_t> none;
  const std::set<uint16_t>& expected = want != context.expected.end() ? want->second : none;
  if (!Matches(expected, entries, table->size())) {
    verification.mismatches.push_back(
        MakeMismatch(port, context.Name(port.port_guid, port.node_description), expected, entries));
  }
  return entries;
}

}  // namespace

config::PortKind PortKindOf(NodeType type) {
  switch (type) {
    case NodeType::kSwitch:
      return config::PortKind::kSwitch;
    case NodeType::kRouter:
      return config::PortKind::kRouter;
    default:
      return config::PortKind::kCa;
  }
}

PKeyVerification VerifyPKeys(Fabric& fabric, const config::Config& config,
                             const std::vector<DiscoveredPort>& ports, const VerifyOptions& options) {
  PKeyVerification verification;
  std::vector<Guid> absent;
  std::vector<DiscoveredPort> chosen = ChoosePortsToVerify(config, ports, options, &absent);
  Context context;
  context.hosts = HostNames(config);
  context.expected = ExpectedEntries(config, chosen, options.local_sm_port);
  Result<Guid> local = fabric.LocalPortGuid();
  context.local_port = local ? *local : 0;
  context.deadline = options.deadline;

  for (Guid guid : absent) verification.absent.push_back(context.Label(guid, ""));
  verification.expected = static_cast<int>(chosen.size());
  std::map<Guid, std::set<uint16_t>> actual;
  for (const DiscoveredPort& port : chosen) {
    std::optional<std::set<uint16_t>> entries = CheckPort(fabric, port, context, verification);
    if (entries) actual[port.port_guid] = std::move(*entries);
  }
  verification.default_fallback = LooksLikeFallback(context.expected, actual);
  return verification;
}

}  // namespace smsupd
