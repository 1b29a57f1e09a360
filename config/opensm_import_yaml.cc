#include "config/opensm_import_yaml.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "config/ib_codes.h"

namespace smsupd::config {
namespace {

constexpr std::size_t kPartitionNameBytes = 31;
constexpr std::size_t kHostNameBytes = 64;
constexpr std::size_t kLinesShown = 6;
// Partitions with more members get a defmember and leave it out of members.
constexpr std::size_t kExplicitMembers = 16;

std::string Hex(unsigned value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*x", digits, value);
  return text;
}

std::string Where(const std::string& file, std::vector<int> lines) {
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string text = file + ":";
  for (std::size_t i = 0; i < lines.size() && i < kLinesShown; ++i) text += (i ? "," : "") + std::to_string(lines[i]);
  if (lines.size() > kLinesShown) text += ",... (" + std::to_string(lines.size()) + " lines)";
  return text;
}

// A name the validator takes: [A-Za-z0-9_.-], at most `max` bytes, unique in `taken`.
std::string SafeName(const std::string& name, std::size_t max, std::set<std::string>& taken, const std::string& fallback) {
  std::string safe;
  for (char c : name.substr(0, max))
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ? c : '_';
  if (safe.empty()) safe = fallback;
  for (int n = 2; taken.count(safe) != 0; ++n) {
    std::string suffix = "-" + std::to_string(n);
    safe = safe.substr(0, std::min(safe.size(), max - suffix.size())) + suffix;
  }
  taken.insert(safe);
  return safe;
}

std::optional<double> RateGbps(unsigned code) {
  for (double gbps : {2.5, 5.0, 10.0, 14.0, 20.0, 25.0, 28.0, 30.0, 40.0, 50.0, 56.0, 60.0, 80.0, 100.0, 112.0, 120.0,
                      168.0, 200.0, 300.0, 400.0, 600.0})
    if (RateCode(gbps) == static_cast<int>(code)) return gbps;
  return std::nullopt;
}

std::string GbpsText(double gbps) {
  char text[16];
  std::snprintf(text, sizeof text, "%g", gbps);
  return text;
}

class Writer {
 public:
  Writer(const ImportSources& sources, ImportFindings& findings) : sources_(sources), findings_(findings) {}
  void Header(const std::optional<int>& fallback_line);
  void Sm(const OpenSmConfImport& conf);
  void Hosts(const std::vector<NamedPorts>& hosts);
  void Partitions(const ImportedPartitions& partitions, const std::optional<Guid>& sm_port);
  std::string Text() { return std::move(text_); }

 private:
  void Partition(const ImportedPartition& partition, const std::optional<Guid>& sm_port);
  void Flags(const ImportedPartition& partition);
  void Member(const std::string& selector, PortState state, const std::string& comment);
  void FlushMembers();
  struct PendingMember {
    std::string selector;
    PortState state;
    std::string comment;
  };
  std::vector<PendingMember> members_;
  void Warn(int line, const std::string& message) {
    findings_.push_back({sources_.partitions, line, ImportFinding::Severity::kWarning, message});
  }

