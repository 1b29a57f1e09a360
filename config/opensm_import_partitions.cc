#include "config/opensm_import_partitions.h"

#include <algorithm>
#include <cstdio>

#include "common/guid.h"

namespace smsupd::config {
namespace {

using Kind = PartitionsConfMember::Kind;

// How specific a line is, as smsupd's product rule ranks selectors.
int RankOf(Kind kind) {
  switch (kind) {
    case Kind::kAll: return 0;
    case Kind::kAllCas: case Kind::kAllSwitches: case Kind::kAllRouters: return 1;
    default: return 2;
  }
}

// Ports a finding names one by one; the rest are counted.
constexpr std::size_t kPortsNamed = 8;

std::string StateText(PortState state) {
  std::optional<Membership> membership = MembershipOf(state);
  return membership ? MembershipName(*membership) : "no member";
}

// One port class while the lines are replayed.
struct ClassState {
  PortState state = 0;
  int rank = -1;  // of the line that set it last; -1: OpenSM's base
  int line = 0;
};

class Replay {
 public:
  Replay(const std::string& file, bool allow_both, std::optional<Guid> sm_port, ImportFindings& findings)
      : file_(file), allow_both_(allow_both), sm_port_(sm_port), findings_(findings) {}

  void Apply(ImportedPartition& partition, const PartitionsConfMember& member);
  void ApplyNamed(ImportedPartition& partition, const PartitionsConfMember& member);
  void ApplyKeyword(ImportedPartition& partition, const PartitionsConfMember& member);
  // OpenSM's base in 0x7fff: every port limited, the SM port full.
  void Base() {
    ca_ = sw_ = rt_ = {kLimitedEntry, -1, 0};
    self_ = {kFullEntry, -1, 0};
  }
  void Store(ImportedPartition& partition);
  void Reset() {
    ca_ = sw_ = rt_ = self_ = {};
    guids_.clear();
  }

 private:
  // Applies one line to one class; returns true when an earlier, more
  // specific or stronger line of the same port was overridden.
  bool Change(ClassState& target, Membership membership, int rank, int line);
  // A finding, and a NOTE in the partition's YAML comment.
  void Warn(int line, const std::string& message) {
    findings_.push_back({file_, line, ImportFinding::Severity::kWarning, message});
    if (current_ != nullptr) current_->notes.push_back("line " + std::to_string(line) + ": " + message);
  }

