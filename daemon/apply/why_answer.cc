// The end of a `why` request, off the event loop: the config's memberships
// of the named ports, the generations that last changed their partitions,
// the decision per pair of ports, and the reply.
#include <algorithm>
#include <set>

#include "config/pkey_tables.h"
#include "daemon/apply/why_command.h"
#include "daemon/apply/why_generations.h"
#include "daemon/pkey/pkey_verifier.h"
#include "daemon/pkey/why_decision.h"
#include "daemon/pkey/why_names.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

struct Inputs {
  config::Config config;
  Guid sm_port = 0;
  std::uint64_t generation = 0;
  NamedPorts a, b;
  std::map<Guid, std::string> unread;
  std::map<Guid, std::vector<std::uint16_t>> tables;
};

using Memberships = std::map<Guid, std::map<std::uint16_t, WhyMembership>>;

// The config's memberships of the named ports only: a port's membership
// depends on the config, its kind and whether it is the SM's, not on the
// other ports, so the cost does not grow with the fabric.
Memberships Intents(const Inputs& in, std::map<std::uint16_t, std::string>* names) {
  std::vector<config::FabricPort> ports;
  auto add = [&](Guid guid, config::PortKind kind) {
    for (const auto& p : ports)
      if (p.guid == guid) return;
    ports.push_back({guid, kind, guid == in.sm_port});
  };
  for (const NamedPorts* side : {&in.a, &in.b}) {
    for (const DiscoveredPort& port : side->ports) add(port.port_guid, PortKindOf(port.node_type));
    for (Guid guid : side->missing) add(guid, config::PortKind::kCa);
  }
  Memberships result;
  for (const auto& partition : config::PartitionMemberships(in.config, ports)) {
    (*names)[partition.partition.pkey] = partition.partition.name;
    for (const auto& [guid, membership] : partition.ports) {
      WhyMembership m = membership == config::Membership::kLimited ? WhyMembership::kLimited : WhyMembership::kFull;
      result[guid][partition.partition.pkey] = m;
    }
  }
  return result;
}

std::map<std::uint16_t, WhyMembership> FactsOf(const std::vector<std::uint16_t>& table) {
  std::map<std::uint16_t, WhyMembership> facts;
  for (std::uint16_t entry : table) {
    const std::uint16_t pkey = entry & 0x7fff;
    if (pkey == 0) continue;
    if (entry & 0x8000) facts[pkey] = WhyMembership::kFull;
    else facts.emplace(pkey, WhyMembership::kLimited);
  }
  return facts;
}

struct Side {
  WhyEnd end;
  std::map<std::uint16_t, WhyMembership> intent, fact;
  bool read = false;
};

// One side for one of its ports (or, not in the fabric, its inventory GUID).
Side MakeSide(const Inputs& in, const NamedPorts& named, const DiscoveredPort* port, const Memberships& intents) {
  Side side;
  side.end.name = named.name;
  if (port == nullptr) {
    side.end.in_fabric = false;
    side.end.guid = named.missing.empty() ? 0 : named.missing.front();
  } else {
    if (named.ports.size() > 1) side.end.name += " port " + FormatGuid(port->port_guid);
    side.end.guid = port->port_guid;
    side.end.lid = port->lid;
    side.end.node_description = port->node_description;
    if (auto t = in.tables.find(port->port_guid); t != in.tables.end()) {
      side.fact = FactsOf(t->second);
      side.read = true;
    } else if (auto u = in.unread.find(port->port_guid); u != in.unread.end()) {
      side.end.read_error = u->second;
    } else {
      side.end.read_error = "not read";
    }
  }
  if (auto i = intents.find(side.end.guid); i != intents.end()) side.intent = i->second;
  return side;
}

std::vector<WhyPartition> PartitionsOf(const Side& a, const Side& b,
                                       const std::map<std::uint16_t, std::string>& names) {
  std::set<std::uint16_t> keys;
  for (const auto* m : {&a.intent, &a.fact, &b.intent, &b.fact})
    for (const auto& [pkey, membership] : *m) keys.insert(pkey);
  auto get = [](const std::map<std::uint16_t, WhyMembership>& m, std::uint16_t k) {
    auto it = m.find(k);
    return it == m.end() ? WhyMembership::kNone : it->second;
  };
  std::vector<WhyPartition> partitions;
  for (std::uint16_t pkey : keys) {
    WhyPartition p;
    p.pkey = pkey;
    if (auto n = names.find(pkey); n != names.end()) p.name = n->second;
    p.intent_a = get(a.intent, pkey);
    p.intent_b = get(b.intent, pkey);
    p.fact_a = a.end.in_fabric && !a.read ? WhyMembership::kUnread : get(a.fact, pkey);
    p.fact_b = b.end.in_fabric && !b.read ? WhyMembership::kUnread : get(b.fact, pkey);
    partitions.push_back(p);
  }
  return partitions;
}

struct Pair {
  Side a, b;
  WhyAnswer answer;
};

