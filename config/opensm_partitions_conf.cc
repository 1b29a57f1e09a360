#include "config/opensm_partitions_conf.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "common/guid.h"
#include "config/opensm_partitions_tokens.h"

namespace smsupd::config {
namespace {

// fgets(line, sizeof(line) - 1, file) with a 4096-byte buffer.
constexpr std::size_t kOpenSmPieceBytes = 4094;
constexpr std::size_t kOpenSmNameBytes = 31;
constexpr std::uint16_t kDefaultPkey = 0x7fff;

// One file being read: the definition under way and OpenSM's P_Key table
// (for auto-assigned P_Keys and names), as on a first sweep.
class Reader {
 public:
  Reader(const std::string& file, PartitionsConfReading& out) : file_(file), out_(out) {
    names_[kDefaultPkey] = "Default";  // prtn_make_default() runs before the file
    pkeys_of_["Default"].push_back(kDefaultPkey);
  }

  // One piece as OpenSM's fgets() returns it, `line` the file's line.
  bool Piece(std::string piece, int line);
  // End of file: a definition left without `;`.
  void Finish(int last_line);

 private:
  bool Segment(const std::string& segment, int line);
  bool Header(const std::string& header, int line);
  bool Members(const std::string& text, int line);
  bool Member(const std::string& token, int line);
  std::optional<std::uint16_t> AutoPkey(const std::string& name, bool named);
  bool Fail(int line, const std::string& why);
  void Warn(int line, const std::string& message) {
    out_.findings.push_back({file_, line, ImportFinding::Severity::kWarning, message});
  }

