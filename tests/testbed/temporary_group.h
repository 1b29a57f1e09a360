// A Unix group that exists for one test: tests of the control socket's group
// access create their own instead of relying on one the machine happens to
// have. Needs root and groupadd/groupdel (shadow-utils), as CI has.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/result.h"

namespace smsupd::testbed {

class TemporaryGroup {
 public:
  // `groupadd <prefix>-<pid>`; the error says why it could not be made.
  static Result<std::unique_ptr<TemporaryGroup>> Create(const std::string& prefix);
  ~TemporaryGroup();  // groupdel
  TemporaryGroup(const TemporaryGroup&) = delete;
  TemporaryGroup& operator=(const TemporaryGroup&) = delete;

  const std::string& name() const { return name_; }
  gid_t gid() const { return gid_; }

 private:
  TemporaryGroup(std::string name, gid_t gid) : name_(std::move(name)), gid_(gid) {}

  std::string name_;
  gid_t gid_;
};

}  // namespace smsupd::testbed
