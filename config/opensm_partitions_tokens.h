// The words of partitions.conf as OpenSM 3.3.23 splits and matches them
// (opensm/osm_prtn_config.c parse_name_token(), partition_add_flag(),
// parse_group_flag(), partition_add_port()); internal to
// opensm_partitions_conf.cc. Blanks are only ' ', '\t' and '\n': a '\r'
// is part of a word, as it is for OpenSM.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/opensm_import.h"
#include "config/opensm_partitions_conf.h"

namespace smsupd::config {

struct NameToken {
  std::string name;                  // before the first '=', blanks trimmed
  std::optional<std::string> value;  // after it, blanks trimmed; none without '='
};

std::size_t SkipBlanks(const std::string& text, std::size_t pos);
// At every ','; always at least one (maybe empty) token.
std::vector<std::string> SplitCommas(const std::string& text);
NameToken ParseNameToken(const std::string& token);

// strncmp(word, full, strlen(word)) == 0: `word` is `full` or a prefix of
// it, the empty word included.
bool IsPrefixOf(const std::string& word, const char* full);

// A member's `=word`: full / both / limited as OpenSM matches them (the
// empty word is full); nullopt for any other word (OpenSM: limited).
std::optional<Membership> MembershipWord(const std::string& word);
bool IsExactMembershipWord(const std::string& word);

// ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF in OpenSM's order of tests.
std::optional<PartitionsConfMember::Kind> PortKeyword(const std::string& name);
bool IsExactKeyword(const std::string& name);

// One header flag (`ipoib`, `mtu=4`, ...) applied to `definition` as
// partition_add_flag() does; what OpenSM skips or ignores is a finding.
void ApplyHeaderFlag(const NameToken& flag, int line, const std::string& file,
                     PartitionsConfDefinition& definition, ImportFindings& findings);

}  // namespace smsupd::config
