// FOREIGN_OPENSM: which OpenSM command lines bind this node's port, the
// watch raising and clearing the problem over a fake process table, and the
// /proc scan finding a process named opensm.
#include "daemon/opensm/foreign_opensm.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "common/problems.h"

namespace smsupd {
namespace {

constexpr Guid kOwnPort = 0x0002c903000000a1;

TEST(OpenSmBindsPort, NamesThePortOrNoPortAtAll) {
  // Debian's opensm@GUID.service.
  EXPECT_TRUE(OpenSmBindsPort({"/usr/sbin/opensm", "--guid", "0x0002c903000000a1", "--log_file",
                               "/var/log/opensm.0x0002c903000000a1.log"}, kOwnPort));
  EXPECT_TRUE(OpenSmBindsPort({"opensm", "-g", "0002C903000000A1"}, kOwnPort));  // strtoull base 16
  EXPECT_TRUE(OpenSmBindsPort({"opensm", "--guid=0x2c903000000a1"}, kOwnPort));
  EXPECT_TRUE(OpenSmBindsPort({"opensm", "-g0x0002c903000000a1"}, kOwnPort));
  EXPECT_TRUE(OpenSmBindsPort({"opensm"}, kOwnPort)) << "no port named: the first active one";
  EXPECT_TRUE(OpenSmBindsPort({"opensm", "-B", "-f", "/tmp/sm.log"}, kOwnPort));

  EXPECT_FALSE(OpenSmBindsPort({"opensm", "--guid", "0x0002c903000000a2"}, kOwnPort)) << "another port";
  EXPECT_FALSE(OpenSmBindsPort({"opensm", "--guid", "not-a-guid"}, kOwnPort));
  EXPECT_FALSE(OpenSmBindsPort({"/usr/sbin/opensm", "-F", "/var/lib/smsupd-b/opensm.conf"}, kOwnPort))
      << "another smsupd's OpenSM: its port is in its file";
  EXPECT_FALSE(OpenSmBindsPort({"opensm", "--config=/etc/x.conf"}, kOwnPort));
  EXPECT_TRUE(OpenSmBindsPort({"opensm", "-F", "/etc/x.conf", "--guid", "0x0002c903000000a1"}, kOwnPort))
      << "--guid wins over the file's guid";
}

class FakeProcessTable : public ProcessTable {
 public:
  Result<ProcessFacts> Inspect(pid_t) const override { return Error{"not used"}; }
  std::vector<NamedProcess> FindByName(const std::string& name) const override {
    return name == "opensm" ? processes : std::vector<NamedProcess>{};
  }
  std::vector<NamedProcess> processes;
};

class ProblemRecorder : public Reporter {
 public:
  void AddEvent(std::string_view, nlohmann::json) override {}
  void Announce(const std::string&, const std::string&) override {}
  void RaiseProblem(const std::string& id, const std::string& text) override { problems[id] = text; }
  void ClearProblem(const std::string& id) override { problems.erase(id); }
  bool HasProblem(const std::string& id) const override { return problems.count(id) != 0; }
  std::map<std::string, std::string> problems;
};

class ForeignOpenSmWatchTest : public ::testing::Test {
 protected:
  boost::asio::io_context io_;
  FakeProcessTable table_;
  ProblemRecorder reporter_;
  pid_t own_pid_ = 100;
  ForeignOpenSmWatch watch_{io_, table_, reporter_, [this] {
                              return ForeignOpenSmWatch::Target{kOwnPort, own_pid_};
                            }};
};

TEST_F(ForeignOpenSmWatchTest, DebiansOpenSmOnThePortIsACriticalProblemUntilItStops) {
  table_.processes = {{100, {"/usr/sbin/opensm", "-F", "/var/lib/smsupd/opensm.conf"}},
                      {200, {"/usr/sbin/opensm", "--guid", "0x0002c903000000a1"}}};
  watch_.ScanNow();
  ASSERT_TRUE(reporter_.HasProblem(kProblemForeignOpenSm));
  const std::string& text = reporter_.problems[kProblemForeignOpenSm];
  EXPECT_NE(text.find("pid 200"), std::string::npos) << text;
  EXPECT_EQ(text.find("pid 100"), std::string::npos) << text;
  EXPECT_EQ(FindProblem(kProblemForeignOpenSm)->severity, Severity::kCritical);

  table_.processes.pop_back();
  watch_.ScanNow();
  EXPECT_FALSE(reporter_.HasProblem(kProblemForeignOpenSm));
}

TEST_F(ForeignOpenSmWatchTest, OurOwnOpenSmAndOtherPortsAreNoProblem) {
  table_.processes = {{100, {"opensm"}},  // ours, however started
                      {300, {"opensm", "--guid", "0x0002c903000000a2"}},
                      {400, {"opensm", "-F", "/var/lib/smsupd-b/opensm.conf"}}};
  watch_.ScanNow();
  EXPECT_FALSE(reporter_.HasProblem(kProblemForeignOpenSm));
}

TEST_F(ForeignOpenSmWatchTest, TheProblemNamesABoundedNumberOfOpenSms) {
  for (pid_t pid = 1000; pid < 1020; ++pid) table_.processes.push_back({pid, {"opensm"}});
  watch_.ScanNow();
  const std::string& text = reporter_.problems[kProblemForeignOpenSm];
  EXPECT_NE(text.find("and 16 more"), std::string::npos) << text;
  EXPECT_EQ(text.find("pid 1019"), std::string::npos) << text;
}

// A script named opensm has the comm "opensm", as OpenSM itself does.
TEST(ProcFsProcessTable, FindsAProcessByItsName) {
  char pattern[] = "/tmp/foreign-opensm-test-XXXXXX";
  const std::string dir = ::mkdtemp(pattern);
  std::ofstream(dir + "/opensm") << "#!/bin/sh\nwhile :; do sleep 1; done\n";
  ::chmod((dir + "/opensm").c_str(), 0755);
  pid_t child = ::fork();
  if (child == 0) {
    const std::string script = dir + "/opensm";
    ::execl(script.c_str(), script.c_str(), "--guid", "0x1", nullptr);
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  std::vector<NamedProcess> found;
  for (int i = 0; i < 200; ++i) {  // the exec has happened once the name shows
    found = ProcFsProcessTable().FindByName("opensm");
    if (std::any_of(found.begin(), found.end(), [&](const NamedProcess& p) { return p.pid == child; })) break;
    ::usleep(10000);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  std::filesystem::remove_all(dir);
  auto ours = std::find_if(found.begin(), found.end(), [&](const NamedProcess& p) { return p.pid == child; });
  ASSERT_NE(ours, found.end());
  ASSERT_GE(ours->cmdline.size(), 3u);  // the interpreter, the script, its arguments
  EXPECT_EQ(ours->cmdline.back(), "0x1");
}

}  // namespace
}  // namespace smsupd
