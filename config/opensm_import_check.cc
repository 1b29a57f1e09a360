#include "config/opensm_import_check.h"

#include <cstdio>

#include "config/opensm_conf_import.h"
#include "config/opensm_import_partitions.h"
#include "config/opensm_partitions_conf.h"

namespace smsupd::config {
namespace {

// Stand-ins for ports no file names, from the top of the GUID space.
constexpr Guid kStandInSm = 0xfffffffffffffff0ull;
constexpr Guid kStandInCa = 0xfffffffffffffff1ull;
constexpr Guid kStandInSwitch = 0xfffffffffffffff2ull;
constexpr Guid kStandInRouter = 0xfffffffffffffff3ull;

struct FileView {
  OpenSmConfImport conf;
  PartitionsConfReading reading;
  bool have_partitions = false;
};

FileView Read(const ImportInputs& inputs) {
  FileView view;
  ImportFindings ignored;
  if (inputs.opensm_conf) view.conf = ReadOpenSmConf(inputs.opensm_conf->text, inputs.opensm_conf->name, ignored);
  if (inputs.partitions) {
    view.reading = ReadPartitionsConf(inputs.partitions->text, inputs.partitions->name);
    view.have_partitions = true;
  }
  return view;
}

bool Picks(PartitionsConfMember::Kind kind, const FabricPort& port) {
  using Kind = PartitionsConfMember::Kind;
  switch (kind) {
    case Kind::kAll: return true;
    case Kind::kAllCas: return port.kind == PortKind::kCa;
    case Kind::kAllSwitches: return port.kind == PortKind::kSwitch;
    case Kind::kAllRouters: return port.kind == PortKind::kRouter;
    default: return false;
  }
}

std::string EntriesText(const std::set<std::uint16_t>& entries) {
  std::string text = "{";
  for (std::uint16_t entry : entries) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%04x", entry);
    text += (text.size() > 1 ? " " : "") + std::string(hex);
  }
  return text + "}";
}

std::vector<FabricPort> PortsOf(const FileView& view) {
  std::vector<FabricPort> ports;
  Guid sm = view.conf.port_guid.value_or(kStandInSm);
  std::set<Guid> seen = {sm, kStandInCa, kStandInSwitch, kStandInRouter};
  ports.push_back({sm, PortKind::kCa, true});
  ports.push_back({kStandInCa, PortKind::kCa, false});
  ports.push_back({kStandInSwitch, PortKind::kSwitch, false});
  ports.push_back({kStandInRouter, PortKind::kRouter, false});
  if (!view.reading.error_line)
    for (const PartitionsConfDefinition& definition : view.reading.definitions)
      for (const PartitionsConfMember& member : definition.members)
        if (member.kind == PartitionsConfMember::Kind::kGuid && seen.insert(member.guid).second)
          ports.push_back({member.guid, PortKind::kCa, false});
  return ports;
}

std::map<Guid, std::set<std::uint16_t>> TablesOf(const FileView& view, const std::vector<FabricPort>& ports) {
  std::map<std::uint16_t, std::map<Guid, PortState>> tables;
  bool fallback = !view.have_partitions || view.reading.error_line.has_value();
  Guid sm = 0;
  for (const FabricPort& port : ports)
    if (port.is_sm_port) sm = port.guid;
  for (const FabricPort& port : ports)  // prtn_make_default()
    tables[kDefaultPKey][port.guid] = fallback || port.guid == sm ? kFullEntry : kLimitedEntry;
  std::set<Guid> known;
  for (const FabricPort& port : ports) known.insert(port.guid);
  if (!fallback) {
    bool allow_both = view.conf.allow_both_pkeys;
    for (const PartitionsConfDefinition& definition : view.reading.definitions) {
      std::map<Guid, PortState>& table = tables[definition.pkey];
      for (const PartitionsConfMember& member : definition.members) {
        using Kind = PartitionsConfMember::Kind;
        if (member.kind == Kind::kSelf || member.kind == Kind::kGuid) {
          Guid guid = member.kind == Kind::kSelf ? sm : member.guid;
          if (known.count(guid) != 0) table[guid] = ApplyMembership(table[guid], member.membership, allow_both);
          continue;
        }
        for (const FabricPort& port : ports)
          if (Picks(member.kind, port))
            table[port.guid] = ApplyMembership(table[port.guid], member.membership, allow_both);
      }
    }
  }
  std::map<Guid, std::set<std::uint16_t>> entries;
  for (const FabricPort& port : ports) entries[port.guid];
  for (const auto& [pkey, table] : tables)
    for (const auto& [guid, state] : table) {
      if (state & kFullEntry) entries[guid].insert(pkey | 0x8000);
      if (state & kLimitedEntry) entries[guid].insert(pkey);
    }
  return entries;
}

}  // namespace

std::vector<FabricPort> ImportCheckPorts(const ImportInputs& inputs) { return PortsOf(Read(inputs)); }

std::map<Guid, std::set<std::uint16_t>> OpenSmTablesFromFiles(const ImportInputs& inputs,
                                                              const std::vector<FabricPort>& ports) {
  return TablesOf(Read(inputs), ports);
}

ImportCheck CheckImport(const ImportInputs& inputs, const ImportResult& imported) {
  ImportCheck check;
  if (!imported.config) {
    check.invalid = "the imported YAML does not validate (see the error above)";
    return check;
  }
  FileView view = Read(inputs);  // once: a file may be 16 MiB
  std::vector<FabricPort> ports = PortsOf(view);
  std::size_t keyword_lines = 0;
  for (const PartitionsConfDefinition& definition : view.reading.definitions)
    for (const PartitionsConfMember& member : definition.members)
      keyword_lines += member.kind != PartitionsConfMember::Kind::kGuid && member.kind != PartitionsConfMember::Kind::kSelf;
  if (keyword_lines * ports.size() > kMaxImportSteps) {
    check.invalid = "too large to check: " + std::to_string(keyword_lines) + " keyword lines x " +
                    std::to_string(ports.size()) + " ports is past " + std::to_string(kMaxImportSteps) + " steps";
    return check;
  }
  std::map<Guid, std::set<std::uint16_t>> from_files = TablesOf(view, ports);
  std::map<Guid, std::set<std::uint16_t>> from_yaml = ExpectedPKeyEntries(*imported.config, ports);
  check.ports = ports.size();
  for (const FabricPort& port : ports)
    if (from_files[port.guid] != from_yaml[port.guid])
      check.differences.push_back("port " + FormatGuid(port.guid) + ": the files give " + EntriesText(from_files[port.guid]) +
                                  ", the imported YAML " + EntriesText(from_yaml[port.guid]));
  return check;
}

}  // namespace smsupd::config
