#include "config/edit_distance.h"

#include <algorithm>

namespace smsupd::config {

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<int> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    int diagonal = row[0];
    row[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int above = row[j];
      int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({above + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string NearestName(std::string_view name, const std::vector<std::string_view>& candidates) {
  // One edit in a 3-letter word is a different word, not a typo.
  int limit = name.size() < 3 ? 0 : std::max<int>(1, static_cast<int>(name.size()) / 3);
  int best = limit + 1;
  std::string_view chosen;
  for (std::string_view candidate : candidates) {
    // The distance is at least the difference in length: a name far longer
    // than every candidate (up to kMaxYamlScalarBytes) costs no table.
    const auto longer = std::max(name.size(), candidate.size());
    const auto shorter = std::min(name.size(), candidate.size());
    if (longer - shorter >= static_cast<std::size_t>(best)) continue;
    int distance = EditDistance(name, candidate);
    if (distance < best) {
      best = distance;
      chosen = candidate;
    }
  }
  return std::string(chosen);
}

std::vector<std::string> ClosestNames(std::string_view name, const std::vector<std::string>& candidates,
                                      std::size_t max) {
  const int limit = std::max<int>(2, static_cast<int>(name.size()) / 3);
  std::vector<std::pair<int, std::string>> close;
  for (const std::string& candidate : candidates) {
    // The distance is at least the difference in length: skip the table.
    const auto longer = std::max(name.size(), candidate.size());
    const auto shorter = std::min(name.size(), candidate.size());
    if (longer - shorter > static_cast<std::size_t>(limit)) continue;
    int distance = EditDistance(name, candidate);
    if (distance <= limit) close.emplace_back(distance, candidate);
  }
  std::sort(close.begin(), close.end());
  std::vector<std::string> names;
  for (const auto& [distance, candidate] : close) {
    if (std::find(names.begin(), names.end(), candidate) != names.end()) continue;
    names.push_back(candidate);
    if (names.size() == max) break;
  }
  return names;
}

}  // namespace smsupd::config
