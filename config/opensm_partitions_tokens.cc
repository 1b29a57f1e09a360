#include "config/opensm_partitions_tokens.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace smsupd::config {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

std::string Trim(const std::string& text) {
  std::size_t begin = SkipBlanks(text, 0);
  std::size_t end = text.size();
  while (end > begin && IsBlank(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// strtoul(value, &end, 0); `clean` false when text follows the number.
unsigned long Number(const std::string& value, bool& clean) {
  char* end = nullptr;
  unsigned long number = std::strtoul(value.c_str(), &end, 0);
  clean = end != value.c_str() && *end == '\0';
  return number;
}

using Findings = ImportFindings;

void Skipped(Findings& findings, const std::string& file, int line, const std::string& what) {
  findings.push_back({file, line, ImportFinding::Severity::kWarning, what});
}

// parse_group_flag(): true when `flag` names a group flag (matched by prefix).
bool GroupFlag(const NameToken& flag, int line, const std::string& file, PartitionsConfDefinition& d,
               Findings& findings) {
  const std::string& name = flag.name;
  const std::optional<std::string>& value = flag.value;
  bool clean = true;
  auto number = [&]() -> std::optional<unsigned long> {
    if (!value) return std::nullopt;
    unsigned long n = Number(*value, clean);
    if (!clean) Skipped(findings, file, line, "flag '" + name + "': suspicious value '" + *value + "', OpenSM reads " + std::to_string(n));
    return n;
  };
  if (IsPrefixOf(name, "mtu") || IsPrefixOf(name, "rate")) {
    bool mtu = IsPrefixOf(name, "mtu");
    std::optional<unsigned long> n = number();
    if (!n || *n == 0) Skipped(findings, file, line, std::string("flag '") + (mtu ? "mtu" : "rate") + "' without a valid value: OpenSM skips it");
    if (n) (mtu ? d.mtu : d.rate) = static_cast<unsigned>(*n);
    return true;
  }
  if (IsPrefixOf(name, "scope")) {
    std::optional<unsigned long> n = number();
    if (!n || *n == 0 || *n > 15)
      Skipped(findings, file, line, "flag 'scope' needs a value 1..15: OpenSM skips it");
    else
      d.scope_mask |= 1u << *n;
    return true;
  }
  if (IsPrefixOf(name, "Q_Key") || IsPrefixOf(name, "TClass")) {
    bool qkey = IsPrefixOf(name, "Q_Key");
    std::optional<unsigned long> n = number();
    if (qkey) d.qkey = static_cast<std::uint32_t>(n.value_or(0));
    else d.tclass = static_cast<unsigned>(n.value_or(0) & 0xff);
    if (!n || *n == 0) Skipped(findings, file, line, std::string("flag '") + (qkey ? "Q_Key" : "TClass") + "' without a valid value: OpenSM uses 0");
    return true;
  }
  if (IsPrefixOf(name, "sl") || IsPrefixOf(name, "FlowLabel")) {
    bool sl = IsPrefixOf(name, "sl");
    char* end = nullptr;
    unsigned long n = value && !value->empty() ? std::strtoul(value->c_str(), &end, 0) : 0;
    bool ok = value && !value->empty() && n <= (sl ? 15ul : 0xffffful) && (*end == '\0' || IsBlank(*end));
    if (!ok) Skipped(findings, file, line, std::string("flag '") + (sl ? "sl" : "FlowLabel") + "' without a valid value: OpenSM skips it");
    else if (sl) d.sl = static_cast<unsigned>(n);
    else d.flow_label = true;
    return true;
  }
  return false;
}

}  // namespace

std::size_t SkipBlanks(const std::string& text, std::size_t pos) {
  while (pos < text.size() && IsBlank(text[pos])) ++pos;
  return pos;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> tokens;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    tokens.push_back(text.substr(start, comma - start));
  tokens.push_back(text.substr(start));
  return tokens;
}

NameToken ParseNameToken(const std::string& token) {
  std::size_t equals = token.find('=');
  NameToken parsed;
  parsed.name = Trim(token.substr(0, equals));
  if (equals != std::string::npos) parsed.value = Trim(token.substr(equals + 1));
  return parsed;
}

bool IsPrefixOf(const std::string& word, const char* full) {
  return std::strncmp(word.c_str(), full, word.size()) == 0;
}

std::optional<Membership> MembershipWord(const std::string& word) {
  if (IsPrefixOf(word, "full")) return Membership::kFull;
  if (IsPrefixOf(word, "both")) return Membership::kBoth;
  if (IsPrefixOf(word, "limited")) return Membership::kLimited;
  return std::nullopt;
}

bool IsExactMembershipWord(const std::string& word) {
  return word == "full" || word == "both" || word == "limited";
}

std::optional<PartitionsConfMember::Kind> PortKeyword(const std::string& name) {
  using Kind = PartitionsConfMember::Kind;
  if (IsPrefixOf(name, "ALL")) return Kind::kAll;
  if (IsPrefixOf(name, "ALL_CAS")) return Kind::kAllCas;
  if (IsPrefixOf(name, "ALL_SWITCHES")) return Kind::kAllSwitches;
  if (IsPrefixOf(name, "ALL_ROUTERS")) return Kind::kAllRouters;
  if (IsPrefixOf(name, "SELF")) return Kind::kSelf;
  return std::nullopt;
}

bool IsExactKeyword(const std::string& name) {
  std::optional<PartitionsConfMember::Kind> kind = PortKeyword(name);
  return kind && name == KeywordText(*kind);
}

const char* KeywordText(PartitionsConfMember::Kind kind) {
  using Kind = PartitionsConfMember::Kind;
  switch (kind) {
    case Kind::kAll: return "ALL";
    case Kind::kAllCas: return "ALL_CAS";
    case Kind::kAllSwitches: return "ALL_SWITCHES";
    case Kind::kAllRouters: return "ALL_ROUTERS";
    case Kind::kSelf: return "SELF";
    case Kind::kGuid: return "GUID";
  }
  return "?";
}

void ApplyHeaderFlag(const NameToken& flag, int line, const std::string& file, PartitionsConfDefinition& d,
                     Findings& findings) {
  if (GroupFlag(flag, line, file, d, findings)) return;
  const std::string& name = flag.name;
  if (IsPrefixOf(name, "ipoib")) {
    d.ipoib = true;
  } else if (IsPrefixOf(name, "defmember")) {
    std::optional<Membership> word = flag.value ? MembershipWord(*flag.value) : std::nullopt;
    // Matched by prefix, as partition_add_flag() does: the empty value is full.
    if (!word)
      Skipped(findings, file, line, "flag 'defmember' needs full, limited or both: OpenSM skips it");
    else
      d.defmember = word;
  } else if (name == "indx0") {
    d.indx0 = true;
  } else {
    Skipped(findings, file, line, "unknown partition flag '" + name + "': OpenSM ignores it");
  }
}

}  // namespace smsupd::config
