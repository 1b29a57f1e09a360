#include "tests/daemon/pkey_apply/fabric_tables.h"

#include <cstdio>
#include <vector>

#include "config/validator.h"

namespace smsupd::testbed::pkey {
namespace {

// NodeInfo NodeType (IBA 14.2.5.3): 1 CA, 2 switch, 3 router.
config::PortKind KindOf(int node_type) {
  if (node_type == 2) return config::PortKind::kSwitch;
  if (node_type == 3) return config::PortKind::kRouter;
  return config::PortKind::kCa;
}

// Adds "line\n" unless `limit` lines were added already; counts the rest.
void AddLine(std::string& text, int& lines, int limit, const std::string& line) {
  if (++lines <= limit) text += line + "\n";
}

std::string Finish(const std::string& text, int lines, int limit) {
  if (lines <= limit) return text;
  return text + "... and " + std::to_string(lines - limit) + " more port(s)\n";
}

}  // namespace

std::string EntriesText(const std::set<std::uint16_t>& entries) {
  std::string text;
  char buffer[8];
  for (std::uint16_t entry : entries) {
    std::snprintf(buffer, sizeof buffer, "%04x", entry);
    text += (text.empty() ? "" : " ") + std::string(buffer);
  }
  return "{" + text + "}";
}

Result<FabricTables> ReadFabricTables(FabricProbe& probe) {
  Result<std::vector<WalkedPort>> walk = probe.DiscoverWithPKeys();
  if (!walk) return walk.error();
  FabricTables tables;
  for (const WalkedPort& port : *walk) {
    std::set<std::uint16_t>& entries = tables.entries[port.node.port_guid];
    for (std::uint16_t raw : port.raw_pkeys)
      if ((raw & 0x7fff) != 0) entries.insert(raw);
    tables.kinds[port.node.port_guid] = KindOf(port.node.type);
  }
  return tables;
}

Result<config::Config> LoadConfig(const std::string& path) {
  config::ValidationOutcome outcome = config::LoadAndValidate(path);
  if (outcome.ok()) return *outcome.config;
  std::string text = path + " is invalid:";
  for (const auto& diagnostic : outcome.diagnostics) text += "\n" + diagnostic.Format();
  return Error{text};
}

std::string DescribeMismatches(const FabricTables& tables, const config::Config& config, Guid master_port,
                               int limit) {
  std::vector<config::FabricPort> ports;
  for (const auto& [guid, kind] : tables.kinds) ports.push_back({guid, kind, guid == master_port});
  std::map<Guid, std::set<std::uint16_t>> expected = config::ExpectedPKeyEntries(config, ports);
  std::string text;
  int lines = 0;
  for (const auto& [guid, actual] : tables.entries) {
    const std::set<std::uint16_t>& want = expected[guid];
    if (actual != want)
      AddLine(text, lines, limit,
              "port " + FormatGuid(guid) + " holds " + EntriesText(actual) + ", expected " + EntriesText(want));
  }
  return Finish(text, lines, limit);
}

std::string DescribeDifferences(const FabricTables& before, const FabricTables& after, int limit) {
  std::string text;
  int lines = 0;
  std::set<Guid> guids;
  for (const auto& [guid, entries] : before.entries) guids.insert(guid);
  for (const auto& [guid, entries] : after.entries) guids.insert(guid);
  for (Guid guid : guids) {
    auto was = before.entries.find(guid);
    auto is = after.entries.find(guid);
    std::string was_text = was == before.entries.end() ? "(absent)" : EntriesText(was->second);
    std::string is_text = is == after.entries.end() ? "(absent)" : EntriesText(is->second);
    if (was_text != is_text) AddLine(text, lines, limit, "port " + FormatGuid(guid) + ": " + was_text + " -> " + is_text);
  }
  return Finish(text, lines, limit);
}

}  // namespace smsupd::testbed::pkey
