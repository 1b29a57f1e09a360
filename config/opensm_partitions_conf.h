// partitions.conf as OpenSM 3.3.23 reads it (opensm/osm_prtn_config.c,
// osm_prtn_config_parse_file(), parse_part_conf(), partition_add_flag(),
// partition_add_port(); opensm/osm_prtn.c osm_prtn_make_new()), written from
// OpenSM's behaviour (docs/opensm-behaviour.md "partitions.conf grammar"):
// - the file is read in pieces of at most 4094 bytes (fgets into 4096 - 1),
//   each piece a "line" of its own; `#` ends a piece's text;
// - `;` ends a definition, whose header (up to `:`) must be in the piece
//   that starts it; members may follow on later lines;
// - keywords, membership words and flags match as prefixes (strncmp with
//   the length of the word written: `f` is full, `A` is ALL, `=` alone full);
// - GUIDs go through strtoull(..., 0); 0 or junk is a parse error, and any
//   parse error makes OpenSM drop the whole file (`fallback`).
// Pure: text in, definitions and findings out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/guid.h"
#include "config/config.h"
#include "config/opensm_import.h"

namespace smsupd::config {

struct PartitionsConfMember {
  enum class Kind { kAll, kAllCas, kAllSwitches, kAllRouters, kSelf, kGuid };
  Kind kind = Kind::kGuid;
  Guid guid = 0;                              // kind == kGuid
  Membership membership = Membership::kLimited;  // as written; `both` is full without allow_both_pkeys
  int line = 0;                               // the file's line (not OpenSM's piece count)
};

// "ALL", "ALL_CAS", ..., "SELF" ("GUID" for kGuid).
const char* KeywordText(PartitionsConfMember::Kind kind);

struct PartitionsConfDefinition {
  int line = 0;
  std::string name;          // as OpenSM keeps it: cut to 31 bytes; "%04x" of the P_Key when none
  std::uint16_t pkey = 0;    // 15 bits, auto-assigned ones resolved as a first sweep does
  bool auto_pkey = false;    // written as 0 or without a P_Key
  bool ipoib = false;
  std::optional<unsigned> mtu;   // IBTA code as written (0 when OpenSM found none usable)
  std::optional<unsigned> rate;  // IBTA code
  std::optional<unsigned> sl;
  unsigned scope_mask = 0;
  std::optional<std::uint32_t> qkey;
  std::optional<unsigned> tclass;
  bool flow_label = false;   // FlowLabel= given (no smsupd.yaml key)
  std::optional<Membership> defmember;
  bool indx0 = false;
  bool mgid = false;         // an mgid= line (a multicast group, not a P_Key matter)
  std::vector<PartitionsConfMember> members;
};

struct PartitionsConfReading {
  std::vector<PartitionsConfDefinition> definitions;  // file order, duplicates kept
  // Set when OpenSM would reject the file: it then ignores every
  // definition and puts every port in 0x7fff as a full member.
  std::optional<int> error_line;
  std::string error;
  ImportFindings findings;  // warnings only; the error is above
  bool too_large = false;               // stopped at kMaxImport* (error set too)
};

PartitionsConfReading ReadPartitionsConf(std::string_view text, const std::string& file);

}  // namespace smsupd::config
