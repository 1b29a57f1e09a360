// Applied configs as numbered generations on disk:
//
//   <state_dir>/generations/<N>/smsupd.yaml      the YAML as given
//   <state_dir>/generations/<N>/opensm.conf      as rendered (mode 0600: may hold the SM_Key)
//   <state_dir>/generations/<N>/partitions.conf  as rendered
//   <state_dir>/generations/<N>/meta.json        GenerationMeta
//   <state_dir>/generation                       "generation=N\nhash=H\n": the CURRENT one
//
// A generation is written into `<N>.tmp/` and renamed to `<N>/`, so a reader
// (or a crash) sees a whole generation or none. meta.json alone is replaced
// later (SetVerification) with the one atomic writer. The current pointer is
// the existing `<state_dir>/generation` file (running_config.h), so
// numbering continues from what an earlier smsupd recorded there.
//
// Not thread-safe; the daemon uses it on its io_context thread. Every call is
// a few small file operations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace smsupd {

struct GenerationMeta {
  std::uint64_t generation = 0;
  std::string applied_at;   // ISO 8601 UTC, "2026-12-02T21:30:00.123Z"
  std::string applied_by;   // "uid 0", "signal", "start", "rollback by uid 0"
  std::optional<std::uint32_t> uid;
  std::string reason;       // "start", "reload", "signal", "rollback", "auto-rollback"
  std::string hash;         // sha256 of the YAML
  std::string source_path;
  std::string plan_summary;
  // {state, text, checked, expected, mismatches: [...]}; state "pending"
  // until the apply finishes.
  nlohmann::json verification = {{"state", "pending"}};

  nlohmann::json ToJson() const;
  static Result<GenerationMeta> FromJson(const nlohmann::json& json);
  std::string VerificationState() const;  // verification.state, "" if absent
};

struct GenerationFiles {
  std::string yaml;
  std::string opensm_conf;
  std::string partitions_conf;
};

struct StoredGeneration {
  GenerationMeta meta;
  GenerationFiles files;
};

class GenerationStore {
 public:
  explicit GenerationStore(std::string state_dir);

  std::string Dir() const { return state_dir_ + "/generations"; }
  std::string DirOf(std::uint64_t generation) const;

  // The number the next Save should use: one past the highest generation on
  // disk or in the legacy counter, whichever is higher.
  std::uint64_t NextNumber() const;
  // The current generation ({number, hash} of <state_dir>/generation); 0 if none.
  std::uint64_t Current() const;
  Status SetCurrent(std::uint64_t generation, const std::string& hash);

  // Writes generation meta.generation (which must not exist yet). On
  // failure nothing of it is left.
  Status Save(const GenerationMeta& meta, const GenerationFiles& files);
  // Removes a generation (one whose apply could not install it).
  Status Remove(std::uint64_t generation);
  bool Exists(std::uint64_t generation) const;
  // Every readable generation, oldest first. Unreadable ones are skipped
  // (and named in *skipped when given).
  std::vector<GenerationMeta> List(std::vector<std::string>* skipped = nullptr) const;
  Result<StoredGeneration> Load(std::uint64_t generation) const;
  // Replaces meta.json's verification of `generation`.
  Status SetVerification(std::uint64_t generation, const nlohmann::json& verification);
  // Removes the oldest generations until `keep` are left; never `current`.
  // Also removes stale `*.tmp` directories of interrupted saves.
  Status Prune(int keep, std::uint64_t current);
  // At start, before anything is written: removes what an apply that was
  // interrupted (smsupd killed) left behind. That is every temporary file
  // of the atomic writer (`*.tmp.XXXXXX`) in state_dir and in each
  // generation, every `<N>.tmp/`, and, when `current` is known, every
  // generation newer than it whose verification is still "pending": it was
  // saved but never became current. One line per removal.
  std::vector<std::string> RemoveInterrupted(std::uint64_t current);

 private:
  std::vector<std::uint64_t> Numbers() const;  // on disk, ascending

  std::string state_dir_;
};

}  // namespace smsupd
