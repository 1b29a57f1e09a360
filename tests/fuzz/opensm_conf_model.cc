#include "tests/fuzz/opensm_conf_model.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace smsupd::fuzz {
namespace {

// fgets(line, 1023, file): at most 1022 bytes, up to and including '\n'.
constexpr std::size_t kFgetsBytes = 1022;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string CleanValue(std::string_view value) {
  while (!value.empty() && IsSpace(value.front())) value.remove_prefix(1);
  while (!value.empty() && IsSpace(value.back())) value.remove_suffix(1);
  if (value.size() >= 2 && ((value.front() == '"' && value.back() == '"') ||
                            (value.front() == '\'' && value.back() == '\''))) {
    value.remove_prefix(1);
    value.remove_suffix(1);
  }
  return std::string(value);
}

// One fgets() buffer -> (key, value), or an empty key for no option.
std::pair<std::string, std::string> ReadLine(std::string_view line) {
  line = line.substr(0, line.find('\0'));
  line = line.substr(0, line.find('#'));
  constexpr std::string_view kDelimiters = " \t\n";
  std::size_t begin = line.find_first_not_of(kDelimiters);
  if (begin == std::string_view::npos) return {};
  std::size_t end = line.find_first_of(kDelimiters, begin);
  std::string key(line.substr(begin, end == std::string_view::npos ? end : end - begin));
  std::string_view rest = end == std::string_view::npos ? "" : line.substr(end + 1);
  return {key, CleanValue(rest)};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> ReadOpenSmConf(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> options;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::size_t newline = rest.find('\n');
    std::size_t size = newline == std::string_view::npos ? rest.size() : newline + 1;
    size = std::min(size, kFgetsBytes);
    auto option = ReadLine(rest.substr(0, size));
    rest.remove_prefix(size);
    if (!option.first.empty()) options.push_back(std::move(option));
  }
  return options;
}

}  // namespace smsupd::fuzz
