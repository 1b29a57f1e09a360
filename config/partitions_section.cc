// partitions: section of smsupd.yaml.
#include <cstdio>
#include <set>

#include "common/guid.h"
#include "config/edit_distance.h"
#include "config/ib_codes.h"
#include "config/validator_internal.h"

namespace smsupd::config {
namespace {

// OpenSM keeps 31 characters of a partition name (osm_prtn_t.name).
constexpr size_t kMaxPartitionName = 31;

const std::vector<std::string_view> kPartitionKeys = {
    "name", "pkey", "ipoib", "mtu", "rate", "sl", "scope", "qkey", "tclass", "indx0", "defmember", "members"};
const std::vector<std::string_view> kMemberKeys = {"ports", "group", "host", "guid", "membership"};
const std::vector<std::string_view> kSelectors = {"ports", "group", "host", "guid"};
const std::vector<std::string_view> kMemberships = {"full", "limited", "both"};
const std::vector<std::string_view> kKeywords = {"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"};

Membership ToMembership(const std::string& word) {
  if (word == "full") return Membership::kFull;
  if (word == "both") return Membership::kBoth;
  return Membership::kLimited;
}

PortsKeyword ToKeyword(const std::string& word) {
  for (size_t i = 0; i < kKeywords.size(); ++i)
    if (kKeywords[i] == word) return static_cast<PortsKeyword>(i);
  return PortsKeyword::kAll;
}

bool ReadSelector(const std::string& selector, const YAML::Node& value, const std::string& path,
                  Member& member, ValidationState& state) {
  if (selector == "ports") {
    std::optional<std::string> word = ReadChoice(value, path, kKeywords, state.sink);
    if (!word) return false;
    member.kind = Member::Kind::kPorts;
    member.ports = ToKeyword(*word);
    return true;
  }
  if (selector == "guid") {
    std::optional<Guid> guid = ReadGuid(value, path, state.sink);
    if (!guid) return false;
    member.kind = Member::Kind::kGuid;
    member.guid = *guid;
    return true;
  }
  std::optional<std::string> name = ReadString(value, path, state.sink);
  if (!name) return false;
  bool is_host = selector == "host";
  bool known = is_host ? state.config.hosts.count(*name) != 0 : state.config.groups.count(*name) != 0;
  if (!known) {
    std::vector<std::string_view> candidates;
    if (state.sink.full())
      ;  // the diagnostic is not kept: no suggestion to search for
    else if (is_host)
      for (const auto& [host, guids] : state.config.hosts) candidates.push_back(host);
    else
      for (const auto& [group, members] : state.config.groups) candidates.push_back(group);
    std::string nearest = NearestName(*name, candidates);
    state.sink.Error(value, path, "unknown " + selector + " '" + *name + "'",
                     nearest.empty() ? "define it under " + selector + "s:"
                                     : "did you mean '" + nearest + "'?");
    return false;
  }
  member.kind = is_host ? Member::Kind::kHost : Member::Kind::kGroup;
  member.name = *name;
  return true;
}

std::optional<Member> ReadMember(const YAML::Node& node, const std::string& path,
                                 std::optional<Membership> default_membership, ValidationState& state) {
  MappingView view(node, path, kMemberKeys, state.sink);
  if (!view.valid()) return std::nullopt;
  std::vector<std::string> present;
  for (std::string_view selector : kSelectors)
    if (view.Get(selector) != nullptr) present.emplace_back(selector);
  if (present.size() != 1) {
    std::string names;
    for (const std::string& name : present) names += (names.empty() ? "" : ", ") + name;
    state.sink.Error(node, path, present.empty() ? "member has no selector" : "member has several selectors (" + names + ")",
                     "give exactly one of ports, group, host, guid");
    return std::nullopt;
  }
  Member member;
  member.line = LineOf(node);
  member.column = ColumnOf(node);
  member.membership = default_membership.value_or(Membership::kFull);
  bool ok = ReadSelector(present[0], *view.Get(present[0]), view.PathOf(present[0]), member, state);
  if (const YAML::Node* membership = view.Get("membership")) {
    std::optional<std::string> word = ReadChoice(*membership, view.PathOf("membership"), kMemberships, state.sink);
    if (!word) return std::nullopt;
    member.membership = ToMembership(*word);
  }
  if (!ok) return std::nullopt;
  return member;
}

// The same selector listed twice (whatever the membership) is a warning.
std::string MemberIdentity(const Member& member) {
  switch (member.kind) {
    case Member::Kind::kPorts:
      return std::string("ports ") + PortsKeywordName(member.ports);
    case Member::Kind::kGroup:
      return "group " + member.name;
    case Member::Kind::kHost:
      return "host " + member.name;
    case Member::Kind::kGuid:
      return "guid " + FormatGuid(member.guid);
  }
  return "";
}

void ReadMembers(const YAML::Node& node, const std::string& path, Partition& partition,
                 ValidationState& state) {
  if (node.IsNull() || (node.IsSequence() && node.size() == 0)) {
    state.sink.Warning(node, path, "partition has no members", "OpenSM will drop it");
    return;
  }
  if (!node.IsSequence()) {
    state.sink.Error(node, path, "is not a list", "expected a list of { ports|group|host|guid: ..., membership: ... }");
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < node.size(); ++i) {
    state.deadline.Check();
    std::string member_path = path + "[" + std::to_string(i) + "]";
    std::optional<Member> member = ReadMember(node[i], member_path, partition.defmember, state);
    if (!member) continue;
    if (!seen.insert(MemberIdentity(*member)).second)
      state.sink.Warning(node[i], member_path, "duplicate member (" + MemberIdentity(*member) + ")",
                         "the stronger membership applies; list it once");
    partition.members.push_back(*member);
  }
}

}  // namespace

namespace {

void ReadName(MappingView& view, Partition& partition, ValidationState& state) {
  const YAML::Node* node = view.Require("name", "add 'name: <letters, digits, _ . ->'");
  if (node == nullptr) return;
  std::optional<std::string> name = ReadString(*node, view.PathOf("name"), state.sink);
  if (!name) return;
  if (!IsValidName(*name, kMaxPartitionName)) {
    state.sink.Error(*node, view.PathOf("name"), "'" + *name + "' is not a valid partition name",
                     "1 to 31 letters, digits, _ . - (OpenSM keeps 31 characters)");
    return;
  }
  partition.name = *name;
}

void ReadPKey(MappingView& view, Partition& partition, ValidationState& state) {
  const YAML::Node* node = view.Require("pkey", "add 'pkey: 0x0001' .. 0x7fff");
  if (node == nullptr) return;
  std::optional<std::int64_t> pkey;
  if (node->IsScalar()) pkey = ParseIntegerText(node->Scalar());
  if (!pkey || *pkey < 0x0001 || *pkey > 0x7fff) {
    std::string shown = node->IsScalar() ? "'" + node->Scalar() + "' " : "";
    state.sink.Error(*node, view.PathOf("pkey"), shown + "is not a P_Key in 0x0001..0x7fff",
                     pkey && *pkey > 0x7fff ? "the full-member bit 0x8000 comes from membership; give the 15-bit P_Key"
                                            : "expected 0x0001..0x7fff (0x7fff is the default partition)");
    return;
  }
  partition.pkey = static_cast<std::uint16_t>(*pkey);
}

void ReadGroupFlags(MappingView& view, Partition& partition, ValidationState& state) {
  DiagnosticSink& sink = state.sink;
  if (const YAML::Node* mtu = view.Get("mtu")) {
    std::optional<std::int64_t> bytes;
    if (mtu->IsScalar()) bytes = ParseIntegerText(mtu->Scalar());
    if (bytes && *bytes < 65536 && MtuCode(static_cast<int>(*bytes)))
      partition.mtu = static_cast<int>(*bytes);
    else
      sink.Error(*mtu, view.PathOf("mtu"), "'" + (mtu->IsScalar() ? mtu->Scalar() : "?") + "' is not an IB MTU",
                 "valid: 256, 512, 1024, 2048, 4096 (bytes)");
  }
  if (const YAML::Node* rate = view.Get("rate")) {
    std::optional<double> gbps;
    try {
      if (rate->IsScalar()) gbps = std::stod(rate->Scalar());
    } catch (const std::exception&) {
    }
    if (gbps && RateCode(*gbps))
      partition.rate_gbps = *gbps;
    else
      sink.Error(*rate, view.PathOf("rate"), "'" + (rate->IsScalar() ? rate->Scalar() : "?") + "' is not a rate OpenSM knows",
                 "valid (Gb/s): " + KnownRatesText());
  }
  if (const YAML::Node* sl = view.Get("sl"))
    if (auto value = ReadInteger(*sl, view.PathOf("sl"), 0, 15, sink)) partition.sl = static_cast<int>(*value);
  if (const YAML::Node* scope = view.Get("scope"))
    if (auto value = ReadInteger(*scope, view.PathOf("scope"), 1, 15, sink)) partition.scope = static_cast<int>(*value);
  if (const YAML::Node* qkey = view.Get("qkey"))
    if (auto value = ReadInteger(*qkey, view.PathOf("qkey"), 1, 0xffffffffLL, sink))
      partition.qkey = static_cast<std::uint32_t>(*value);
  if (const YAML::Node* tclass = view.Get("tclass"))
    if (auto value = ReadInteger(*tclass, view.PathOf("tclass"), 0, 255, sink)) partition.tclass = static_cast<int>(*value);
}

void ReadPartition(const YAML::Node& node, const std::string& path, ValidationState& state) {
  MappingView view(node, path, kPartitionKeys, state.sink);
  if (!view.valid()) return;
  Partition partition;
  partition.line = LineOf(node);
  ReadName(view, partition, state);
  ReadPKey(view, partition, state);
  if (const YAML::Node* ipoib = view.Get("ipoib"))
    partition.ipoib = ReadBool(*ipoib, view.PathOf("ipoib"), state.sink).value_or(false);
  if (const YAML::Node* indx0 = view.Get("indx0"))
    partition.indx0 = ReadBool(*indx0, view.PathOf("indx0"), state.sink).value_or(false);
  if (const YAML::Node* defmember = view.Get("defmember"))
    if (auto word = ReadChoice(*defmember, view.PathOf("defmember"), kMemberships, state.sink))
      partition.defmember = ToMembership(*word);
  ReadGroupFlags(view, partition, state);
  const YAML::Node* members = view.Get("members");
  if (members != nullptr)
    ReadMembers(*members, view.PathOf("members"), partition, state);
  else
    state.sink.Warning(node, path, "partition has no members", "OpenSM will drop it");
  state.config.partitions.push_back(std::move(partition));
}

// Duplicate P_Keys are silently merged by OpenSM, duplicate names confuse
// every report: both are refused.
void CheckDuplicates(const YAML::Node& node, ValidationState& state) {
  std::map<std::uint16_t, size_t> pkeys;
  std::map<std::string, size_t> names;
  const std::vector<Partition>& partitions = state.config.partitions;
  for (size_t i = 0; i < partitions.size(); ++i) {
    const Partition& partition = partitions[i];
    std::string path = "partitions[" + std::to_string(i) + "]";
    if (partition.pkey != 0 && !pkeys.try_emplace(partition.pkey, i).second)
      state.sink.Error(node[i]["pkey"], path + ".pkey",
                       "duplicate P_Key " + FormatPKey(partition.pkey) + " (also partitions[" +
                           std::to_string(pkeys[partition.pkey]) + "])",
                       "give each partition its own P_Key");
    if (!partition.name.empty() && !names.try_emplace(partition.name, i).second)
      state.sink.Error(node[i]["name"], path + ".name",
                       "duplicate partition name '" + partition.name + "' (also partitions[" +
                           std::to_string(names[partition.name]) + "])",
                       "give each partition its own name");
  }
}

}  // namespace

void ReadPartitions(const YAML::Node& node, ValidationState& state) {
  if (!node.IsDefined() || node.IsNull()) {
    state.sink.Warning(YAML::Node(), "partitions",
                       "no partitions: rendering 'Default=0x7fff, ipoib : ALL=full ;'",
                       "what OpenSM does without a partitions file; declare partitions to isolate ports");
    return;
  }
  if (!node.IsSequence()) {
    state.sink.Error(node, "partitions", "is not a list", "expected a list of partitions");
    return;
  }
  for (size_t i = 0; i < node.size(); ++i) ReadPartition(node[i], "partitions[" + std::to_string(i) + "]", state);
  if (state.config.partitions.size() == node.size()) CheckDuplicates(node, state);
  bool has_default = false;
  for (const Partition& partition : state.config.partitions) has_default |= partition.pkey == kDefaultPKey;
  if (!has_default)
    state.sink.Warning(node, "partitions",
                       "no partition with pkey 0x7fff: rendering 'Default=0x7fff, ipoib : ALL=full ;'",
                       "what OpenSM does without a partitions file; declare a 0x7fff partition to choose");
}

}  // namespace smsupd::config