  ImportedPartition* current_ = nullptr;
  const std::string& file_;
  bool allow_both_;
  std::optional<Guid> sm_port_;
  ImportFindings& findings_;
  ClassState ca_, sw_, rt_, self_;
  std::map<Guid, ClassState> guids_;
};

bool Replay::Change(ClassState& target, Membership membership, int rank, int line) {
  PortState next = ApplyMembership(target.state, membership, allow_both_);
  bool overridden = next != target.state && target.rank >= 0 &&
                    (target.rank > rank || (target.rank == rank && next < target.state && next != 3));
  target.state = next;
  target.rank = rank;
  target.line = line;
  return overridden;
}

void Replay::Apply(ImportedPartition& partition, const PartitionsConfMember& member) {
  current_ = &partition;
  if (member.membership == Membership::kBoth && !allow_both_)
    Warn(member.line, std::string(member.kind == Kind::kGuid ? FormatGuid(member.guid) : KeywordText(member.kind)) +
                          "=both without 'allow_both_pkeys TRUE' in opensm.conf: OpenSM makes " +
                          (member.kind == Kind::kGuid || member.kind == Kind::kSelf ? "that port" : "those ports") +
                          " a full member only");
  if (RankOf(member.kind) == 2)
    ApplyNamed(partition, member);
  else
    ApplyKeyword(partition, member);
}

// A GUID or SELF line: one port.
void Replay::ApplyNamed(ImportedPartition& partition, const PartitionsConfMember& member) {
  bool self_is_named = member.kind == Kind::kSelf || (sm_port_ && member.guid == *sm_port_);
  ClassState& target = self_is_named ? self_ : guids_.try_emplace(member.guid, ca_).first->second;
  int earlier = target.line;
  std::string before = StateText(target.state);
  if (Change(target, member.membership, 2, member.line))
    Warn(member.line, std::string(member.kind == Kind::kSelf ? "SELF" : FormatGuid(member.guid)) + " named again after line " +
                          std::to_string(earlier) + " (" + before + "): OpenSM keeps the last line, " +
                          StateText(target.state) + "; imported as that");
  if (self_is_named) partition.self_lines.push_back(member.line);
  else partition.guids[member.guid].lines.push_back(member.line);
}

// A keyword line: the classes of its node type, and every port named so
// far that it reaches (named GUIDs are taken for CA ports, the SM port too,
// the latter without a finding: SM ports are HCA ports).
void Replay::ApplyKeyword(ImportedPartition& partition, const PartitionsConfMember& member) {
  const int rank = RankOf(member.kind);
  partition.keyword_lines[member.kind].push_back(member.line);
  bool reaches_cas = member.kind == Kind::kAll || member.kind == Kind::kAllCas;
  if (reaches_cas) Change(ca_, member.membership, rank, member.line);
  if (member.kind == Kind::kAll || member.kind == Kind::kAllSwitches) Change(sw_, member.membership, rank, member.line);
  if (member.kind == Kind::kAll || member.kind == Kind::kAllRouters) Change(rt_, member.membership, rank, member.line);
  std::string list;  // the first kPortsNamed ports overridden
  std::size_t overridden = 0, type_dependent = 0;
  auto override = [&](const std::string& label) {
    if (overridden++ < kPortsNamed) list += (list.empty() ? "" : ", ") + label;
  };
  for (auto& [guid, target] : guids_) {
    bool changes = ApplyMembership(target.state, member.membership, allow_both_) != target.state;
    // Whether a node-type keyword reaches a named GUID depends on its type.
    if (changes && member.kind != Kind::kAll) ++type_dependent;
    if (reaches_cas && Change(target, member.membership, rank, member.line)) override(FormatGuid(guid));
  }
  if (reaches_cas && Change(self_, member.membership, rank, member.line))
    override(sm_port_ ? FormatGuid(*sm_port_) + " (SELF)" : "SELF");
  std::string word = std::string(KeywordText(member.kind)) + "=" + MembershipName(member.membership);
  if (overridden > 0) {
    if (overridden > kPortsNamed) list += " and " + std::to_string(overridden - kPortsNamed) + " more";
    Warn(member.line, word + " comes after lines naming " + std::to_string(overridden) +
                          " port(s) more specifically: OpenSM applies lines in file order, so " + list +
                          " end up " + StateText(reaches_cas ? ca_.state : 0) + "; imported as OpenSM does");
  }
  if (type_dependent > 0)
    Warn(member.line, word + " after GUID lines: it reaches " + std::to_string(type_dependent) +
                          " named port(s) only if they are of that node type, which the files do not say; "
                          "imported as if every named GUID is a CA port");
}

void Replay::Store(ImportedPartition& partition) {
  partition.ca = ca_.state;
  partition.switches = sw_.state;
  partition.routers = rt_.state;
  partition.self = self_.state;
  for (const auto& [guid, state] : guids_) partition.guids[guid].state = state.state;
}

}  // namespace

PortState ApplyMembership(PortState state, Membership membership, bool allow_both_pkeys) {
  // manage_membership_change(): a full or limited line empties the other table.
  if (allow_both_pkeys && membership != Membership::kBoth)
    state &= membership == Membership::kLimited ? ~kFullEntry : ~kLimitedEntry;
  // osm_prtn_add_port(): without allow_both_pkeys an entry replaces the other.
  if (membership != Membership::kLimited) state = (allow_both_pkeys ? state : 0) | kFullEntry;
  if (membership == Membership::kLimited || (membership == Membership::kBoth && allow_both_pkeys))
    state = (allow_both_pkeys ? state : 0) | kLimitedEntry;
  return state;
}

std::optional<Membership> MembershipOf(PortState state) {
  switch (state) {
    case kLimitedEntry: return Membership::kLimited;
    case kFullEntry: return Membership::kFull;
    case kLimitedEntry | kFullEntry: return Membership::kBoth;
    default: return std::nullopt;
  }
}

bool ImportedPartition::HasMembers() const {
  return ca != 0 || switches != 0 || routers != 0 || self != 0 || !guids.empty();
}

ImportedPartitions ResolvePartitions(const PartitionsConfReading& reading, const std::string& file,
                                     bool allow_both_pkeys, std::optional<Guid> sm_port,
                                     ImportFindings& findings) {
  ImportedPartitions out;
  out.fallback = reading.error_line.has_value();
  ImportedPartition base;
  base.header.pkey = kDefaultPKey;
  base.header.name = "Default";
  base.defined = false;
  if (out.fallback) {  // prtn_make_default(no_config): every port full, with IPoIB
    base.header.ipoib = true;
    base.ca = base.switches = base.routers = base.self = kFullEntry;
    out.partitions.push_back(base);
    return out;
  }
  // Group the definitions by P_Key in order of first appearance; 0x7fff first.
  std::vector<std::uint16_t> order = {kDefaultPKey};
  std::map<std::uint16_t, std::vector<const PartitionsConfDefinition*>> by_pkey;
  for (const PartitionsConfDefinition& definition : reading.definitions) {
    auto& list = by_pkey[definition.pkey];
    if (list.empty() && definition.pkey != kDefaultPKey) order.push_back(definition.pkey);
    if (!list.empty())
      findings.push_back({file, definition.line, ImportFinding::Severity::kWarning,
                          "P_Key " + FormatPKey(definition.pkey) + " ('" + definition.name + "') is defined again (first at line " +
                              std::to_string(list.front()->line) + "): OpenSM merges it into the first definition, "
                              "name and IPoIB flags of the first kept; imported as one partition"});
    if (definition.auto_pkey)
      findings.push_back({file, definition.line, ImportFinding::Severity::kWarning,
                          "'" + definition.name + "' has no P_Key: OpenSM assigns one; imported with " + FormatPKey(definition.pkey) +
                              ", the one a first sweep assigns (later sweeps may differ)"});
    list.push_back(&definition);
  }
  bool file_defines_default = by_pkey.count(kDefaultPKey) != 0;
  for (std::uint16_t pkey : order) {
    ImportedPartition partition = pkey == kDefaultPKey ? base : ImportedPartition{};
    Replay replay(file, allow_both_pkeys, sm_port, findings);
    if (pkey == kDefaultPKey) replay.Base();
    const auto& definitions = by_pkey[pkey];
    if (!definitions.empty()) {
      partition.header = *definitions.front();
      partition.defined = true;
    }
    for (const PartitionsConfDefinition* definition : definitions) {
      partition.lines.push_back(definition->line);
      for (const PartitionsConfMember& member : definition->members) replay.Apply(partition, member);
    }
    replay.Store(partition);
    for (const auto& [guid, imported] : partition.guids) out.uses_both |= imported.state == 3;
    out.uses_both |= partition.ca == 3 || partition.switches == 3 || partition.routers == 3 || partition.self == 3;
    if (!partition.HasMembers()) {
      findings.push_back({file, partition.header.line, ImportFinding::Severity::kWarning,
                          "partition '" + partition.header.name + "' (" + FormatPKey(static_cast<std::uint16_t>(pkey)) +
                              ") has no members: OpenSM drops it; not imported"});
      continue;
    }
    out.partitions.push_back(std::move(partition));
  }
  if (!file_defines_default)
    findings.push_back({file, 0, ImportFinding::Severity::kWarning,
                        "no 0x7fff (Default) definition: OpenSM makes every port a limited member of 0x7fff and its "
                        "own port a full one; imported as that"});
  return out;
}

}  // namespace smsupd::config
