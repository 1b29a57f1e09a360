// Nearest-name suggestions for "did you mean" hints in diagnostics.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace smsupd::config {

// Levenshtein distance between a and b.
int EditDistance(std::string_view a, std::string_view b);

// The candidate closest to `name`, if it is close enough to be a likely typo
// (distance at most a third of the name's length, at least 1, none below 3 characters);
// empty otherwise. Ties go to the earlier candidate.
std::string NearestName(std::string_view name, const std::vector<std::string_view>& candidates);

// Up to `max` candidates within a third of `name`'s length (at least 2
// edits), closest first, ties by name, each once: the "closest:" list of an
// unknown name in answers about the fabric.
std::vector<std::string> ClosestNames(std::string_view name, const std::vector<std::string>& candidates,
                                      std::size_t max);

}  // namespace smsupd::config