  const ImportSources& sources_;
  ImportFindings& findings_;
  std::string text_;
  std::map<Guid, std::string> host_of_;                // GUID -> YAML host name
  std::map<std::string, std::vector<Guid>> host_ports_;  // YAML host name -> its GUIDs
  std::set<std::string> partition_names_;
};

void Writer::Header(const std::optional<int>& fallback_line) {
  text_ += "# smsupd.yaml imported by `smctl import` from\n";
  if (!sources_.opensm_conf.empty()) text_ += "#   opensm.conf:     " + sources_.opensm_conf + "\n";
  if (!sources_.partitions.empty()) text_ += "#   partitions.conf: " + sources_.partitions + "\n";
  if (!sources_.node_name_map.empty()) text_ += "#   node-name map:   " + sources_.node_name_map + "\n";
  text_ += "# It gives every port the P_Key table OpenSM gives it with these files today.\n"
           "# Comments name the FILE:LINE of each entry; NOTE marks where that differs\n"
           "# from what the files seem to say. Review, then: smctl validate; smctl plan.\n";
  if (fallback_line)
    text_ += "#\n# NOTE: " + sources_.partitions + ":" + std::to_string(*fallback_line) +
             " has an error: OpenSM rejects the WHOLE file and puts every\n"
             "# port in the default partition 0x7fff as a full member: no isolation at all.\n"
             "# That is what this config does. Fix partitions.conf and import again.\n";
  text_ += "version: 1\n\n";
}

void Writer::Sm(const OpenSmConfImport& conf) {
  std::string from = sources_.opensm_conf.empty() ? "" : sources_.opensm_conf + ":" + std::to_string(conf.sm_priority_line);
  int priority = conf.sm_priority;
  std::string note;
  if (priority == 0) {
    note = "sm_priority 0 (OpenSM's default) is reserved by smsupd: imported as role master, priority 15";
    priority = 15;
  } else if (priority == kClaimPriority) {
    note = "sm_priority 14 is reserved by smsupd: imported as 15";
    priority = 15;
    findings_.push_back({sources_.opensm_conf, conf.sm_priority_line, ImportFinding::Severity::kWarning,
                         "sm_priority 14 is reserved by smsupd's failover policy: imported as 15"});
  }
  bool master = priority > kDefaultStandbyPriority;
  text_ += "sm:\n";
  text_ += std::string("  role: ") + (master ? "master" : "standby") +
           "   # from sm_priority (above 5: master); the other SM node of the subnet gets the other role\n";
  text_ += "  priority: " + std::to_string(priority) + "   # " +
           (conf.sm_priority_line ? from + ": sm_priority " + std::to_string(conf.sm_priority) : "sm_priority not set") +
           (note.empty() ? "" : "; " + note) + "\n";
  if (conf.port_guid)
    text_ += "  port_guid: " + FormatGuid(*conf.port_guid) + "   # " + sources_.opensm_conf + ":" +
             std::to_string(conf.port_guid_line) + ": guid\n";
  for (const ImportedKey& key : conf.keys) {
    text_ += "  # " + sources_.opensm_conf + ":" + std::to_string(key.line) + " sets " + key.name +
             ". smsupd.yaml holds no key: put the value in a root-only file first:\n"
             "  #   install -m 0600 -o root -g root /dev/null /etc/smsupd/" + key.name + "\n"
             "  #   then write that value (0x + hex digits) into it; smctl validate checks it\n";
    text_ += "  " + key.name + "_file: /etc/smsupd/" + key.name + "\n";
  }
  for (const ImportedOption& option : conf.not_imported)
    text_ += "  # " + sources_.opensm_conf + ":" + std::to_string(option.line) + ": " + option.name +
             " not imported: " + option.yaml_value + "\n";
  for (const SmsupdDefaultNote& note : conf.smsupd_defaults)
    text_ +=
        "  # " + sources_.opensm_conf +
        (note.line ? ":" + std::to_string(note.line) + ": " + note.name + " " + note.opensm_value
                   : ": " + note.name + " not set, so " + note.opensm_value) +
        " (OpenSM's default): smsupd renders " + note.smsupd_value + "; to keep " +
        note.opensm_value + ", add '" + note.name + ": " + note.opensm_value +
        "' to sm.opensm.options\n";
  if (!conf.options.empty()) {
    text_ += "  opensm:\n    options:   # the opensm.conf options that differ from OpenSM's defaults\n";
    for (const ImportedOption& option : conf.options)
      text_ += "      " + option.name + ": " + option.yaml_value + "   # " + sources_.opensm_conf + ":" +
               std::to_string(option.line) + "\n";
  }
  text_ += "\n";
}

void Writer::Hosts(const std::vector<NamedPorts>& hosts) {
  if (sources_.map_guids_unused > 0)
    text_ += "# " + sources_.node_name_map + ": " + std::to_string(sources_.map_guids_unused) + " of its " +
             std::to_string(sources_.map_guids) + " GUIDs are not named in partitions.conf, so not imported as hosts\n"
             "# (OpenSM's map names node GUIDs, partitions.conf port GUIDs; a switch is named by both).\n";
  if (hosts.empty()) return;
  std::set<std::string> taken;
  text_ += "hosts:   # the node-name map's names of the port GUIDs partitions.conf names\n";
  for (const NamedPorts& host : hosts) {
    std::string name = SafeName(host.name, kHostNameBytes, taken, "host");
    if (name != host.name && !host.port_set)
      findings_.push_back({sources_.node_name_map, host.lines.front(), ImportFinding::Severity::kWarning,
                           "name '" + host.name + "' is not a valid smsupd.yaml host name: imported as '" + name + "'"});
    std::string list;
    for (Guid guid : host.guids) {
      list += (list.empty() ? "" : ", ") + FormatGuid(guid);
      host_of_[guid] = name;
    }
    host_ports_[name] = host.guids;
    text_ += "  " + name + ": [" + list + "]   # " +
             (host.port_set ? std::string("not in the map: ports in the same partitions with the same memberships")
                            : Where(sources_.node_name_map, host.lines)) + "\n";
  }
  text_ += "\n";
}

void Writer::Member(const std::string& selector, PortState state, const std::string& comment) {
  if (MembershipOf(state)) members_.push_back({selector, state, comment});
}

void Writer::FlushMembers() {
  // The most common membership becomes the partition's defmember and is
  // left out of its members: a big partition stays within the validator's bounds.
  std::map<PortState, std::size_t> count;
  for (const PendingMember& member : members_) ++count[member.state];
  PortState common = 0;
  for (const auto& [state, n] : count)
    if (common == 0 || n > count[common]) common = state;
  bool use_default = members_.size() > kExplicitMembers;
  if (use_default) text_ += std::string("    defmember: ") + MembershipName(*MembershipOf(common)) + "\n";
  text_ += "    members:\n";
  for (const PendingMember& member : members_) {
    std::string membership = use_default && member.state == common
                                 ? ""
                                 : std::string(", membership: ") + MembershipName(*MembershipOf(member.state));
    text_ += "      - { " + member.selector + membership + " }" +
             (member.comment.empty() ? "" : "   # " + member.comment) + "\n";
  }
  members_.clear();
}

void Writer::Flags(const ImportedPartition& p) {
  const PartitionsConfDefinition& h = p.header;
  int line = h.line;
  if (h.ipoib) text_ += "    ipoib: true\n";
  if (h.mtu) {
    if (*h.mtu >= 1 && *h.mtu <= 5) text_ += "    mtu: " + std::to_string(256 << (*h.mtu - 1)) + "   # mtu=" + std::to_string(*h.mtu) + "\n";
    else Warn(line, "mtu=" + std::to_string(*h.mtu) + " is not an IB MTU code (1..5): not imported");
  }
  if (h.rate) {
    if (std::optional<double> gbps = RateGbps(*h.rate)) text_ += "    rate: " + GbpsText(*gbps) + "   # rate=" + std::to_string(*h.rate) + "\n";
    else Warn(line, "rate=" + std::to_string(*h.rate) + " is not a rate code OpenSM knows: not imported");
  }
  if (h.sl) text_ += "    sl: " + std::to_string(*h.sl) + "\n";
  for (unsigned scope = 1, seen = 0; scope < 16; ++scope) {
    if ((h.scope_mask & (1u << scope)) == 0) continue;
    if (seen++ == 0) text_ += "    scope: " + std::to_string(scope) + "\n";
    else Warn(line, "scope=" + std::to_string(scope) + ": smsupd.yaml keeps one scope per partition; not imported");
  }
  if (h.qkey && *h.qkey != 0) text_ += "    qkey: " + Hex(*h.qkey, 8) + "\n";
  if (h.tclass && *h.tclass != 0) text_ += "    tclass: " + std::to_string(*h.tclass) + "\n";
  if (h.flow_label) Warn(line, "FlowLabel has no smsupd.yaml key: not imported (it only shapes the IPoIB broadcast group)");
  if (h.indx0) text_ += "    indx0: true\n";
}

void Writer::Partition(const ImportedPartition& p, const std::optional<Guid>& sm_port) {
  std::string name = SafeName(p.header.name, kPartitionNameBytes, partition_names_, "pkey_" + Hex(p.header.pkey, 4).substr(2));
  if (p.defined && name != p.header.name)
    Warn(p.header.line, "partition name '" + p.header.name + "' is not a valid (or unique) smsupd.yaml name: imported as '" + name + "'");
  text_ += "  # " + (p.defined ? Where(sources_.partitions, p.lines) : std::string("OpenSM's default partition (no 0x7fff line)")) +
           (p.lines.size() > 1 ? " (one P_Key, several definitions: merged as OpenSM does)" : "") + "\n";
  for (std::size_t i = 0; i < p.notes.size() && i < kLinesShown; ++i) text_ += "  # NOTE: " + p.notes[i] + "\n";
  if (p.notes.size() > kLinesShown) text_ += "  # NOTE: ... " + std::to_string(p.notes.size() - kLinesShown) + " more (see the warnings)\n";
  text_ += "  - name: " + name + "\n    pkey: " + Hex(p.header.pkey, 4) + "\n";
  Flags(p);
  using Kind = PartitionsConfMember::Kind;
  auto lines_of = [&](std::initializer_list<Kind> kinds) {
    std::vector<int> lines;
    for (Kind kind : kinds)
      if (auto it = p.keyword_lines.find(kind); it != p.keyword_lines.end()) lines.insert(lines.end(), it->second.begin(), it->second.end());
    std::sort(lines.begin(), lines.end());
    return lines.empty() ? std::string("OpenSM's base: every port limited in 0x7fff") : Where(sources_.partitions, lines);
  };
  if (p.ca != 0 && p.ca == p.switches && p.ca == p.routers) {
    Member("ports: ALL", p.ca, lines_of({Kind::kAll, Kind::kAllCas, Kind::kAllSwitches, Kind::kAllRouters}));
  } else {
    Member("ports: ALL_CAS", p.ca, lines_of({Kind::kAll, Kind::kAllCas}));
    Member("ports: ALL_SWITCHES", p.switches, lines_of({Kind::kAll, Kind::kAllSwitches}));
    Member("ports: ALL_ROUTERS", p.routers, lines_of({Kind::kAll, Kind::kAllRouters}));
  }
  if (p.self != p.ca || !p.self_lines.empty()) {
    std::string why = p.self_lines.empty() ? "OpenSM's own port: full in 0x7fff before the file is read"
                                           : Where(sources_.partitions, p.self_lines);
    Member(sm_port ? "guid: " + FormatGuid(*sm_port) : "ports: SELF", p.self, sm_port ? "SELF, " + why : why);
  }
  std::set<std::string> hosts_done;
  for (const auto& [guid, imported] : p.guids) {
    auto host = host_of_.find(guid);
    if (host != host_of_.end() && hosts_done.count(host->second) == 0) {
      bool whole = true;
      std::vector<int> lines;
      for (Guid port : host_ports_[host->second]) {
        auto it = p.guids.find(port);
        whole = whole && it != p.guids.end() && it->second.state == imported.state;
        if (it != p.guids.end()) lines.insert(lines.end(), it->second.lines.begin(), it->second.lines.end());
      }
      if (whole) {
        hosts_done.insert(host->second);
        std::sort(lines.begin(), lines.end());
        Member("host: " + host->second, imported.state, Where(sources_.partitions, lines));
        continue;
      }
    }
    if (host != host_of_.end() && hosts_done.count(host->second) != 0) continue;
    Member("guid: " + FormatGuid(guid), imported.state,
           (host != host_of_.end() ? host->second + ", " : std::string()) + Where(sources_.partitions, imported.lines));
  }
  FlushMembers();
  text_ += "\n";
}

void Writer::Partitions(const ImportedPartitions& partitions, const std::optional<Guid>& sm_port) {
  text_ += "partitions:\n";
  for (const ImportedPartition& partition : partitions.partitions) Partition(partition, sm_port);
}

// A file name as a YAML comment shows it: no control character can end
// the comment line (a name with a newline would write YAML of its own).
std::string CommentSafe(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

}  // namespace

std::string WriteImportYaml(const ImportSources& given_sources, const OpenSmConfImport& conf,
                            const ImportedPartitions& partitions, const std::vector<NamedPorts>& hosts,
                            const std::optional<int>& fallback_line, ImportFindings& findings) {
  ImportSources sources = given_sources;
  for (std::string* name : {&sources.opensm_conf, &sources.partitions, &sources.node_name_map}) *name = CommentSafe(*name);
  Writer writer(sources, findings);
  writer.Header(fallback_line);
  writer.Sm(conf);
  writer.Hosts(hosts);
  writer.Partitions(partitions, conf.port_guid);
  return writer.Text();
}

}  // namespace smsupd::config
