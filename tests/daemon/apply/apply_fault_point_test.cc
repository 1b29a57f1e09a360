// The crash-test hook stops the process at the step SMSUPD_FAULT_STOP_AT
// names, in a build with SMSUPD_TEST_FAULTS; without it the variable is
// ignored. Built twice, with SMSUPD_TEST_FAULTS 1 and 0.
#include "daemon/apply/apply_fault_point.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

namespace smsupd {
namespace {

// Runs ReachedApplyStep(`step`) in a child with SMSUPD_FAULT_STOP_AT=`stop_at`:
// true when the child stopped there, false when it went on and exited.
bool StopsAt(const char* stop_at, const char* step) {
  const pid_t child = ::fork();
  if (child == 0) {
    ::setenv(kFaultStopAtVariable, stop_at, 1);
    ReachedApplyStep(step);
    ::_exit(0);
  }
  int status = 0;
  EXPECT_EQ(::waitpid(child, &status, WUNTRACED), child);
  const bool stopped = WIFSTOPPED(status);
  if (stopped) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
  }
  return stopped;
}

TEST(ApplyFaultPoint, TheVariableStopsTheProcessOnlyInBuildsWithTheHook) {
  EXPECT_EQ(StopsAt("files-installed", "files-installed"), SMSUPD_TEST_FAULTS == 1);
  EXPECT_FALSE(StopsAt("files-installed", "generation-saved"));
}

}  // namespace
}  // namespace smsupd