  const std::string& file_;
  PartitionsConfReading& out_;
  PartitionsConfDefinition* open_ = nullptr;  // the definition under way
  Membership default_membership_ = Membership::kLimited;
  std::map<std::uint16_t, std::string> names_;  // P_Key -> first name
  std::map<std::string, std::vector<std::uint16_t>> pkeys_of_;  // name -> P_Keys of that first name
  unsigned pkey_counter_ = 0;
  std::size_t members_ = 0;
};

bool Reader::Fail(int line, const std::string& why) {
  out_.error_line = line;
  out_.error = why;
  return false;
}

bool Reader::Piece(std::string piece, int line) {
  if (std::size_t nul = piece.find('\0'); nul != std::string::npos) {
    Warn(line, "NUL byte: OpenSM ignores the rest of this line");
    piece.resize(nul);
  }
  if (std::size_t hash = piece.find('#'); hash != std::string::npos) piece.resize(hash);
  if (piece.find('\r') != std::string::npos)
    Warn(line, "carriage return (DOS line end): OpenSM reads it as part of the word before it");
  std::size_t pos = 0;
  while (true) {
    pos = SkipBlanks(piece, pos);
    if (pos >= piece.size()) return true;
    std::size_t semicolon = piece.find(';', pos);
    if (semicolon == pos && open_ != nullptr) {
      // A lone `;` closing a definition: OpenSM reads the rest of the line
      // as more members of it (parse_part_conf() steps over the `;`).
      bool ok = Members(piece.substr(pos + 1), line);
      open_ = nullptr;
      return ok;
    }
    std::string segment = piece.substr(pos, semicolon == std::string::npos ? std::string::npos : semicolon - pos);
    if (!Segment(segment, line)) return false;
    if (semicolon == std::string::npos) return true;
    open_ = nullptr;
    default_membership_ = Membership::kLimited;
    pos = semicolon + 1;
  }
}

void Reader::Finish(int last_line) {
  if (open_ != nullptr)
    Warn(open_->line, "definition of '" + open_->name + "' has no ';' before the end of the file (OpenSM applies it anyway)");
  if (!out_.error_line && out_.definitions.empty())
    Fail(last_line, "no partition definition: OpenSM treats an empty or comments-only file as in error");
}

bool Reader::Segment(const std::string& segment, int line) {
  if (open_ != nullptr) return Members(segment, line);
  std::size_t colon = segment.find(':');
  if (colon == std::string::npos && segment.find('\r') != std::string::npos &&
      segment.find_first_not_of(" \t\n\r") == std::string::npos)
    return Fail(line, "no partition definition found: a carriage return (DOS line end) after ';' is text to "
                      "OpenSM, read as a definition without a header");
  if (colon == std::string::npos && segment.empty())
    return Fail(line, "no partition definition found: a ';' with no definition open");
  if (colon == std::string::npos)
    return Fail(line, "no partition definition found: the header 'Name=PKEY[,flags] :' must be on the line "
                      "that starts a definition");
  if (!Header(segment.substr(0, colon), line)) return false;
  return Members(segment.substr(colon + 1), line);
}

std::optional<std::uint16_t> Reader::AutoPkey(const std::string& name, bool named) {
  if (named) {
    // osm_prtn_find_by_name(): the table in its (network byte order) key order.
    std::optional<std::uint16_t> found;
    auto order = [](std::uint16_t pkey) { return ((pkey & 0xff) << 8) | (pkey >> 8); };
    if (auto it = pkeys_of_.find(name); it != pkeys_of_.end())
      for (std::uint16_t pkey : it->second)
        if (!found || order(pkey) < order(*found)) found = pkey;
    if (found) return found;
  }
  while (pkey_counter_ < kDefaultPkey - 1) {
    std::uint16_t pkey = static_cast<std::uint16_t>(++pkey_counter_);
    if (names_.count(pkey) == 0) return pkey;
  }
  return std::nullopt;
}

bool Reader::Header(const std::string& header, int line) {
  if (out_.definitions.size() >= kMaxImportDefinitions) {
    out_.too_large = true;
    return Fail(line, "more than " + std::to_string(kMaxImportDefinitions) + " partition definitions");
  }
  std::vector<std::string> tokens = SplitCommas(header);
  NameToken first = ParseNameToken(tokens[0]);
  PartitionsConfDefinition definition;
  definition.line = line;
  default_membership_ = Membership::kLimited;
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    NameToken flag = ParseNameToken(tokens[i]);
    ApplyHeaderFlag(flag, line, file_, definition, out_.findings);
  }
  std::string name = first.name;
  std::optional<std::string> id = first.value;
  if (!id && !name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
    id = name;
    name.clear();
  }
  unsigned long value = 0;
  if (id) {
    char* end = nullptr;
    value = std::strtoul(id->c_str(), &end, 0);
    if (end == id->c_str() || *end != '\0')
      return Fail(line, "bad partition definition: '" + *id + "' is not a P_Key");
    if (value > 0xffff) Warn(line, "P_Key '" + *id + "' is wider than 16 bits: OpenSM keeps " + FormatPKey(static_cast<std::uint16_t>(value & 0x7fff)));
  }
  std::uint16_t pkey = static_cast<std::uint16_t>(value & 0x7fff);
  if (pkey == 0) {
    std::optional<std::uint16_t> assigned = AutoPkey(name, !name.empty());
    if (!assigned) return Fail(line, "bad partition definition: no P_Key left to auto-assign");
    definition.auto_pkey = true;
    pkey = *assigned;
  }
  definition.pkey = pkey;
  if (name.size() > kOpenSmNameBytes) {
    Warn(line, "name '" + name + "' is longer than 31 characters: OpenSM keeps '" + name.substr(0, kOpenSmNameBytes) + "'");
    name.resize(kOpenSmNameBytes);
  }
  if (name.empty()) name = FormatPKey(static_cast<std::uint16_t>(pkey)).substr(2);
  definition.name = name;
  if (names_.try_emplace(pkey, name).second) pkeys_of_[name].push_back(pkey);
  default_membership_ = definition.defmember.value_or(Membership::kLimited);
  out_.definitions.push_back(std::move(definition));
  open_ = &out_.definitions.back();
  return true;
}

bool Reader::Members(const std::string& text, int line) {
  std::vector<std::string> tokens = SplitCommas(text);
  for (const std::string& token : tokens) {
    NameToken parsed = ParseNameToken(token);
    if (parsed.name == "mgid") {  // mgroup_create(): consumes the rest of the definition's text
      open_->mgid = true;
      Warn(line, "mgid line: a multicast group definition, not imported (smsupd.yaml has no key for it)");
      return true;
    }
    if (!Member(token, line)) return false;
  }
  return true;
}

bool Reader::Member(const std::string& token, int line) {
  NameToken parsed = ParseNameToken(token);
  const std::string& name = parsed.name;
  if (name.empty() || IsPrefixOf(name, "NONE")) return true;
  if (++members_ > kMaxImportMembers) {
    out_.too_large = true;
    return Fail(line, "more than " + std::to_string(kMaxImportMembers) + " member entries");
  }
  PartitionsConfMember member;
  member.line = line;
  member.membership = default_membership_;
  if (parsed.value) {
    std::optional<Membership> word = MembershipWord(*parsed.value);
    if (!word)
      Warn(line, "membership '" + *parsed.value + "' of '" + name + "' is not full, limited or both: OpenSM reads limited");
    else if (!IsExactMembershipWord(*parsed.value))
      Warn(line, "membership '" + *parsed.value + "' of '" + name + "': OpenSM reads it as " + MembershipName(*word));
    member.membership = word.value_or(Membership::kLimited);
  }
  if (std::optional<PartitionsConfMember::Kind> keyword = PortKeyword(name)) {
    member.kind = *keyword;
    if (!IsExactKeyword(name)) Warn(line, "'" + name + "' is read by OpenSM as the keyword " + KeywordText(*keyword));
  } else {
    char* end = nullptr;
    errno = 0;
    unsigned long long guid = std::strtoull(name.c_str(), &end, 0);
    if (guid == 0 || *end != '\0') return Fail(line, "bad PortGUID '" + name + "'");
    if (name.rfind("0x", 0) != 0 && name.rfind("0X", 0) != 0)
      Warn(line, "GUID '" + name + "' has no 0x: OpenSM reads it as " + std::string(name[0] == '0' ? "octal" : "decimal") +
                     ", " + FormatGuid(guid));
    member.guid = guid;
  }
  open_->members.push_back(member);
  return true;
}

}  // namespace

PartitionsConfReading ReadPartitionsConf(std::string_view text, const std::string& file) {
  PartitionsConfReading out;
  Reader reader(file, out);
  int line = 1;
  int last_cut_line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t newline = text.find('\n', pos);
    std::size_t end = newline == std::string_view::npos ? text.size() : newline + 1;
    bool cut = end - pos > kOpenSmPieceBytes;
    if (cut) {
      end = pos + kOpenSmPieceBytes;
      if (line != last_cut_line)
        out.findings.push_back({file, line, ImportFinding::Severity::kWarning,
                                "line longer than 4094 bytes: OpenSM reads it in pieces and may cut a word"});
      last_cut_line = line;
    }
    std::string piece(text.substr(pos, end - pos));
    if (!reader.Piece(std::move(piece), line)) return out;
    if (end > 0 && text[end - 1] == '\n') ++line;
    pos = end;
  }
  reader.Finish(text.empty() ? 0 : (text.back() == '\n' ? line - 1 : line));
  return out;
}

}  // namespace smsupd::config
