#include "tests/daemon/faults/state_dir_audit.h"

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"

namespace smsupd::testbed {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGenerationFiles[] = {"smsupd.yaml", "opensm.conf", "partitions.conf", "meta.json"};
// OpenSM's, not smsupd's (OSM_TMP_DIR, OSM_CACHE_DIR).
const std::set<std::string> kOpenSmDirs = {"opensm-tmp", "opensm-cache"};

std::optional<std::uint64_t> Number(const std::string& text) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0) return std::nullopt;
  return value;
}

std::string WithoutPriority(const std::string& conf) {
  std::istringstream lines(conf);
  std::string kept;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("sm_priority", 0) != 0) kept += line + "\n";
  return kept;
}

std::string FileOr(const std::string& path, const std::string& otherwise) {
  Result<std::string> text = ReadWholeFile(path);
  return text ? *text : otherwise;
}

void FindPartialFiles(const std::string& state_dir, StateDirAudit& audit) {
  std::error_code error;
  fs::recursive_directory_iterator it(state_dir, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (it.depth() == 0 && kOpenSmDirs.count(name)) {
      it.disable_recursion_pending();
      continue;
    }
    if (name.find(".tmp") != std::string::npos)
      audit.problems.push_back("partial file left: " + it->path().string());
  }
}

void ReadGenerations(const std::string& state_dir, StateDirAudit& audit) {
  std::error_code error;
  for (fs::directory_iterator it(state_dir + "/generations", error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::optional<std::uint64_t> number = Number(name);
    if (!number) {
      if (name.find(".tmp") == std::string::npos)
        audit.problems.push_back("not a generation: " + it->path().string());
      continue;
    }
    std::string missing;
    for (const char* file : kGenerationFiles)
      if (!fs::is_regular_file(it->path() / file, error)) missing += std::string(" ") + file;
    nlohmann::json meta = nlohmann::json::parse(FileOr(it->path() / "meta.json", ""), nullptr, false);
    if (!missing.empty()) {
      audit.problems.push_back("generation " + name + " lacks" + missing);
    } else if (!meta.is_object() || meta.value("generation", 0ull) != *number) {
      audit.problems.push_back("generation " + name + ": meta.json is not its own");
    } else {
      audit.generations.push_back(*number);
    }
  }
  std::sort(audit.generations.begin(), audit.generations.end());
}

void ReadCurrent(const std::string& state_dir, StateDirAudit& audit) {
  std::istringstream lines(FileOr(state_dir + "/generation", ""));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("generation=", 0) == 0) audit.current = Number(line.substr(11)).value_or(0);
    if (line.rfind("hash=", 0) == 0) audit.current_hash = line.substr(5);
  }
  if (audit.current == 0) {
    audit.problems.push_back("no current generation in " + state_dir + "/generation");
    return;
  }
  const std::string dir = state_dir + "/generations/" + std::to_string(audit.current);
  if (std::find(audit.generations.begin(), audit.generations.end(), audit.current) == audit.generations.end()) {
    audit.problems.push_back("the current generation " + std::to_string(audit.current) + " is not stored");
    return;
  }
  nlohmann::json meta = nlohmann::json::parse(FileOr(dir + "/meta.json", ""), nullptr, false);
  if (meta.value("hash", std::string()) != audit.current_hash)
    audit.problems.push_back("the current pointer's hash is not generation " + std::to_string(audit.current) + "'s");
}

// Which stored generation the installed pair belongs to; a pair whose two
// files come from different generations is a mix.
void MatchInstalled(const std::string& state_dir, StateDirAudit& audit) {
  const std::string conf = FileOr(state_dir + "/opensm.conf", "");
  const std::string partitions = FileOr(state_dir + "/partitions.conf", "");
  if (conf.empty() || partitions.empty()) {
    audit.problems.push_back("opensm.conf or partitions.conf is missing or empty");
    return;
  }
  std::vector<std::uint64_t> both, conf_only, partitions_only;
  for (std::uint64_t number : audit.generations) {
    const std::string dir = state_dir + "/generations/" + std::to_string(number) + "/";
    bool conf_same = WithoutPriority(FileOr(dir + "opensm.conf", "")) == WithoutPriority(conf);
    bool partitions_same = FileOr(dir + "partitions.conf", "") == partitions;
    if (conf_same && partitions_same) both.push_back(number);
    else if (conf_same) conf_only.push_back(number);
    else if (partitions_same) partitions_only.push_back(number);
  }
  if (both.empty()) {
    audit.problems.push_back(
        !conf_only.empty() && !partitions_only.empty()
            ? "installed opensm.conf is generation " + std::to_string(conf_only.back()) +
                  "'s but partitions.conf generation " + std::to_string(partitions_only.back()) + "'s"
            : "the installed files are no stored generation's");
    return;
  }
  audit.installed = std::find(both.begin(), both.end(), audit.current) != both.end() ? audit.current : both.back();
}

}  // namespace

std::string StateDirAudit::Describe() const {
  std::string text = "generations {";
  for (std::uint64_t number : generations) text += " " + std::to_string(number);
  text += " }, current " + std::to_string(current) + ", installed " +
          (installed ? std::to_string(*installed) : std::string("none"));
  for (const std::string& problem : problems) text += "\n  " + problem;
  return text;
}

StateDirAudit AuditStateDir(const std::string& state_dir) {
  StateDirAudit audit;
  FindPartialFiles(state_dir, audit);
  ReadGenerations(state_dir, audit);
  ReadCurrent(state_dir, audit);
  MatchInstalled(state_dir, audit);
  return audit;
}

std::vector<std::string> FilesReadableByOthers(const std::string& dir) {
  std::vector<std::string> found;
  std::error_code error;
  for (fs::recursive_directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || !S_ISREG(info.st_mode) || (info.st_mode & 0044) == 0) continue;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(info.st_mode & 07777));
    found.push_back(it->path().string() + " (mode " + mode + ")");
  }
  return found;
}

}  // namespace smsupd::testbed
