#include "config/yaml_view.h"

#include <cctype>
#include <charconv>
#include <cstdio>

#include "common/printable_text.h"
#include "config/edit_distance.h"

namespace smsupd::config {

DiagnosticSink::DiagnosticSink(std::string file)
    : file_(CutText(std::move(file), kMaxDiagnosticPartBytes)) {}

void DiagnosticSink::Add(Severity severity, int line, int column, std::string path,
                         std::string what, std::string valid) {
  const bool error = severity == Severity::kError;
  if (error) ++errors_;
  if (diagnostics_.size() >= kMaxDiagnostics) {
    ++(error ? dropped_errors_ : dropped_warnings_);
    return;
  }
  diagnostics_.push_back(Diagnostic{severity, file_, line, column,
                                    CutText(std::move(path), kMaxDiagnosticPartBytes),
                                    CutText(std::move(what), kMaxDiagnosticPartBytes),
                                    CutText(std::move(valid), kMaxDiagnosticPartBytes)});
}

void DiagnosticSink::AddFromFile(const Diagnostic& diagnostic) {
  const std::size_t kept = diagnostics_.size();
  Add(diagnostic.severity, diagnostic.line, diagnostic.column, diagnostic.yaml_path, diagnostic.what,
      diagnostic.valid);
  if (diagnostics_.size() > kept) diagnostics_.back().file = CutText(diagnostic.file, kMaxDiagnosticPartBytes);
}

std::vector<Diagnostic> DiagnosticSink::TakeDiagnostics() {
  std::vector<Diagnostic> taken = std::move(diagnostics_);
  diagnostics_.clear();
  if (dropped_errors_ + dropped_warnings_ > 0) {
    taken.push_back(Diagnostic{dropped_errors_ > 0 ? Severity::kError : Severity::kWarning, file_,
                               0, 0, "",
                               std::to_string(dropped_errors_) + " more error(s) and " +
                                   std::to_string(dropped_warnings_) +
                                   " more warning(s) not shown",
                               "fix the ones above first"});
  }
  return taken;
}

void DiagnosticSink::Error(const YAML::Node& at, std::string path, std::string what,
                           std::string valid) {
  Add(Severity::kError, LineOf(at), ColumnOf(at), std::move(path), std::move(what),
      std::move(valid));
}

void DiagnosticSink::Warning(const YAML::Node& at, std::string path, std::string what,
                             std::string valid) {
  Add(Severity::kWarning, LineOf(at), ColumnOf(at), std::move(path), std::move(what),
      std::move(valid));
}

void DiagnosticSink::ErrorAt(int line, int column, std::string path, std::string what,
                             std::string valid) {
  Add(Severity::kError, line, column, std::move(path), std::move(what), std::move(valid));
}

int LineOf(const YAML::Node& node) {
  return node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

int ColumnOf(const YAML::Node& node) {
  return node.IsDefined() && node.Mark().column >= 0 ? node.Mark().column + 1 : 0;
}

std::string SuggestionText(std::string_view given, const std::vector<std::string_view>& choices) {
  std::string nearest = NearestName(given, choices);
  if (!nearest.empty()) return "did you mean '" + nearest + "'?";
  std::string text = "valid: ";
  for (size_t i = 0; i < choices.size(); ++i) text += (i ? ", " : "") + std::string(choices[i]);
  return text;
}

MappingView::MappingView(const YAML::Node& node, std::string path,
                         std::vector<std::string_view> allowed, DiagnosticSink& sink)
    : node_(node), path_(std::move(path)), sink_(sink) {
  if (!node.IsMap()) {
    sink.Error(node, path_, node.IsNull() ? "is empty" : "is not a mapping",
               "expected keys: " + SuggestionText("", allowed).substr(7));
    return;
  }
  is_map_ = true;
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    std::string name = key.IsScalar() ? key.Scalar() : std::string("?");
    bool known = false;
    for (std::string_view candidate : allowed) known = known || candidate == name;
    if (!known) {
      sink.Error(key, PathOf(name), "unknown key '" + name + "'", SuggestionText(name, allowed));
    } else if (values_.count(name) != 0) {
      sink.Error(key, PathOf(name), "duplicate key '" + name + "'", "give each key once");
    } else {
      values_.emplace(name, entry.second);
    }
  }
}

const YAML::Node* MappingView::Get(std::string_view key) const {
  auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

const YAML::Node* MappingView::Require(std::string_view key, std::string valid) {
  const YAML::Node* value = Get(key);
  if (value == nullptr && is_map_)
    sink_.Error(node_, path_, "missing key '" + std::string(key) + "'", std::move(valid));
  return value;
}

std::string MappingView::PathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::optional<std::string> ReadString(const YAML::Node& node, const std::string& path,
                                      DiagnosticSink& sink) {
  if (!node.IsScalar() || node.Scalar().empty()) {
    sink.Error(node, path, node.IsScalar() || node.IsNull() ? "is empty" : "is not a string",
               "expected a string");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<bool> ReadBool(const YAML::Node& node, const std::string& path,
                             DiagnosticSink& sink) {
  if (node.IsScalar()) {
    const std::string& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
  }
  sink.Error(node, path, "is not a boolean", "expected true or false");
  return std::nullopt;
}

// Decimal with an optional '-', or 0x hex without a sign (a signed hex
// number is almost always a typo, and "-0x80..." was read with wrap-around).
// Every value must fit a signed 64-bit integer; nothing wraps.
std::optional<std::int64_t> ParseIntegerText(std::string_view text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  std::string_view digits = hex ? text.substr(2) : text;
  if (digits.empty()) return std::nullopt;
  if (!hex) {
    const std::string_view unsigned_part = digits[0] == '-' ? digits.substr(1) : digits;
    if (unsigned_part.empty() || !std::isdigit(static_cast<unsigned char>(unsigned_part[0])))
      return std::nullopt;
    if (unsigned_part.size() > 1 && unsigned_part[0] == '0') return std::nullopt;  // octal?
  } else if (!std::isxdigit(static_cast<unsigned char>(digits[0]))) {
    return std::nullopt;  // "0x-1", "0x+1"
  }
  std::int64_t value = 0;
  const char* end = digits.data() + digits.size();
  auto [next, error] = std::from_chars(digits.data(), end, value, hex ? 16 : 10);
  if (error != std::errc() || next != end) return std::nullopt;
  return value;
}

std::optional<std::int64_t> ReadInteger(const YAML::Node& node, const std::string& path,
                                        std::int64_t min, std::int64_t max, DiagnosticSink& sink) {
  std::string range = "expected an integer " + std::to_string(min) + ".." + std::to_string(max);
  std::optional<std::int64_t> value;
  if (node.IsScalar()) value = ParseIntegerText(node.Scalar());
  if (!value) {
    std::string shown = node.IsScalar() ? "'" + node.Scalar() + "' " : "";
    sink.Error(node, path, shown + "is not an integer", range);
    return std::nullopt;
  }
  if (*value < min || *value > max) {
    sink.Error(node, path, node.Scalar() + " is out of range", range);
    return std::nullopt;
  }
  return value;
}

std::optional<Guid> ReadGuid(const YAML::Node& node, const std::string& path,
                             DiagnosticSink& sink) {
  const char* valid = "expected 0x followed by 1 to 16 hex digits, e.g. 0x0002c90300a1b2c3";
  std::optional<Guid> guid;
  if (node.IsScalar()) guid = ParseGuid(node.Scalar());
  if (!guid) {
    std::string shown = node.IsScalar() ? "'" + node.Scalar() + "' " : "";
    sink.Error(node, path, shown + "is not a GUID", valid);
    return std::nullopt;
  }
  if (*guid == 0) {
    sink.Error(node, path, "GUID 0 names no port", valid);
    return std::nullopt;
  }
  return guid;
}

namespace {

constexpr std::size_t kMaxPathBytes = 4095;  // PATH_MAX less its NUL

std::string DescribePathByte(unsigned char c) {
  if (c == ' ') return "a space";
  if (c == '#') return "'#'";
  if (c == '"' || c == '\'') return std::string("a quote (") + static_cast<char>(c) + ")";
  char text[48];
  std::snprintf(text, sizeof text, "a control character (0x%02x)", c);
  return text;
}

}  // namespace

std::optional<std::string> ReadAbsolutePath(const YAML::Node& node, const std::string& path,
                                            DiagnosticSink& sink) {
  std::optional<std::string> text = ReadString(node, path, sink);
  if (text && (*text)[0] != '/') {
    sink.Error(node, path, "'" + *text + "' is not an absolute path", "expected a path starting with /");
    return std::nullopt;
  }
  if (text && text->size() > kMaxPathBytes) {
    sink.Error(node, path, "path is " + std::to_string(text->size()) + " bytes long",
               "the limit is " + std::to_string(kMaxPathBytes) + " bytes");
    return std::nullopt;
  }
  // OpenSM reads an option's value up to the first white space and a '#'
  // as the start of a comment; a newline would start an option of its own.
  // A path holding any of them would reach OpenSM as another value.
  if (text) {
    for (unsigned char c : *text) {
      if (c <= ' ' || c == 0x7f || c == '#' || c == '"' || c == '\'') {
        sink.Error(node, path, "path holds " + DescribePathByte(c),
                   "OpenSM would read another path; use a path without white space, control "
                   "characters, quotes or '#'");
        return std::nullopt;
      }
    }
  }
  return text;
}

std::optional<std::string> ReadChoice(const YAML::Node& node, const std::string& path,
                                      const std::vector<std::string_view>& choices,
                                      DiagnosticSink& sink) {
  if (node.IsScalar())
    for (std::string_view choice : choices)
      if (node.Scalar() == choice) return node.Scalar();
  std::string shown = node.IsScalar() ? "'" + node.Scalar() + "'" : "value";
  std::string valid = "valid: ";
  for (size_t i = 0; i < choices.size(); ++i) valid += (i ? ", " : "") + std::string(choices[i]);
  std::string nearest = node.IsScalar() ? NearestName(node.Scalar(), choices) : "";
  if (!nearest.empty()) valid = "did you mean '" + nearest + "'? " + valid;
  sink.Error(node, path, shown + " is not valid", valid);
  return std::nullopt;
}

}  // namespace smsupd::config
