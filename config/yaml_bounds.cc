#include "config/yaml_bounds.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <vector>

namespace smsupd::config {
namespace {

// Thrown from the handler to stop yaml-cpp at the first bound passed.
struct OutOfBounds {
  YamlBoundsError error;
};

// Counts the tree an event stream stands for, without building it.
class BoundsCounter : public YAML::EventHandler {
 public:
  explicit BoundsCounter(const Deadline& deadline) : deadline_(deadline) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { Leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    const bool key = !open_.empty() && open_.back().map && open_.back().children % 2 == 0;
    const std::size_t limit = key ? kMaxYamlKeyBytes : kMaxYamlScalarBytes;
    if (value.size() > limit)
      Fail(mark, std::string(key ? "a key" : "a value") + " of " + std::to_string(value.size()) +
                     " bytes",
           std::string("the limit is ") + std::to_string(limit) + " bytes");
    Leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (anchor >= sizes_.size() || sizes_[anchor] == kOpen)
      Fail(mark, "an alias refers to a node that contains it", "remove the alias");
    Count(mark, sizes_[anchor]);
    Child();
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(mark, anchor, false);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(mark, anchor, true);
  }
  void OnMapEnd() override { Close(); }

 private:
  static constexpr std::size_t kOpen = static_cast<std::size_t>(-1);
  struct Collection {
    YAML::anchor_t anchor;
    std::size_t nodes_before;  // the count before this collection
    std::size_t children = 0;
    bool map;
  };

  [[noreturn]] static void Fail(const YAML::Mark& mark, std::string what, std::string valid) {
    throw OutOfBounds{{mark.line + 1, mark.column + 1, std::move(what), std::move(valid)}};
  }

  void Count(const YAML::Mark& mark, std::size_t nodes) {
    deadline_.Check();
    if (nodes > kMaxYamlNodes - nodes_)
      Fail(mark, "the text stands for more than " + std::to_string(kMaxYamlNodes) +
                     " nodes (aliases counted as often as they are used)",
           "split the config or use groups instead of aliases");
    nodes_ += nodes;
  }
  void Child() {
    if (!open_.empty()) ++open_.back().children;
  }
  void Anchor(YAML::anchor_t anchor, std::size_t size) {
    if (anchor == YAML::NullAnchor) return;
    if (sizes_.size() <= anchor) sizes_.resize(anchor + 1, kOpen);
    sizes_[anchor] = size;
  }
  void Leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    Count(mark, 1);
    Anchor(anchor, 1);
    Child();
  }
  void Open(const YAML::Mark& mark, YAML::anchor_t anchor, bool map) {
    if (open_.size() >= static_cast<std::size_t>(kMaxYamlDepth))
      Fail(mark, "mappings and sequences nest deeper than " + std::to_string(kMaxYamlDepth) +
                     " levels",
           "smsupd.yaml nests at most 4 levels");
    const std::size_t before = nodes_;
    Count(mark, 1);
    Anchor(anchor, kOpen);
    open_.push_back(Collection{anchor, before, 0, map});
  }
  void Close() {
    const Collection done = open_.back();
    open_.pop_back();
    Anchor(done.anchor, nodes_ - done.nodes_before);
    Child();
  }

  const Deadline& deadline_;
  std::vector<Collection> open_;
  std::vector<std::size_t> sizes_;  // by anchor id: the nodes it stands for
  std::size_t nodes_ = 0;
};

}  // namespace

std::optional<YamlBoundsError> CheckYamlBounds(std::string_view text, const Deadline& deadline) {
  if (text.size() > kMaxConfigBytes)
    return YamlBoundsError{0, 0, "the text is " + std::to_string(text.size()) + " bytes",
                           "the limit is " + std::to_string(kMaxConfigBytes) + " bytes"};
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  BoundsCounter counter(deadline);
  try {
    parser.HandleNextDocument(counter);
  } catch (const OutOfBounds& out) {
    return out.error;
  }
  return std::nullopt;
}

}  // namespace smsupd::config
