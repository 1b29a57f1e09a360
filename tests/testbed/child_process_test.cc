#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <iterator>

#include "tests/testbed/child_process.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;

TEST(WaitForTest, SucceedsOnceTheConditionHolds) {
  int calls = 0;
  EXPECT_TRUE(WaitFor("three calls", [&] { return ++calls == 3; }, milliseconds(5000), milliseconds(1)).ok());
  EXPECT_EQ(calls, 3);
}

TEST(WaitForTest, FailureSaysWhatWasAwaitedAndWhy) {
  Status s = WaitFor(
      "the impossible",
      [](std::string& why) {
        why = "still impossible";
        return false;
      },
      milliseconds(30), milliseconds(5));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the impossible"), std::string::npos);
  EXPECT_NE(s.message().find("still impossible"), std::string::npos);
}

TEST(ChildProcessTest, ReportsExitCodeAndCapturesOutput) {
  const std::string out = ::testing::TempDir() + "/child_output.txt";
  std::remove(out.c_str());
  ChildSpec spec;
  spec.argv = {"sh", "-c", "echo hello $GREETING; exit 3"};
  spec.env = {{"GREETING", "world"}};
  spec.output_path = out;
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok()) << child.error().message;
  Result<ExitStatus> status = (*child)->Wait(milliseconds(5000));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 3);
  std::ifstream in(out);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "hello world\n");
}

TEST(ChildProcessTest, KillTakesTheWholeProcessGroup) {
  ChildSpec spec;
  const std::string marker = "smsupd-tb-group-marker-" + std::to_string(getpid());
  // A grandchild that would outlive a plain kill of its parent.
  spec.argv = {"sh", "-c", "sleep 300 & sleep 300; : " + marker};
  spec.env = {{"SMSUPD_TB_MARKER", marker}};
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE(WaitFor("the grandchild", [&] { return FindProcessesMentioning(marker).size() >= 2; },
                      milliseconds(5000)).ok());
  (*child)->Kill();
  EXPECT_TRUE((*child)->exit_status()->signaled);
  EXPECT_TRUE(WaitFor("no process of the group", [&] { return FindProcessesMentioning(marker).empty(); },
                      milliseconds(5000)).ok());
}

TEST(ChildProcessTest, StdinPipeFeedsTheChild) {
  ChildSpec spec;
  spec.argv = {"sh", "-c", "read line; test \"$line\" = ping"};
  spec.pipe_stdin = true;
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok());
  ASSERT_TRUE((*child)->WriteStdin("ping\n").ok());
  Result<ExitStatus> status = (*child)->Wait(milliseconds(5000));
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->code, 0);
}

TEST(ChildProcessTest, StopEndsAProcessThatIgnoresNothing) {
  ChildSpec spec;
  spec.argv = {"sleep", "300"};
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  ASSERT_TRUE(child.ok());
  EXPECT_TRUE((*child)->Running());
  ExitStatus status = (*child)->Stop(milliseconds(2000));
  EXPECT_TRUE(status.signaled);
  EXPECT_EQ(status.signal, SIGTERM);
}

}  // namespace
}  // namespace smsupd::testbed
