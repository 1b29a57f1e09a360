#include "daemon/pkey/why_decision.h"

#include <algorithm>
#include <cstdio>

#include "common/guid.h"

namespace smsupd {

namespace {

bool Holds(WhyMembership m) { return m == WhyMembership::kLimited || m == WhyMembership::kFull; }

bool UsableBetween(WhyMembership a, WhyMembership b) {
  return Holds(a) && Holds(b) && (a == WhyMembership::kFull || b == WhyMembership::kFull);
}

// "0x0010 (tenant-a), 0x7fff (default)"
std::string ListOf(const std::vector<const WhyPartition*>& partitions) {
  std::string text;
  for (const WhyPartition* p : partitions) text += (text.empty() ? "" : ", ") + DescribePKey(p->pkey, p->name);
  return text;
}

// The partitions `side` holds on the fabric.
std::string HeldBy(const std::vector<WhyPartition>& partitions, bool side_a) {
  std::vector<const WhyPartition*> held;
  for (const WhyPartition& p : partitions)
    if (Holds(side_a ? p.fact_a : p.fact_b)) held.push_back(&p);
  return held.empty() ? "none" : ListOf(held);
}

std::string NotInFabric(const WhyEnd& a, const WhyEnd& b) {
  if (!a.in_fabric && !b.in_fabric)
    return a.name + " and " + b.name + " have no port in the fabric (not discovered)";
  return (a.in_fabric ? b.name : a.name) + " has no port in the fabric (not discovered)";
}

std::string NotRead(const WhyEnd& a, const WhyEnd& b) {
  std::string text;
  for (const WhyEnd* end : {&a, &b})
    if (!end->read_error.empty())
      text += (text.empty() ? "" : "; ") + std::string("the P_Key table of ") + end->name +
              " was not read (" + end->read_error + ")";
  return text + ": whether they share a partition is not known";
}

std::string SharedLine(const WhyEnd& a, const WhyEnd& b, const WhyPartition& best,
                       const std::vector<const WhyPartition*>& usable) {
  std::string text = a.name + " and " + b.name + " share " +
                     (best.pkey == kDefaultPKey ? "only the default partition " : "") +
                     DescribePKey(best.pkey, best.name) + ": " + a.name + " " + FactName(best.fact_a) +
                     ", " + b.name + " " + FactName(best.fact_b);
  if (usable.size() > 1)
    text += " (" + std::to_string(usable.size() - 1) + " more usable partition(s) below)";
  return text;
}

std::string NotSharedLine(const WhyEnd& a, const WhyEnd& b, const std::vector<WhyPartition>& partitions) {
  std::vector<const WhyPartition*> limited;
  for (const WhyPartition& p : partitions)
    if (p.LimitedWithLimited()) limited.push_back(&p);
  if (!limited.empty())
    return a.name + " is a limited member of " + ListOf(limited) + " and " + b.name +
           " too; they share no partition with a full member";
  return a.name + " and " + b.name + " share no partition (" + a.name + ": " + HeldBy(partitions, true) +
         "; " + b.name + ": " + HeldBy(partitions, false) + ")";
}

// One note per partition whose config and table disagree.
std::vector<std::string> Disagreements(const WhyEnd& a, const WhyEnd& b,
                                       const std::vector<WhyPartition>& partitions) {
  std::vector<std::string> notes;
  for (const WhyPartition& p : partitions) {
    for (bool side_a : {true, false}) {
      WhyMembership intent = side_a ? p.intent_a : p.intent_b;
      WhyMembership fact = side_a ? p.fact_a : p.fact_b;
      if (fact == WhyMembership::kUnread || intent == fact) continue;
      notes.push_back(DescribePKey(p.pkey, p.name) + ": " + (side_a ? a.name : b.name) + " is " +
                      IntentName(intent) + " in the config but " + FactName(fact) +
                      " on the fabric");
    }
  }
  return notes;
}

}  // namespace

const char* IntentName(WhyMembership membership) {
  switch (membership) {
    case WhyMembership::kLimited: return "limited";
    case WhyMembership::kFull: return "full";
    default: return "none";
  }
}

const char* FactName(WhyMembership membership) {
  switch (membership) {
    case WhyMembership::kLimited: return "limited";
    case WhyMembership::kFull: return "full";
    case WhyMembership::kUnread: return "unread";
    default: return "absent";
  }
}

bool WhyPartition::Usable() const { return UsableBetween(fact_a, fact_b); }
bool WhyPartition::UsableByIntent() const { return UsableBetween(intent_a, intent_b); }
bool WhyPartition::LimitedWithLimited() const {
  return fact_a == WhyMembership::kLimited && fact_b == WhyMembership::kLimited;
}
bool WhyPartition::Disagrees() const {
  return (fact_a != WhyMembership::kUnread && intent_a != fact_a) ||
         (fact_b != WhyMembership::kUnread && intent_b != fact_b);
}

std::string DescribePKey(std::uint16_t pkey, const std::string& name) {
  if (pkey == kDefaultPKey) return FormatPKey(pkey) + " (default)";
  return name.empty() ? FormatPKey(pkey) : FormatPKey(pkey) + " (" + name + ")";
}

WhyAnswer DecideWhy(const WhyEnd& a, const WhyEnd& b, std::vector<WhyPartition> partitions) {
  // Usable first; among them a named partition before the default one.
  std::stable_sort(partitions.begin(), partitions.end(), [](const WhyPartition& x, const WhyPartition& y) {
    if (x.Usable() != y.Usable()) return x.Usable();
    if ((x.pkey == kDefaultPKey) != (y.pkey == kDefaultPKey)) return y.pkey == kDefaultPKey;
    return x.pkey < y.pkey;
  });
  WhyAnswer answer;
  std::vector<const WhyPartition*> usable, by_intent;
  for (const WhyPartition& p : partitions) {
    if (p.Usable()) usable.push_back(&p);
    if (p.UsableByIntent()) by_intent.push_back(&p);
  }
  if (!a.in_fabric || !b.in_fabric) {
    answer.reason = NotInFabric(a, b);
  } else if (!a.read_error.empty() || !b.read_error.empty()) {
    answer.reason = NotRead(a, b);
  } else if (!usable.empty()) {
    answer.yes = true;
    answer.reason = SharedLine(a, b, *usable.front(), usable);
    if (by_intent.empty()) answer.reason += "; the config differs: by it they share no usable partition";
  } else {
    answer.reason = NotSharedLine(a, b, partitions);
    if (!by_intent.empty())
      answer.reason += "; the config differs: it makes them share " + ListOf(by_intent) +
                       ", which the fabric does not hold yet";
  }
  answer.notes = Disagreements(a, b, partitions);
  if (a.in_fabric && b.in_fabric && a.read_error.empty() && b.read_error.empty() && answer.notes.empty())
    answer.notes.push_back("the fabric's tables are as the config says");
  answer.partitions = std::move(partitions);
  return answer;
}

nlohmann::json ToJson(const WhyPartition& p) {
  return {{"pkey", FormatPKey(p.pkey)},
          {"name", p.pkey == kDefaultPKey && p.name.empty() ? "Default" : p.name},
          {"a", {{"intent", IntentName(p.intent_a)}, {"fact", FactName(p.fact_a)}}},
          {"b", {{"intent", IntentName(p.intent_b)}, {"fact", FactName(p.fact_b)}}},
          {"usable", p.Usable()},
          {"usable_by_config", p.UsableByIntent()},
          {"limited_with_limited", p.LimitedWithLimited()},
          {"default", p.pkey == kDefaultPKey},
          {"generation", p.generation ? nlohmann::json(*p.generation) : nlohmann::json(nullptr)}};
}

nlohmann::json ToJson(const WhyEnd& end) {
  nlohmann::json json = {{"name", end.name},
                         {"guid", end.guid ? nlohmann::json(FormatGuid(end.guid)) : nlohmann::json(nullptr)},
                         {"lid", end.lid},
                         {"node_description", end.node_description},
                         {"in_fabric", end.in_fabric}};
  if (!end.read_error.empty()) json["read_error"] = end.read_error;
  return json;
}

}  // namespace smsupd
