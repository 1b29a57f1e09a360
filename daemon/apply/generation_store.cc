#include "daemon/apply/generation_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "common/atomic_file.h"
#include "config/renderer.h"
#include "daemon/apply/running_config.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;

constexpr char kMetaFile[] = "meta.json";

std::optional<std::uint64_t> ParseNumber(const std::string& name) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), value);
  if (error != std::errc() || end != name.data() + name.size() || value == 0) return std::nullopt;
  return value;
}

// rename(2) is durable only once the directory that holds the entry is.
void SyncDirectory(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The atomic writer's temporary names: "<file>.tmp.XXXXXX".
bool IsWriterTemporary(const std::string& name) {
  auto at = name.rfind(".tmp.");
  return at != std::string::npos && at > 0 && name.size() - at == 11;
}

void RemoveWriterTemporaries(const std::string& dir, std::vector<std::string>& removed) {
  std::error_code error;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (!it->is_regular_file() || !IsWriterTemporary(it->path().filename().string())) continue;
    std::error_code ignored;
    if (fs::remove(it->path(), ignored)) removed.push_back("removed the partial file " + it->path().string());
  }
}

Status MakeDirectory(const std::string& path) {
  std::error_code error;
  fs::create_directories(path, error);
  if (error) return Error{"cannot create " + path + ": " + error.message()};
  fs::permissions(path, fs::perms::owner_all, error);  // may hold the SM_Key
  return Status::Ok();
}

// meta.json never fails to be written for a byte the fabric sent: the text
// in it is printable already, and a stray invalid byte becomes U+FFFD.
std::string MetaText(const GenerationMeta& meta) {
  return meta.ToJson().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status WriteGenerationDir(const std::string& dir, const GenerationMeta& meta, const GenerationFiles& files) {
  if (Status made = MakeDirectory(dir); !made) return made;
  const std::pair<const char*, const std::string*> contents[] = {
      {"smsupd.yaml", &files.yaml}, {"partitions.conf", &files.partitions_conf},
      {"opensm.conf", &files.opensm_conf}};
  for (const auto& [name, text] : contents)
    if (Status written = WriteFileAtomically(dir + "/" + name, *text, 0600); !written) return written;
  return WriteFileAtomically(dir + "/" + kMetaFile, MetaText(meta), 0600);
}

}  // namespace

nlohmann::json GenerationMeta::ToJson() const {
  return {{"generation", generation}, {"applied_at", applied_at}, {"applied_by", applied_by},
          {"uid", uid ? nlohmann::json(*uid) : nlohmann::json(nullptr)}, {"reason", reason},
          {"hash", hash}, {"source_path", source_path}, {"plan_summary", plan_summary},
          {"verification", verification}};
}

Result<GenerationMeta> GenerationMeta::FromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Error{"meta.json is not a JSON object"};
  GenerationMeta meta;
  try {
    meta.generation = json.at("generation").get<std::uint64_t>();
    meta.applied_at = json.value("applied_at", "");
    meta.applied_by = json.value("applied_by", "");
    if (json.contains("uid") && json["uid"].is_number_unsigned())
      meta.uid = json["uid"].get<std::uint32_t>();
    meta.reason = json.value("reason", "");
    meta.hash = json.value("hash", "");
    meta.source_path = json.value("source_path", "");
    meta.plan_summary = json.value("plan_summary", "");
    if (json.contains("verification")) meta.verification = json["verification"];
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("meta.json: ") + e.what()};
  }
  return meta;
}

std::string GenerationMeta::VerificationState() const {
  if (!verification.is_object()) return "";
  auto state = verification.find("state");
  return state != verification.end() && state->is_string() ? state->get<std::string>() : "";
}

GenerationStore::GenerationStore(std::string state_dir) : state_dir_(std::move(state_dir)) {}

std::string GenerationStore::DirOf(std::uint64_t generation) const {
  return Dir() + "/" + std::to_string(generation);
}

