// The bounds a YAML text must keep before yaml-cpp builds a tree of it.
// yaml-cpp's tree takes about 235 times the text's size, follows every alias
// as often as it is used (a 29 KB text of nested aliases stands for millions
// of nodes: "billion laughs"), and parses nesting by recursion. So the text
// is first read as a stream of events, which builds nothing, and refused at
// the first bound it passes; only then is it loaded (docs/reliability.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/deadline.h"

namespace smsupd::config {

// The largest config text: the largest a plan request may carry
// (control::kMaxUploadBytes). 10,000 hosts and 1,000 partitions are ~1.5 MB.
inline constexpr std::size_t kMaxConfigBytes = 16 * 1024 * 1024;
// Mappings and sequences inside each other. smsupd.yaml's deepest path
// (partitions[i].members[j].ports) is 4 levels.
inline constexpr int kMaxYamlDepth = 64;
// Nodes (scalars, nulls, mappings, sequences; keys included), every alias
// counted as the whole node it stands for: the tree the validator walks.
// bench/config_bench.sh's 10,000 hosts of two ports and 1,000 partitions are
// ~97,000; the
// tree takes ~700 bytes a node (a text of 1,000,000 nodes peaked at 730 MB),
// so a text at the bound costs about 370 MB while it is validated.
inline constexpr std::size_t kMaxYamlNodes = 500'000;
// One scalar value. The longest meaningful ones are paths (4,095 bytes) and
// OpenSM option values (refused past OpenSM's line).
inline constexpr std::size_t kMaxYamlScalarBytes = 16 * 1024;
// One mapping key. Every key smsupd knows, and every host or group name, is
// shorter than 64 bytes.
inline constexpr std::size_t kMaxYamlKeyBytes = 256;

struct YamlBoundsError {
  int line = 0;  // 1-based, 0 when the text as a whole is too large
  int column = 0;
  std::string what;   // which bound, and by how much
  std::string valid;  // what to do instead
};

// Reads the first document of `text` as events and reports the first bound
// it passes, or nullopt. Throws what yaml-cpp throws on a syntax error
// (YAML::Exception) and DeadlineExceeded.
std::optional<YamlBoundsError> CheckYamlBounds(std::string_view text, const Deadline& deadline);

}  // namespace smsupd::config
