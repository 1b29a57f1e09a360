#include "tests/config/node_name_map_readers.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace smsupd::config::testing {

NodeNames ReadNodeNameMapLikeOpenSm(const std::string& text) {
  NodeNames names;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> tokens;  // strtok(line, "\"#") twice
    std::string token;
    for (char c : line + "\"") {
      if (c == '"' || c == '#') {
        if (!token.empty()) tokens.push_back(token);
        token.clear();
        if (tokens.size() == 2) break;
      } else {
        token += c;
      }
    }
    if (tokens.size() == 2) names.emplace(std::strtoull(tokens[0].c_str(), nullptr, 0), tokens[1]);
  }
  return names;
}

std::optional<NodeNames> ReadNodeNameMapLikeDiags(const std::string& text) {
  NodeNames names;
  std::size_t at = 0;
  while (at < text.size()) {  // fgets(line, 256, f): at most 255 bytes, up to a newline
    std::size_t newline = text.find('\n', at);
    std::size_t length = std::min<std::size_t>(255, (newline == std::string::npos ? text.size() : newline + 1) - at);
    std::string line = text.substr(at, length);
    at += length;
    std::size_t p = line.find_first_not_of(" \t\r\n\v\f");
    if (p == std::string::npos || line[p] == '#') continue;
    char* end = nullptr;
    std::uint64_t guid = std::strtoull(line.c_str() + p, &end, 0);
    if (end == line.c_str() + p || !(std::isspace(static_cast<unsigned char>(*end)) || *end == '#' || *end == 0))
      return std::nullopt;
    std::string rest(end);
    rest = rest.substr(0, rest.find('\n'));
    std::size_t first = rest.find_first_not_of(" \t\r\v\f");
    if (first != std::string::npos) first = rest.find_first_not_of("\"#", first);
    if (first == std::string::npos) continue;
    names.emplace(guid, rest.substr(first, rest.find_first_of("\"#", first) - first));
  }
  return names;
}

}  // namespace smsupd::config::testing
