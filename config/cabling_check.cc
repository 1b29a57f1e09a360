#include "config/cabling_check.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "common/guid.h"

namespace smsupd::config {
namespace {

using Position = std::pair<std::string, int>;  // device name, port

std::string Where(const Position& position) {
  return position.first + " port " + std::to_string(position.second);
}

struct Plugged {
  Position other;
  const DiscoveredLink* link = nullptr;
};

// The discovered links by position, both directions, under the names the
// declaration uses for the GUIDs it names.
class DiscoveredMap {
 public:
  DiscoveredMap(const std::vector<DeclaredCable>& declared, const std::vector<DiscoveredLink>& links) {
    for (const DeclaredCable& cable : declared)
      for (const CableEnd* end : {&cable.a, &cable.b})
        if (end->node_guid) names_.emplace(*end->node_guid, end->device);
    for (const DiscoveredLink& link : links) {
      Position a{Name(link.a), link.a.port};
      Position b{Name(link.b), link.b.port};
      at_[a] = Plugged{b, &link};
      at_[b] = Plugged{a, &link};
      devices_.insert(a.first);
      devices_.insert(b.first);
    }
  }

  const Plugged* At(const Position& position) const {
    auto it = at_.find(position);
    return it == at_.end() ? nullptr : &it->second;
  }
  const std::map<Position, Plugged>& All() const { return at_; }

 private:
  std::string Name(const LinkEnd& end) const {
    auto it = names_.find(end.node_guid);
    return it != names_.end() ? it->second : end.name;
  }

  std::map<std::uint64_t, std::string> names_;
  std::map<Position, Plugged> at_;
  std::set<std::string> devices_;
};

class Comparison {
 public:
  Comparison(const std::vector<DeclaredCable>& declared, const std::vector<DiscoveredLink>& links)
      : declared_(declared), fabric_(declared, links) {
    for (std::size_t i = 0; i < declared.size(); ++i) {
      Position a{declared[i].a.device, declared[i].a.port};
      Position b{declared[i].b.device, declared[i].b.port};
      cable_at_[a] = i;
      cable_at_[b] = i;
      declared_devices_.insert(a.first);
      declared_devices_.insert(b.first);
    }
  }

  std::vector<CablingDifference> Run() {
    for (std::size_t i = 0; i < declared_.size(); ++i) CheckDeclared(i);
    for (const auto& [position, plugged] : fabric_.All()) CheckDiscovered(position, plugged);
    return std::move(differences_);
  }

 private:
  static Position A(const DeclaredCable& cable) { return {cable.a.device, cable.a.port}; }
  static Position B(const DeclaredCable& cable) { return {cable.b.device, cable.b.port}; }

  void Add(CablingDifferenceKind kind, std::string text, std::vector<int> lines,
           std::initializer_list<Position> explained) {
    differences_.push_back(CablingDifference{kind, std::move(text), std::move(lines)});
    explained_.insert(explained.begin(), explained.end());
  }

  void CheckDeclared(std::size_t index) {
    const DeclaredCable& cable = declared_[index];
    if (done_.count(index)) return;
    const Plugged* at_a = fabric_.At(A(cable));
    const Plugged* at_b = fabric_.At(B(cable));
    if (at_a && at_a->other == B(cable)) return CheckRate(cable, *at_a->link);
    if (!at_a && !at_b) {
      return Add(CablingDifferenceKind::kMissing,
                 "cable missing: " + Where(A(cable)) + " - " + Where(B(cable)) + " (line " +
                     std::to_string(cable.line) + ")",
                 {cable.line}, {A(cable), B(cable)});
    }
    if (at_a && Swapped(index, *at_a)) return;
    if (at_b && Swapped(index, *at_b)) return;
    std::string text = Where(B(cable)) + " should be in " + Where(A(cable)) + " (line " +
                       std::to_string(cable.line) + ")";
    if (at_b) text += ", but is in " + Where(at_b->other);
    else text += ", but is not plugged in";
    if (at_a) text += "; " + Where(A(cable)) + " has " + Where(at_a->other);
    Add(CablingDifferenceKind::kWrongPort, text, {cable.line}, {A(cable), B(cable)});
  }

