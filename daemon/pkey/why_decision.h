// The answer of `smctl why A B`: can two end ports talk over RDMA, and in
// which partitions. Pure: memberships in, answer and reason out; the daemon
// gathers the memberships (daemon/apply/why_command.h).
//
// The rule (IBA 10.9.1, P_Key matching): two ports may exchange packets in
// a partition when both hold its P_Key and at least one of them holds it as
// a FULL member; two LIMITED members of the same partition cannot talk to
// each other. The answer is taken from the fabric's P_Key tables (the fact);
// the config (the intent) is reported beside it, and each disagreement is
// said. A table that could not be read is never taken as healthy: the
// answer is then "no" with that reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/guid.h"

namespace smsupd {

// A port's membership of one partition. Intent: kNone/kLimited/kFull (a
// `both` membership counts as full). Fact: kNone is "absent" from the table,
// kUnread when the table could not be read.
enum class WhyMembership { kNone, kLimited, kFull, kUnread };

// "none"/"limited"/"full" for intent; "absent"/"limited"/"full"/"unread" for fact.
const char* IntentName(WhyMembership membership);
const char* FactName(WhyMembership membership);

inline constexpr std::uint16_t kDefaultPKey = 0x7fff;

struct WhyPartition {
  std::uint16_t pkey = 0;  // 15 bits
  std::string name;        // from the config; "" when the config has none
  WhyMembership intent_a = WhyMembership::kNone, intent_b = WhyMembership::kNone;
  WhyMembership fact_a = WhyMembership::kNone, fact_b = WhyMembership::kNone;
  std::optional<std::uint64_t> generation;  // the generation that last changed it

  // Both hold it, one of them as a full member (by the fact, or the intent).
  bool Usable() const;
  bool UsableByIntent() const;
  bool LimitedWithLimited() const;  // both limited, on the fabric
  bool Disagrees() const;           // intent != fact on either side
};

// One side as the caller named it.
struct WhyEnd {
  std::string name;  // what the operator reads: the host name, else the NodeDescription, else the GUID
  Guid guid = 0;
  std::uint16_t lid = 0;
  std::string node_description;
  bool in_fabric = true;  // false: named by the inventory, not discovered
  std::string read_error;  // non-empty: its P_Key table was not read (why)
};

struct WhyAnswer {
  bool yes = false;
  std::string reason;               // the first line without "yes: "/"no: "
  std::vector<std::string> notes;   // intent != fact, and other lines worth reading
  std::vector<WhyPartition> partitions;  // sorted: usable first, then by P_Key

  std::string FirstLine() const { return (yes ? "yes: " : "no: ") + reason; }
};

// "0x0010 (tenant-a)", "0x7fff (default)".
std::string DescribePKey(std::uint16_t pkey, const std::string& name);

// `partitions`: every P_Key either side has, by the config or the fabric.
WhyAnswer DecideWhy(const WhyEnd& a, const WhyEnd& b, std::vector<WhyPartition> partitions);

// {pkey: "0x0010", name, a{intent,fact}, b{intent,fact}, usable, usable_by_config,
//  limited_with_limited, default, generation}
nlohmann::json ToJson(const WhyPartition& partition);
// {name, guid, lid, node_description, in_fabric, read_error?}
nlohmann::json ToJson(const WhyEnd& end);

}  // namespace smsupd
