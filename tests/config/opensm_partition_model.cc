#include "tests/config/opensm_partition_model.h"

#include <cstring>
#include <optional>
#include <sstream>

namespace smsupd::config::testing {
namespace {

enum class Kind { kLimited, kFull, kBoth };

struct Tables {
  std::map<Guid, bool> full;
  std::map<Guid, bool> part;
};

struct Model {
  bool allow_both = false;
  const std::vector<FabricPort>* ports = nullptr;
  Guid sm_port = 0;
  std::map<std::uint16_t, Tables> partitions;
};

std::string Trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\n");
  return text.substr(begin, end - begin + 1);
}

// strncmp(word, full, strlen(word)) == 0, as OpenSM matches keywords.
bool PrefixOf(const std::string& word, const char* full) {
  return std::strncmp(word.c_str(), full, word.size()) == 0;
}

void AddPort(Model& model, Tables& tables, Guid guid, Kind kind) {
  if (model.allow_both && kind != Kind::kBoth)
    (kind == Kind::kLimited ? tables.full : tables.part).erase(guid);
  if (kind != Kind::kLimited) {
    if (!model.allow_both) tables.part.erase(guid);
    tables.full[guid] = true;
  }
  if (kind == Kind::kLimited || (kind == Kind::kBoth && model.allow_both)) {
    if (!model.allow_both) tables.full.erase(guid);
    tables.part[guid] = true;
  }
}

Kind ParseMembership(const std::string& flag, Kind fallback, bool has_flag) {
  if (!has_flag) return fallback;
  if (PrefixOf(flag, "full")) return Kind::kFull;
  if (PrefixOf(flag, "both")) return Kind::kBoth;
  return Kind::kLimited;
}

Status ApplyMember(Model& model, Tables& tables, const std::string& token, Kind default_kind) {
  std::string name = Trim(token.substr(0, token.find('=')));
  bool has_flag = token.find('=') != std::string::npos;
  std::string flag = has_flag ? Trim(token.substr(token.find('=') + 1)) : "";
  if (name.empty() || PrefixOf(name, "NONE")) return {};
  Kind kind = ParseMembership(flag, default_kind, has_flag);
  auto add_kind = [&](std::optional<PortKind> only) {
    for (const FabricPort& port : *model.ports)
      if (!only || port.kind == *only) AddPort(model, tables, port.guid, kind);
  };
  // OpenSM tests the keywords in this order, each as a prefix match.
  const std::pair<const char*, std::optional<PortKind>> keywords[] = {
      {"ALL", std::nullopt},
      {"ALL_CAS", PortKind::kCa},
      {"ALL_SWITCHES", PortKind::kSwitch},
      {"ALL_ROUTERS", PortKind::kRouter}};
  for (const auto& [word, only] : keywords)
    if (PrefixOf(name, word)) {
      add_kind(only);
      return {};
    }
  Guid guid = 0;
  if (PrefixOf(name, "SELF")) {
    guid = model.sm_port;
  } else {
    char* end = nullptr;
    guid = std::strtoull(name.c_str(), &end, 0);
    if (guid == 0 || *end != '\0') return Error{"bad PortGUID '" + name + "'"};
  }
  for (const FabricPort& port : *model.ports)
    if (port.guid == guid) AddPort(model, tables, guid, kind);
  return {};
}

// "Name=0xPKEY, flag, flag=value" -> the partition's tables and default membership.
Result<std::pair<Tables*, Kind>> ApplyHeader(Model& model, const std::string& header) {
  std::stringstream parts(header);
  std::string first;
  std::getline(parts, first, ',');
  size_t equals = first.find('=');
  if (equals == std::string::npos) return Error{"partition without P_Key: " + header};
  std::uint16_t pkey = static_cast<std::uint16_t>(std::strtoul(first.c_str() + equals + 1, nullptr, 0) & 0x7fff);
  if (pkey == 0) return Error{"P_Key 0 (auto) is not modelled"};
  Kind kind = Kind::kLimited;
  for (std::string flag; std::getline(parts, flag, ',');) {
    flag = Trim(flag);
    if (flag.rfind("defmember=", 0) == 0) kind = ParseMembership(flag.substr(10), kind, true);
  }
  return std::pair<Tables*, Kind>{&model.partitions[pkey], kind};
}

Status ApplyDefinition(Model& model, const std::string& definition) {
  size_t colon = definition.find(':');
  if (colon == std::string::npos) return Error{"no partition definition found"};
  Result<std::pair<Tables*, Kind>> header = ApplyHeader(model, Trim(definition.substr(0, colon)));
  if (!header.ok()) return header.error();
  std::stringstream members(definition.substr(colon + 1));
  for (std::string token; std::getline(members, token, ',');) {
    Status status = ApplyMember(model, *header->first, Trim(token), header->second);
    if (!status.ok()) return status;
  }
  return {};
}

}  // namespace

Result<std::map<Guid, std::set<std::uint16_t>>> ApplyPartitionsConf(
    const std::string& text, bool allow_both_pkeys, const std::vector<FabricPort>& ports) {
  Model model;
  model.allow_both = allow_both_pkeys;
  model.ports = &ports;
  for (const FabricPort& port : ports)
    if (port.is_sm_port) model.sm_port = port.guid;
  Tables& base = model.partitions[0x7fff];
  for (const FabricPort& port : ports) base.part[port.guid] = true;
  base.part.erase(model.sm_port);
  base.full[model.sm_port] = true;

  std::string uncommented;
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() >= 4095) return Error{"line longer than OpenSM's 4095-byte buffer"};
    uncommented += line.substr(0, line.find('#')) + "\n";
  }
  size_t start = 0;
  int definitions = 0;
  for (size_t semicolon; (semicolon = uncommented.find(';', start)) != std::string::npos;) {
    Status status = ApplyDefinition(model, uncommented.substr(start, semicolon - start));
    if (!status.ok()) return Error{status.message()};
    start = semicolon + 1;
    ++definitions;
  }
  if (!Trim(uncommented.substr(start)).empty()) return Error{"definition without ';'"};
  if (definitions == 0) return Error{"no definitions: OpenSM treats the file as in error"};

  std::map<Guid, std::set<std::uint16_t>> entries;
  for (const FabricPort& port : ports) entries[port.guid];
  for (const auto& [pkey, tables] : model.partitions) {
    for (const auto& [guid, unused] : tables.full) entries[guid].insert(pkey | 0x8000);
    for (const auto& [guid, unused] : tables.part) entries[guid].insert(pkey);
  }
  return entries;
}

std::string OpenSmConfValue(const std::string& text, const std::string& name) {
  std::string value;
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(name + " ", 0) == 0) value = line.substr(name.size() + 1);
  return value;
}

}  // namespace smsupd::config::testing
