// Typed reading of JSON objects for the control protocol's parsers
// (requests, arguments, wire types): every field checked, the first problem
// kept as a message naming the field path. A parse never throws and never
// stops half-way with a partial message. Internal to common/control_*.cc.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/guid.h"
#include "common/control_wire.h"
#include "common/result.h"

namespace smsupd::control {

// A short rendering of `value` for error messages.
std::string Describe(const nlohmann::json& value);

inline constexpr std::uint64_t kMaxU16 = 0xffff;
inline constexpr std::uint64_t kMaxI32 = std::numeric_limits<std::int32_t>::max();
inline constexpr std::uint64_t kMaxI64 = std::numeric_limits<std::int64_t>::max();

// Reads typed fields of one JSON object, keeping the first problem as a
// message that names the field path. Callers check error() once at the end,
// so a parse never throws and never stops half-way with a partial message.
class FieldReader {
 public:
  FieldReader(const nlohmann::json& object, std::string path) : object_(object), path_(std::move(path)) {
    if (!object_.is_object()) Fail(path_, "expected an object, got " + Describe(object_));
  }

  const std::optional<Error>& error() const { return error_; }

  const nlohmann::json* Find(const char* key, bool required) {
    if (error_) return nullptr;
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) Fail(Path(key), "missing");
      return nullptr;
    }
    return &*it;
  }

  void String(const char* key, std::string* out, bool required = true) {
    const nlohmann::json* value = Find(key, required);
    if (!value) return;
    if (!value->is_string()) return Fail(Path(key), "expected a string, got " + Describe(*value));
    *out = value->get<std::string>();
  }

  void Bool(const char* key, bool* out, bool required = true) {
    const nlohmann::json* value = Find(key, required);
    if (!value) return;
    if (!value->is_boolean()) return Fail(Path(key), "expected true or false, got " + Describe(*value));
    *out = value->get<bool>();
  }

  template <typename T>
  void Integer(const char* key, T* out, std::int64_t min, std::uint64_t max, bool required = true) {
    const nlohmann::json* value = Find(key, required);
    if (!value) return;
    std::string range = "expected an integer " + std::to_string(min) + ".." + std::to_string(max);
    if (value->is_number_unsigned()) {
      auto number = value->get<std::uint64_t>();
      if (number > max || (min > 0 && number < static_cast<std::uint64_t>(min)))
        return Fail(Path(key), range + ", got " + Describe(*value));
      *out = static_cast<T>(number);
    } else if (value->is_number_integer()) {
      auto number = value->get<std::int64_t>();
      if (number < min || (number >= 0 && static_cast<std::uint64_t>(number) > max))
        return Fail(Path(key), range + ", got " + Describe(*value));
      *out = static_cast<T>(number);
    } else {
      Fail(Path(key), range + ", got " + Describe(*value));
    }
  }

  void GuidField(const char* key, Guid* out) {
    std::string text;
    String(key, &text);
    if (error_) return;
    auto guid = ParseGuid(text);
    if (!guid) return Fail(Path(key), "expected \"0x\" and 16 hex digits, got \"" + text + "\"");
    *out = *guid;
  }

  void State(const char* key, std::string* out) {
    String(key, out);
    if (!error_ && !IsSmStateName(*out))
      Fail(Path(key), "expected MASTER, STANDBY, DISCOVERING or NOTACTIVE, got \"" + *out + "\"");
  }

  // Refuses keys outside `known`, so a misspelt argument is reported.
  void OnlyKeys(std::initializer_list<std::string_view> known) {
    if (error_) return;
    for (const auto& [key, value] : object_.items()) {
      bool found = false;
      for (auto name : known) found = found || key == name;
      if (!found) return Fail(Path(key.c_str()), "unknown argument");
    }
  }

  std::string Path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

  void Fail(const std::string& where, const std::string& what) {
    if (!error_) error_ = Error{where.empty() ? what : where + ": " + what};
  }

 private:
  const nlohmann::json& object_;
  std::string path_;
  std::optional<Error> error_;
};

}  // namespace smsupd::control