  // Two cables crossed: this cable's end X holds what cable `other` declares
  // for it, and the other's end holds this cable's partner.
  bool Swapped(std::size_t index, const Plugged& found) {
    const DeclaredCable& cable = declared_[index];
    auto it = cable_at_.find(found.other);
    if (it == cable_at_.end() || it->second == index) return false;
    const DeclaredCable& other = declared_[it->second];
    // The cable's own position that found.other is plugged into, and its partner.
    Position here = fabric_.At(A(cable)) == &found ? A(cable) : B(cable);
    Position partner = here == A(cable) ? B(cable) : A(cable);
    Position other_here = found.other == A(other) ? B(other) : A(other);  // where found.other belongs
    const Plugged* at_other = fabric_.At(other_here);
    if (!at_other || at_other->other != partner) return false;
    done_.insert(it->second);
    Add(CablingDifferenceKind::kSwapped,
        "swapped: " + Where(partner) + " and " + Where(found.other) + " are crossed: " + Where(here) +
            " has " + found.other.first + ", " + Where(other_here) + " has " + partner.first + " (lines " +
            std::to_string(cable.line) + ", " + std::to_string(other.line) + ")",
        {cable.line, other.line}, {A(cable), B(cable), A(other), B(other)});
    return true;
  }

  void CheckRate(const DeclaredCable& cable, const DiscoveredLink& link) {
    if (cable.rate.empty() || !link.active) return;
    auto declared = ParseLinkRate(cable.rate);
    if (!declared || !BelowRate(*link.active, *declared)) return;
    Add(CablingDifferenceKind::kBelowRate,
        "below rate: " + Where(A(cable)) + " - " + Where(B(cable)) + " runs at " + link.active->Text() +
            ", declared " + declared->Text() + " (line " + std::to_string(cable.line) + ")",
        {cable.line}, {});
  }

  void CheckDiscovered(const Position& position, const Plugged& plugged) {
    if (explained_.count(position) || explained_.count(plugged.other)) return;
    if (cable_at_.count(position) || cable_at_.count(plugged.other)) return;  // reported from the declaration
    if (position > plugged.other) return;  // each link once
    std::string text;
    if (!declared_devices_.count(position.first) || !declared_devices_.count(plugged.other.first)) {
      const Position& unknown = declared_devices_.count(position.first) ? plugged.other : position;
      const Position& known = &unknown == &position ? plugged.other : position;
      text = "unexpected device: " + unknown.first + " in " + Where(known) + " is not in the port map";
    } else {
      text = "unexpected cable: " + Where(position) + " - " + Where(plugged.other) + " is not in the port map";
    }
    Add(CablingDifferenceKind::kUnexpected, text, {}, {position, plugged.other});
  }

  const std::vector<DeclaredCable>& declared_;
  DiscoveredMap fabric_;
  std::map<Position, std::size_t> cable_at_;
  std::set<std::string> declared_devices_;
  std::set<Position> explained_;
  std::set<std::size_t> done_;
  std::vector<CablingDifference> differences_;
};

CableEnd EndOf(const LinkEnd& end) { return CableEnd{end.name, end.node_guid ? std::optional(end.node_guid) : std::nullopt, end.port}; }

}  // namespace

const char* CablingDifferenceName(CablingDifferenceKind kind) {
  switch (kind) {
    case CablingDifferenceKind::kMissing: return "missing";
    case CablingDifferenceKind::kSwapped: return "swapped";
    case CablingDifferenceKind::kWrongPort: return "wrong-port";
    case CablingDifferenceKind::kUnexpected: return "unexpected";
    case CablingDifferenceKind::kBelowRate: return "below-rate";
  }
  return "unknown";
}

std::vector<CablingDifference> CompareCabling(const std::vector<DeclaredCable>& declared,
                                              const std::vector<DiscoveredLink>& discovered) {
  return Comparison(declared, discovered).Run();
}

std::vector<DeclaredCable> ExportCabling(const std::vector<DiscoveredLink>& discovered) {
  std::vector<DeclaredCable> cables;
  for (const DiscoveredLink& link : discovered) {
    // The switch side first; between two switches, the smaller name.
    bool flip = (!link.a.is_switch && link.b.is_switch) ||
                (link.a.is_switch == link.b.is_switch &&
                 std::tie(link.b.name, link.b.port) < std::tie(link.a.name, link.a.port));
    DeclaredCable cable;
    cable.a = EndOf(flip ? link.b : link.a);
    cable.b = EndOf(flip ? link.a : link.b);
    if (link.active) cable.rate = link.active->Text();
    cables.push_back(std::move(cable));
  }
  std::sort(cables.begin(), cables.end(), [](const DeclaredCable& x, const DeclaredCable& y) {
    return std::tie(x.a.device, x.a.port) < std::tie(y.a.device, y.a.port);
  });
  for (std::size_t i = 0; i < cables.size(); ++i) cables[i].line = static_cast<int>(i) + 2;
  return cables;
}

}  // namespace smsupd::config
