// What a crash leaves in an smsupd state_dir, read the way an operator (or
// the next smsupd) would find it: partial files, incomplete generations,
// rendered files that belong to no stored generation or to two different
// ones, a current pointer that names nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace smsupd::testbed {

struct StateDirAudit {
  // One line per defect; empty when the directory is consistent.
  std::vector<std::string> problems;
  std::vector<std::uint64_t> generations;  // complete ones, ascending
  std::uint64_t current = 0;               // <state_dir>/generation (0: none)
  std::string current_hash;
  // The stored generation whose opensm.conf and partitions.conf are the
  // installed ones (the current one when several match).
  std::optional<std::uint64_t> installed;

  bool consistent() const { return problems.empty(); }
  std::string Describe() const;
};

// Reads `state_dir`. OpenSM's own scratch and cache directories are not
// looked into. opensm.conf is compared without its sm_priority line: the
// failover policy re-renders the priority after an apply.
StateDirAudit AuditStateDir(const std::string& state_dir);

// Entries under `dir` (recursively) whose mode lets group or others read
// them, as "path (mode 0644)".
std::vector<std::string> FilesReadableByOthers(const std::string& dir);

}  // namespace smsupd::testbed
