// Helpers the validator reads YAML with (internal). Every problem becomes a
// Diagnostic with the node's position; nothing throws past these helpers.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/guid.h"
#include "config/diagnostic.h"

namespace smsupd::config {

// At most this many diagnostics are kept per text; the rest are counted and
// summed up in one last diagnostic ("N more errors and M more warnings").
inline constexpr std::size_t kMaxDiagnostics = 100;
// Each part of a diagnostic (file name, YAML path, what, valid) is cut to
// this many bytes: they quote the caller's text and name.
inline constexpr std::size_t kMaxDiagnosticPartBytes = 1024;

// Collects diagnostics for one file.
class DiagnosticSink {
 public:
  explicit DiagnosticSink(std::string file);

  void Error(const YAML::Node& at, std::string path, std::string what, std::string valid = "");
  void Warning(const YAML::Node& at, std::string path, std::string what, std::string valid = "");
  void ErrorAt(int line, int column, std::string path, std::string what, std::string valid = "");
  void Add(Severity severity, int line, int column, std::string path, std::string what,
           std::string valid);
  // A finding of a file the YAML names (the cabling CSV): it keeps its own
  // file name, and counts like any other.
  void AddFromFile(const Diagnostic& diagnostic);

  const std::string& file() const { return file_; }
  bool has_errors() const { return errors_ > 0; }
  // No more diagnostics are kept: work that only improves their text (a
  // "did you mean" search over every name) is not worth doing.
  bool full() const { return diagnostics_.size() >= kMaxDiagnostics; }
  // The kept diagnostics, then (past kMaxDiagnostics) one that counts the rest.
  std::vector<Diagnostic> TakeDiagnostics();
  int hidden_errors() const { return dropped_errors_; }
  int hidden_warnings() const { return dropped_warnings_; }

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
  int errors_ = 0;
  int dropped_errors_ = 0;
  int dropped_warnings_ = 0;
};

// 1-based line and column of a node (yaml-cpp marks are 0-based).
int LineOf(const YAML::Node& node);
int ColumnOf(const YAML::Node& node);

// A YAML mapping whose keys were checked against the keys a section allows:
// unknown keys get an error with the nearest known key, duplicates an error.
class MappingView {
 public:
  // `node` must be a map (else an error is reported and the view is empty).
  MappingView(const YAML::Node& node, std::string path, std::vector<std::string_view> allowed,
              DiagnosticSink& sink);

  // The value under `key`, or nullptr when the key is absent.
  const YAML::Node* Get(std::string_view key) const;
  // Like Get, but reports "missing key" at the mapping when absent.
  const YAML::Node* Require(std::string_view key, std::string valid);
  std::string PathOf(std::string_view key) const;
  const YAML::Node& node() const { return node_; }
  bool valid() const { return is_map_; }

 private:
  YAML::Node node_;
  std::string path_;
  DiagnosticSink& sink_;
  std::map<std::string, YAML::Node, std::less<>> values_;
  bool is_map_ = false;
};

// Scalar readers: on a wrong value they report an error and return nullopt.
std::optional<std::string> ReadString(const YAML::Node& node, const std::string& path,
                                      DiagnosticSink& sink);
std::optional<bool> ReadBool(const YAML::Node& node, const std::string& path, DiagnosticSink& sink);
// Decimal or 0x-hex integer within [min, max].
std::optional<std::int64_t> ReadInteger(const YAML::Node& node, const std::string& path,
                                        std::int64_t min, std::int64_t max, DiagnosticSink& sink);
// "0x" + 1..16 hex digits, not zero. Bare decimals and octal are refused.
std::optional<Guid> ReadGuid(const YAML::Node& node, const std::string& path, DiagnosticSink& sink);
// An absolute path.
std::optional<std::string> ReadAbsolutePath(const YAML::Node& node, const std::string& path,
                                            DiagnosticSink& sink);
// One of `choices`; the hint names the nearest one.
std::optional<std::string> ReadChoice(const YAML::Node& node, const std::string& path,
                                      const std::vector<std::string_view>& choices,
                                      DiagnosticSink& sink);

// Parses decimal (optionally negative) or unsigned 0x-hex integer text that
// fits a signed 64-bit integer; nullopt otherwise (never wraps).
std::optional<std::int64_t> ParseIntegerText(std::string_view text);

// "did you mean 'x'?" or "valid: a, b, c".
std::string SuggestionText(std::string_view given, const std::vector<std::string_view>& choices);

}  // namespace smsupd::config