std::vector<std::uint64_t> GenerationStore::Numbers() const {
  std::vector<std::uint64_t> numbers;
  std::error_code error;
  for (fs::directory_iterator it(Dir(), error), end; !error && it != end; it.increment(error)) {
    if (!it->is_directory()) continue;
    if (auto number = ParseNumber(it->path().filename().string())) numbers.push_back(*number);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

std::uint64_t GenerationStore::NextNumber() const {
  std::vector<std::uint64_t> numbers = Numbers();
  std::uint64_t highest = numbers.empty() ? 0 : numbers.back();
  return std::max(highest, Current()) + 1;
}

std::uint64_t GenerationStore::Current() const {
  return ReadGeneration(StatePaths{state_dir_}).number;
}

Status GenerationStore::SetCurrent(std::uint64_t generation, const std::string& hash) {
  return WriteGeneration(StatePaths{state_dir_}, ConfigGeneration{generation, hash});
}

bool GenerationStore::Exists(std::uint64_t generation) const {
  std::error_code error;
  return fs::is_regular_file(DirOf(generation) + "/" + kMetaFile, error);
}

Status GenerationStore::Save(const GenerationMeta& meta, const GenerationFiles& files) {
  std::string final_dir = DirOf(meta.generation);
  std::error_code error;
  if (fs::exists(final_dir, error)) return Error{final_dir + " already exists"};
  std::string temp = final_dir + ".tmp";
  fs::remove_all(temp, error);  // left by an interrupted save
  Status saved = WriteGenerationDir(temp, meta, files);
  if (saved) {
    fs::rename(temp, final_dir, error);
    if (error) saved = Error{"cannot rename " + temp + " to " + final_dir + ": " + error.message()};
  }
  if (!saved) {
    fs::remove_all(temp, error);  // a full disk must not keep half a generation
    return saved;
  }
  SyncDirectory(Dir());
  return Status::Ok();
}

Status GenerationStore::Remove(std::uint64_t generation) {
  std::error_code error;
  fs::remove_all(DirOf(generation), error);
  if (error) return Error{"cannot remove " + DirOf(generation) + ": " + error.message()};
  SyncDirectory(Dir());
  return Status::Ok();
}

std::vector<GenerationMeta> GenerationStore::List(std::vector<std::string>* skipped) const {
  std::vector<GenerationMeta> list;
  for (std::uint64_t number : Numbers()) {
    auto text = ReadWholeFile(DirOf(number) + "/" + kMetaFile);
    auto meta = text ? GenerationMeta::FromJson(nlohmann::json::parse(*text, nullptr, false))
                     : Result<GenerationMeta>(text.error());
    if (meta && meta->generation == number) {
      list.push_back(std::move(*meta));
    } else if (skipped) {
      skipped->push_back(DirOf(number) + ": " + (meta ? "meta.json names another generation"
                                                      : meta.error().message));
    }
  }
  return list;
}

Result<StoredGeneration> GenerationStore::Load(std::uint64_t generation) const {
  std::string dir = DirOf(generation);
  auto meta_text = ReadWholeFile(dir + "/" + kMetaFile);
  if (!meta_text) return Error{"generation " + std::to_string(generation) + " is not stored (" +
                               meta_text.error().message + ")"};
  const std::string damaged = "generation " + std::to_string(generation) + " is damaged: ";
  auto meta = GenerationMeta::FromJson(nlohmann::json::parse(*meta_text, nullptr, false));
  if (!meta) return Error{damaged + dir + "/" + kMetaFile + ": " + meta.error().message};
  if (meta->generation != generation)
    return Error{damaged + dir + "/" + kMetaFile + " describes generation " + std::to_string(meta->generation)};
  StoredGeneration stored{std::move(*meta), {}};
  const std::pair<const char*, std::string*> files[] = {
      {"smsupd.yaml", &stored.files.yaml},
      {"opensm.conf", &stored.files.opensm_conf},
      {"partitions.conf", &stored.files.partitions_conf}};
  for (const auto& [name, out] : files) {
    auto text = ReadWholeFile(dir + "/" + name);
    if (!text) return Error{damaged + text.error().message};
    *out = std::move(*text);
  }
  // A cut or edited YAML may still validate: only the recorded hash tells
  // it is not the config that was applied.
  if (config::ConfigHash(stored.files.yaml) != stored.meta.hash)
    return Error{damaged + dir + "/smsupd.yaml is not the config it recorded (sha256 differs)"};
  return stored;
}

Status GenerationStore::SetVerification(std::uint64_t generation,
                                        const nlohmann::json& verification) {
  auto stored = Load(generation);
  if (!stored) return stored.error();
  stored->meta.verification = verification;
  return WriteFileAtomically(DirOf(generation) + "/" + kMetaFile, MetaText(stored->meta), 0600);
}

Status GenerationStore::Prune(int keep, std::uint64_t current) {
  std::error_code error;
  for (fs::directory_iterator it(Dir(), error), end; !error && it != end; it.increment(error)) {
    std::string name = it->path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
  std::vector<std::uint64_t> numbers = Numbers();
  std::size_t excess = numbers.size() > static_cast<std::size_t>(std::max(keep, 1))
                           ? numbers.size() - static_cast<std::size_t>(std::max(keep, 1))
                           : 0;
  std::string failures;
  for (std::uint64_t number : numbers) {
    if (excess == 0) break;
    if (number == current) continue;
    fs::remove_all(DirOf(number), error);
    if (error) failures += (failures.empty() ? "" : "; ") + DirOf(number) + ": " + error.message();
    --excess;
  }
  if (!failures.empty()) return Error{"cannot prune " + failures};
  return Status::Ok();
}

std::vector<std::string> GenerationStore::RemoveInterrupted(std::uint64_t current) {
  std::vector<std::string> removed;
  RemoveWriterTemporaries(state_dir_, removed);
  std::error_code error;
  for (fs::directory_iterator it(Dir(), error), end; !error && it != end; it.increment(error)) {
    std::string name = it->path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".tmp") == 0) {
      std::error_code ignored;
      if (fs::remove_all(it->path(), ignored) > 0)
        removed.push_back("removed the partial generation " + it->path().string());
    }
  }
  for (std::uint64_t number : Numbers()) {
    RemoveWriterTemporaries(DirOf(number), removed);
    if (current == 0 || number <= current) continue;
    auto text = ReadWholeFile(DirOf(number) + "/" + kMetaFile);
    auto meta = text ? GenerationMeta::FromJson(nlohmann::json::parse(*text, nullptr, false))
                     : Result<GenerationMeta>(text.error());
    if (!meta || meta->VerificationState() != "pending") continue;
    std::error_code ignored;
    if (fs::remove_all(DirOf(number), ignored) > 0)
      removed.push_back("discarded generation " + std::to_string(number) +
                        ": saved by an apply that never made it current (generation " +
                        std::to_string(current) + " is)");
  }
  if (!removed.empty()) SyncDirectory(Dir());
  return removed;
}

}  // namespace smsupd
