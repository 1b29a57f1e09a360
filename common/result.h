// Expected failures as values: a MAD timeout, a child exit, a
// bad request or a bad YAML file is returned, never thrown through the event loop.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace smsupd {

// A failure that a caller can report to a person as it is.
struct Error {
  std::string message;
};

// Either a value of T or an Error. Modelled on C++23 std::expected, which
// g++ 12 does not offer in C++20 mode.
template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { assert(ok()); return std::get<T>(state_); }
  T& value() & { assert(ok()); return std::get<T>(state_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Error& error() const { assert(!ok()); return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Success or an Error, for operations with no value.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error.message)), failed_(true) {}  // NOLINT

  static Status Ok() { return Status(); }
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return error_; }

 private:
  std::string error_;
  bool failed_ = false;
};

}  // namespace smsupd
