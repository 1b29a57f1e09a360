#include "config/opensm_import.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "config/opensm_conf_import.h"
#include "config/opensm_import_partitions.h"
#include "config/opensm_import_yaml.h"
#include "config/opensm_partitions_conf.h"
#include "config/validator.h"

namespace smsupd::config {
namespace {

// A node-name map as OpenSM's complib reads it (cl_nodenamemap.c): lines
// starting with '#' skipped, the GUID before the first '"' (strtoull base
// 0), the name between the quotes. Only names of GUIDs in `named` are kept;
// a name with several such GUIDs is one host.
std::vector<NamedPorts> ReadNodeNameMap(const ImportFile& file, const std::set<Guid>& named,
                                        ImportSources& sources, ImportFindings& findings) {
  std::vector<NamedPorts> hosts;
  std::map<std::string, std::size_t> index;
  std::map<Guid, int> seen;
  int line = 0;
  std::size_t pos = 0;
  while (pos < file.text.size()) {
    std::size_t end = file.text.find('\n', pos);
    if (end == std::string::npos) end = file.text.size();
    std::string text = file.text.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    std::size_t begin = text.find_first_not_of(" \t\r");
    if (begin == std::string::npos || text[begin] == '#') continue;
    std::size_t open = text.find('"', begin);
    std::size_t close = open == std::string::npos ? open : text.find('"', open + 1);
    std::string guid_text = text.substr(begin, open == std::string::npos ? std::string::npos : open - begin);
    guid_text = guid_text.substr(0, guid_text.find_first_of(" \t\r"));
    char* tail = nullptr;
    Guid guid = std::strtoull(guid_text.c_str(), &tail, 0);
    if (guid == 0 || *tail != '\0' || close == std::string::npos || close == open + 1) {
      findings.push_back({file.name, line, ImportFinding::Severity::kWarning,
                          "not a '0xGUID \"name\"' line: skipped"});
      continue;
    }
    if (seen.count(guid) != 0) {
      findings.push_back({file.name, line, ImportFinding::Severity::kWarning,
                          FormatGuid(guid) + " is named again (first at line " + std::to_string(seen[guid]) + "): the first name kept"});
      continue;
    }
    seen[guid] = line;
    ++sources.map_guids;
    if (named.count(guid) == 0) {
      ++sources.map_guids_unused;
      continue;
    }
    std::string name = text.substr(open + 1, close - open - 1);
    auto [it, added] = index.try_emplace(name, hosts.size());
    if (added) hosts.push_back({name, {}, {}});
    hosts[it->second].guids.push_back(guid);
    hosts[it->second].lines.push_back(line);
  }
  return hosts;
}

// Past this many GUID entries the partitions would not fit the validator's
// bounds one by one (the benchmark's 10,000 hosts: 210,000 entries, 20,000
// GUIDs): ports the map does not name that are in exactly the same
// partitions with exactly the same memberships become one host `ports-N`.
constexpr std::size_t kMaxGuidEntries = 20000;

std::vector<NamedPorts> PortSets(const ImportedPartitions& partitions, const std::vector<NamedPorts>& hosts) {
  std::set<Guid> mapped;
  for (const NamedPorts& host : hosts) mapped.insert(host.guids.begin(), host.guids.end());
  std::map<Guid, std::vector<std::pair<std::uint16_t, PortState>>> signature;
  std::size_t entries = 0;
  for (const ImportedPartition& partition : partitions.partitions)
    for (const auto& [guid, imported] : partition.guids)
      if (mapped.count(guid) == 0) {
        signature[guid].emplace_back(partition.header.pkey, imported.state);
        ++entries;
      }
  std::vector<NamedPorts> sets;
  if (entries <= kMaxGuidEntries) return sets;
  std::map<std::vector<std::pair<std::uint16_t, PortState>>, std::vector<Guid>> classes;
  for (const auto& [guid, key] : signature) classes[key].push_back(guid);
  std::vector<std::vector<Guid>> grouped;
  for (auto& [key, guids] : classes)
    if (guids.size() > 1) grouped.push_back(std::move(guids));
  std::sort(grouped.begin(), grouped.end());
  for (std::vector<Guid>& guids : grouped)
    sets.push_back({"ports-" + std::to_string(sets.size() + 1), std::move(guids), {}, true});
  return sets;
}

// The replay's work: keyword lines x GUIDs named, per partition.
std::size_t ReplaySteps(const PartitionsConfReading& reading) {
  std::map<std::uint16_t, std::pair<std::size_t, std::set<Guid>>> per_pkey;
  for (const PartitionsConfDefinition& definition : reading.definitions)
    for (const PartitionsConfMember& member : definition.members) {
      auto& [keywords, guids] = per_pkey[definition.pkey];
      if (member.kind == PartitionsConfMember::Kind::kGuid) guids.insert(member.guid);
      else ++keywords;
    }
  std::size_t steps = 0;
  for (const auto& [pkey, work] : per_pkey) steps += work.first * (work.second.size() + 1);
  return steps;
}

std::set<Guid> NamedGuids(const PartitionsConfReading& reading) {
  std::set<Guid> named;
  if (reading.error_line) return named;
  for (const PartitionsConfDefinition& definition : reading.definitions)
    for (const PartitionsConfMember& member : definition.members)
      if (member.kind == PartitionsConfMember::Kind::kGuid) named.insert(member.guid);
  return named;
}

}  // namespace

std::string ImportFinding::Format() const {
  std::string where = file.empty() ? "smctl import" : file;
  if (line > 0) where += ":" + std::to_string(line);
  // A finding may quote a line of the input: at most kMaxFindingBytes of it.
  std::string shown = message.size() > kMaxFindingBytes ? message.substr(0, kMaxFindingBytes) + "..." : message;
  return where + (severity == Severity::kError ? ": error: " : ": warning: ") + shown;
}

namespace {

OpenSmConfImport ReadConfInput(const ImportInputs& inputs, ImportSources& sources, ImportFindings& findings) {
  OpenSmConfImport conf;
  if (!inputs.opensm_conf) return conf;
  sources.opensm_conf = inputs.opensm_conf->name;
  conf = ReadOpenSmConf(inputs.opensm_conf->text, sources.opensm_conf, findings);
  for (const ImportedKey& key : conf.keys)
    findings.push_back({sources.opensm_conf, key.line, ImportFinding::Severity::kWarning,
                        key.name + " is set (value not shown): imported as sm." + key.name + "_file /etc/smsupd/" +
                            key.name + "; put the key in that root-only file (mode 0600)"});
  return conf;
}

// partitions.conf as OpenSM reads it; without the file, what OpenSM does
// without one (error_line 0). `too_large` set: refused.
PartitionsConfReading ReadPartitionsInput(const ImportInputs& inputs, const OpenSmConfImport& conf,
                                          ImportSources& sources, ImportFindings& findings) {
  PartitionsConfReading reading;
  if (!inputs.partitions) {
    reading.error_line = 0;
    findings.push_back({"", 0, ImportFinding::Severity::kWarning,
                        "no --partitions file: imported as OpenSM without one (every port a full member of 0x7fff); "
                        "OpenSM reads " + conf.partition_config_file + ": give it with --partitions"});
    return reading;
  }
  sources.partitions = inputs.partitions->name;
  reading = ReadPartitionsConf(inputs.partitions->text, sources.partitions);
  findings.Append(reading.findings);
  if (!reading.too_large && ReplaySteps(reading) > kMaxImportSteps) {
    reading.too_large = true;
    reading.error_line = 0;
    reading.error = "too large to import: keyword lines x the GUIDs of their partitions pass " +
                    std::to_string(kMaxImportSteps) + " steps";
  }
  if (reading.too_large)
    findings.push_back({sources.partitions, *reading.error_line, ImportFinding::Severity::kError,
                        reading.error + ": nothing imported"});
  else if (reading.error_line)
    findings.push_back({sources.partitions, *reading.error_line, ImportFinding::Severity::kError,
                        reading.error + ". OpenSM rejects the whole file and puts every port in 0x7fff as a full "
                        "member (no isolation); imported as that"});
  return reading;
}

// By file (in the order the files were read), then by line.
void SortFindings(ImportFindings& findings) {
  std::vector<std::string> files;
  for (const ImportFinding& finding : findings)
    if (std::find(files.begin(), files.end(), finding.file) == files.end()) files.push_back(finding.file);
  auto rank = [&](const ImportFinding& f) {
    return std::make_pair(std::find(files.begin(), files.end(), f.file) - files.begin(), f.line);
  };
  std::stable_sort(findings.items().begin(), findings.items().end(),
                   [&](const ImportFinding& a, const ImportFinding& b) { return rank(a) < rank(b); });
}

}  // namespace

ImportResult ImportOpenSm(const ImportInputs& inputs) {
  ImportResult result;
  ImportFindings& findings = result.findings;
  ImportSources sources;
  OpenSmConfImport conf = ReadConfInput(inputs, sources, findings);
  PartitionsConfReading reading = ReadPartitionsInput(inputs, conf, sources, findings);
  if (reading.too_large) {
    result.refused = true;
    return result;
  }
  ImportedPartitions partitions =
      ResolvePartitions(reading, sources.partitions, conf.allow_both_pkeys, conf.port_guid, findings);
  std::vector<NamedPorts> hosts;
  if (inputs.node_name_map) {
    sources.node_name_map = inputs.node_name_map->name;
    hosts = ReadNodeNameMap(*inputs.node_name_map, NamedGuids(reading), sources, findings);
  }
  std::vector<NamedPorts> sets = PortSets(partitions, hosts);
  hosts.insert(hosts.end(), sets.begin(), sets.end());
  std::optional<int> fallback_line = inputs.partitions ? reading.error_line : std::nullopt;
  result.yaml = WriteImportYaml(sources, conf, partitions, hosts, fallback_line, findings);
  SortFindings(findings);
  ValidationOutcome validation = ValidateText(result.yaml, "imported smsupd.yaml", KeyFile::kNameOnly);
  for (const Diagnostic& diagnostic : validation.diagnostics)
    if (diagnostic.severity == Severity::kError)
      findings.push_back({"", 0, ImportFinding::Severity::kError, "the imported YAML does not validate: " + diagnostic.Format()});
  result.config = std::move(validation.config);
  return result;
}

}  // namespace smsupd::config
