#include "daemon/apply/why_generations.h"

#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace smsupd {

namespace {

// partitions.conf without its comments (OpenSM: `#` to the end of the line).
std::string WithoutComments(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    out += line + "\n";
  }
  return out;
}

// The P_Key a definition's header names (`Name=0xPKEY[,flags] :`), cut to 15 bits.
std::optional<std::uint16_t> HeaderPKey(const std::string& definition) {
  const std::size_t colon = definition.find(':');
  const std::string header = definition.substr(0, colon);
  const std::size_t at = header.find("=0x");
  if (at == std::string::npos) return std::nullopt;
  unsigned long value = 0;
  try {
    value = std::stoul(header.substr(at + 3), nullptr, 16);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(value & 0x7fff);
}

// Whitespace runs as one space, none at the ends: a re-wrapped member list
// is not a change.
std::string Normalised(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (!space) out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace

std::string PartitionDefinition(const std::string& partitions_conf, std::uint16_t pkey) {
  std::string all = WithoutComments(partitions_conf), found;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find(';', start);
    if (end == std::string::npos) end = all.size();
    std::string definition = Normalised(all.substr(start, end - start));
    if (HeaderPKey(definition) == (pkey & 0x7fff)) found += (found.empty() ? "" : " ") + definition + " ;";
    start = end + 1;
  }
  return found;
}

std::map<std::uint16_t, std::uint64_t> LastChangedGenerations(const GenerationStore& store,
                                                              std::uint64_t current,
                                                              const std::set<std::uint16_t>& pkeys,
                                                              std::size_t max_scanned) {
  std::vector<std::uint64_t> numbers;
  for (const GenerationMeta& meta : store.List())
    if (meta.generation <= current) numbers.push_back(meta.generation);
  std::map<std::uint16_t, std::string> now;       // the current definitions
  std::map<std::uint16_t, std::uint64_t> result;  // the oldest generation of the run so far
  std::set<std::uint16_t> open;                   // runs not yet broken
  std::size_t scanned = 0;
  for (auto it = numbers.rbegin(); it != numbers.rend() && scanned < max_scanned; ++it, ++scanned) {
    auto stored = store.Load(*it);
    if (!stored) break;  // an unreadable generation ends every run
    const std::string& conf = stored->files.partitions_conf;
    if (scanned == 0) {
      for (std::uint16_t pkey : pkeys)
        if (std::string d = PartitionDefinition(conf, pkey); !d.empty()) {
          now[pkey] = d;
          open.insert(pkey);
        }
    }
    for (auto key = open.begin(); key != open.end();) {
      if (PartitionDefinition(conf, *key) != now[*key]) {
        key = open.erase(key);
      } else {
        result[*key] = *it;
        ++key;
      }
    }
    if (open.empty()) break;
  }
  return result;
}

}  // namespace smsupd
