#include "tests/testbed/fabric_pkey_tables.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kPortDeadline(5000);

PKeyEntries NonEmpty(const std::vector<std::uint16_t>& raw) {
  PKeyEntries entries;
  for (std::uint16_t entry : raw)
    if ((entry & 0x7fff) != 0) entries.insert(entry);
  return entries;
}

// Adds "line\n" unless `limit` lines were added already; counts the rest.
void AddLine(std::string& text, int& lines, int limit, const std::string& line) {
  if (++lines <= limit) text += line + "\n";
}

std::string Finish(const std::string& text, int lines, int limit) {
  if (lines <= limit) return text;
  return text + "... and " + std::to_string(lines - limit) + " more port(s)\n";
}

// "" when `actual` is what a port of `capacity` entries holds for `want`.
std::string Mismatch(const PKeyEntries& actual, const PKeyEntries& want, int capacity) {
  bool full = capacity > 0 && static_cast<int>(want.size()) >= capacity;
  bool ok = full ? !actual.empty() && std::includes(want.begin(), want.end(), actual.begin(), actual.end())
                 : actual == want;
  if (ok) return "";
  return "holds " + PKeyEntriesText(actual) + ", expected " + PKeyEntriesText(want) + (full ? " (table full)" : "");
}

}  // namespace

std::string PKeyEntriesText(const PKeyEntries& entries) {
  std::string text;
  char buffer[8];
  for (std::uint16_t entry : entries) {
    std::snprintf(buffer, sizeof buffer, "%04x", entry);
    text += (text.empty() ? "" : " ") + std::string(buffer);
  }
  return "{" + text + "}";
}

Result<FabricPKeyTables> ReadFabricPKeyTables(FabricProbe& probe) {
  Result<std::vector<WalkedPort>> walk = probe.DiscoverWithPKeys();
  if (!walk) return walk.error();
  FabricPKeyTables tables;
  for (const WalkedPort& port : *walk) {
    tables.entries[port.node.port_guid] = NonEmpty(port.raw_pkeys);
    tables.ports[port.node.port_guid] = {port.node.type, port.node.partition_cap};
  }
  return tables;
}

Result<PKeyEntries> ReadPortPKeys(FabricProbe& probe, const std::string& target, int port) {
  Result<nlohmann::json> reply = probe.Call("pkeys " + target + " " + std::to_string(port), kPortDeadline);
  if (!reply) return reply.error();
  return NonEmpty(reply->at("pkeys").get<std::vector<std::uint16_t>>());
}

std::string DescribePKeyMismatches(const FabricPKeyTables& tables, const std::map<Guid, PKeyEntries>& expected,
                                   int limit) {
  static const PKeyEntries kNothing;
  std::string text;
  int lines = 0;
  for (const auto& [guid, actual] : tables.entries) {
    auto want = expected.find(guid);
    auto port = tables.ports.find(guid);
    std::string mismatch = Mismatch(actual, want == expected.end() ? kNothing : want->second,
                                    port == tables.ports.end() ? 0 : port->second.capacity);
    if (!mismatch.empty()) AddLine(text, lines, limit, "port " + FormatGuid(guid) + " " + mismatch);
  }
  for (const auto& [guid, want] : expected)
    if (!tables.entries.count(guid))
      AddLine(text, lines, limit, "port " + FormatGuid(guid) + " not reached, expected " + PKeyEntriesText(want));
  return Finish(text, lines, limit);
}

std::string DescribePKeyDifferences(const FabricPKeyTables& before, const FabricPKeyTables& after, int limit) {
  std::string text;
  int lines = 0;
  std::set<Guid> guids;
  for (const auto& [guid, entries] : before.entries) guids.insert(guid);
  for (const auto& [guid, entries] : after.entries) guids.insert(guid);
  for (Guid guid : guids) {
    auto was = before.entries.find(guid);
    auto is = after.entries.find(guid);
    std::string was_text = was == before.entries.end() ? "(absent)" : PKeyEntriesText(was->second);
    std::string is_text = is == after.entries.end() ? "(absent)" : PKeyEntriesText(is->second);
    if (was_text != is_text)
      AddLine(text, lines, limit, "port " + FormatGuid(guid) + ": " + was_text + " -> " + is_text);
  }
  return Finish(text, lines, limit);
}

}  // namespace smsupd::testbed
