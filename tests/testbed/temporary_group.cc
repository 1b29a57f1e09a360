#include "tests/testbed/temporary_group.h"

#include <grp.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

extern char** environ;

namespace smsupd::testbed {
namespace {

// Runs `program name` and waits; "" on exit 0, else what went wrong.
std::string Run(const char* program, const std::string& name) {
  std::vector<char*> argv = {const_cast<char*>(program), const_cast<char*>(name.c_str()), nullptr};
  pid_t pid = -1;
  if (int error = posix_spawnp(&pid, program, nullptr, nullptr, argv.data(), environ); error != 0)
    return std::string(program) + " could not run: " + std::strerror(error);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return std::string(program) + " " + name + " failed (" +
         (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status)) : std::string("killed")) + ")";
}

}  // namespace

Result<std::unique_ptr<TemporaryGroup>> TemporaryGroup::Create(const std::string& prefix) {
  if (geteuid() != 0) return Error{"creating a group needs root (CI runs the tests as root)"};
  const std::string name = prefix + "-" + std::to_string(getpid());
  if (std::string failed = Run("groupadd", name); !failed.empty()) return Error{failed};
  group entry{};
  group* found = nullptr;
  std::vector<char> buffer(16384);
  if (getgrnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
    (void)Run("groupdel", name);
    return Error{"groupadd " + name + " succeeded but the group cannot be looked up"};
  }
  return std::unique_ptr<TemporaryGroup>(new TemporaryGroup(name, found->gr_gid));
}

TemporaryGroup::~TemporaryGroup() { (void)Run("groupdel", name_); }

}  // namespace smsupd::testbed