// Every pair of the two names' ports (a side with no port in the fabric
// takes part as its inventory GUID), each decided.
std::vector<Pair> DecidePairs(const Inputs& in) {
  std::map<std::uint16_t, std::string> names;
  const Memberships intents = Intents(in, &names);
  std::vector<const DiscoveredPort*> a_ports, b_ports;
  for (const auto& p : in.a.ports) a_ports.push_back(&p);
  for (const auto& p : in.b.ports) b_ports.push_back(&p);
  if (a_ports.empty()) a_ports.push_back(nullptr);
  if (b_ports.empty()) b_ports.push_back(nullptr);
  std::vector<Pair> pairs;
  for (const DiscoveredPort* pa : a_ports)
    for (const DiscoveredPort* pb : b_ports) {
      Side a = MakeSide(in, in.a, pa, intents), b = MakeSide(in, in.b, pb, intents);
      WhyAnswer answer = DecideWhy(a.end, b.end, PartitionsOf(a, b, names));
      pairs.push_back({std::move(a), std::move(b), std::move(answer)});
    }
  return pairs;
}

void AddGenerations(std::vector<Pair>& pairs, const GenerationStore& store, std::uint64_t current) {
  std::set<std::uint16_t> pkeys;
  for (const auto& pair : pairs)
    for (const auto& p : pair.answer.partitions) pkeys.insert(p.pkey);
  const auto generations = LastChangedGenerations(store, current, pkeys);
  for (auto& pair : pairs)
    for (auto& p : pair.answer.partitions)
      if (auto g = generations.find(p.pkey); g != generations.end()) p.generation = g->second;
}

// The answer's notes plus what the names themselves leave out.
std::vector<std::string> NotesOf(const Inputs& in, const WhyAnswer& answer) {
  std::vector<std::string> notes = answer.notes;
  for (const NamedPorts* side : {&in.a, &in.b}) {
    if (!side->ports.empty() && !side->missing.empty())
      notes.push_back(side->name + ": " + std::to_string(side->missing.size()) +
                      " of its inventory port(s) not in the fabric (not discovered)");
    if (side->cut > 0)
      notes.push_back(side->name + ": " + std::to_string(side->cut) + " more port(s) not considered (limit " +
                      std::to_string(kMaxWhyPortsPerName) + ")");
  }
  return notes;
}

// The reply: the first pair that can talk, else the first pair.
control::Response Answer(const Inputs& in, const GenerationStore& store) {
  std::vector<Pair> pairs = DecidePairs(in);
  AddGenerations(pairs, store, in.generation);
  auto yes = std::find_if(pairs.begin(), pairs.end(), [](const Pair& p) { return p.answer.yes; });
  const Pair& best = yes == pairs.end() ? pairs.front() : *yes;
  nlohmann::json partitions = nlohmann::json::array();
  for (const auto& p : best.answer.partitions) partitions.push_back(ToJson(p));
  nlohmann::json arguments = {{"answer", best.answer.yes ? "yes" : "no"},
                              {"reason", best.answer.reason},
                              {"notes", NotesOf(in, best.answer)},
                              {"a", ToJson(best.a.end)},
                              {"b", ToJson(best.b.end)},
                              {"partitions", partitions},
                              {"generation", in.generation}};
  if (pairs.size() > 1) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& pair : pairs)
      all.push_back({{"a", pair.a.end.guid ? FormatGuid(pair.a.end.guid) : ""},
                     {"b", pair.b.end.guid ? FormatGuid(pair.b.end.guid) : ""},
                     {"answer", pair.answer.yes ? "yes" : "no"}, {"reason", pair.answer.reason}});
    arguments["pairs"] = all;
  }
  return MakeResponse(ResultCode::kSuccess, best.answer.FirstLine(), arguments);
}

}  // namespace

void WhyCommand::Decide(const RequestPtr& request) {
  auto in = std::make_shared<Inputs>();
  in->config = running_.config;
  in->sm_port = running_.port_guid;
  in->generation = running_.generation.number;
  in->a = std::move(request->a);
  in->b = std::move(request->b);
  in->unread = std::move(request->unread);
  in->tables = std::move(request->tables);
  const auto lane = request->caller.access == control::AccessLevel::kReadOnly ? RequestJobs::Lane::kMember
                                                                                 : RequestJobs::Lane::kOwner;
  auto job = [in, state_dir = running_.config.state_dir, reply = request->reply](const Deadline&) {
    reply(Answer(*in, GenerationStore(state_dir)));
  };
  auto failed = [reply = request->reply](const std::string& why) {
    reply(MakeResponse(ResultCode::kError, "why: " + why));
  };
  RequestJobs::Submitted submitted = jobs_.Submit(lane, request->caller.uid, std::move(job), failed);
  if (submitted != RequestJobs::Submitted::kQueued)
    request->reply(MakeResponse(ResultCode::kError, RefusalText(submitted)));
}

}  // namespace smsupd
