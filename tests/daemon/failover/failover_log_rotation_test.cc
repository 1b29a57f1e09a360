// OpenSM's log rotated while the standby takes over from a killed master:
// the new master's smsupd still sees every line it acts on (one
// opensm-state-logged event per state line, its failover timeline has
// OpenSM's SUBNET UP), whichever file OpenSM wrote them to,
// and OpenSM writes the new file once smsupd has passed SIGUSR1 on. Once
// by hand (rename, create, and the signal only after the takeover reached
// the renamed file: the lines the watcher must not leave behind), once with
// logrotate itself and the shipped /etc/logrotate.d/smsupd, its paths
// pointed at the test node and `systemctl` standing in for systemd.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/daemon/failover/failover_test_base.h"
#include "tests/testbed/child_process.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// "Entering MASTER state" / "Entering STANDBY state" lines of an OpenSM log.
std::size_t StateLines(const std::string& path) {
  std::ifstream in(path);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);)
    count += line.ends_with("-> Entering MASTER state") || line.ends_with("-> Entering STANDBY state");
  return count;
}

class FailoverLogRotationTest : public FailoverTest {
 protected:
  void StartPairAndStandby() {
    FailoverBedOptions options;
    options.preempt = false;
    ASSERT_NO_FATAL_FAILURE(StartPair(options));
    ASSERT_OK(bed().WaitForListedSm(master_name(), standby_name(), "STANDBY", kFailoverDeadline));
  }

  // The standby took over, its timeline holds OpenSM's SUBNET UP, and
  // OpenSM writes the new file.
  void ExpectTakeoverSeenThroughTheRotation() {
    ExpectSoleMaster(standby_name());
    nlohmann::json timeline;
    Status s = WaitFor(
        "a failover-timeline event on the new master",
        [&] {
          auto events = bed().EventsOfKind(standby_name(), "failover-timeline");
          if (events.empty()) return false;
          timeline = events.front().value("details", nlohmann::json::object());
          return true;
        },
        kFailoverDeadline, milliseconds(200));
    ASSERT_TRUE(s.ok()) << s.message() << "\n" << bed().Diagnostics();
    EXPECT_TRUE(timeline.value("subnet_up_ms", nlohmann::json()).is_number())
        << "OpenSM's SUBNET UP line was lost in the rotation: " << timeline.dump();
    const std::string log = standby().opensm_log();
    EXPECT_OK(WaitFor("OpenSM to write its new log file", [&] { return fs::file_size(log) > 0; },
                      kFailoverDeadline));
    EXPECT_EQ(fs::status(log).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none)
        << "the new log is not root's alone (other SMs' SM_Keys go into it)";
    // Every state line OpenSM wrote, in either file, is an event.
    EXPECT_OK(WaitFor(
        "one opensm-state-logged event per state line of both files",
        [&](std::string& why) {
          const std::size_t lines = StateLines(log + ".1") + StateLines(log);
          const std::size_t events = bed().EventsOfKind(standby_name(), "opensm-state-logged").size();
          why = std::to_string(lines) + " lines, " + std::to_string(events) + " events";
          return lines >= 2 && events == lines;
        },
        kFailoverDeadline, milliseconds(200)));
    EXPECT_NE(ReadFile(standby().smsupd_log()).find("OPENSM_LOG_REOPEN OpenSM (pid"), std::string::npos)
        << standby().LogTail();
  }
};

TEST_F(FailoverLogRotationTest, ARotationDuringATakeoverLosesNoLine) {
  ASSERT_NO_FATAL_FAILURE(StartPairAndStandby());
  const std::string log = standby().opensm_log();
  fs::rename(log, log + ".1");
  std::ofstream(log).flush();  // logrotate's `create`
  // smsupd has seen the new file: what OpenSM writes from now on until it
  // is told goes to a file a naive watcher would have left.
  ASSERT_OK(WaitFor("smsupd to see the rotation", [&] {
    return ReadFile(standby().smsupd_log()).find("OPENSM_LOG_ROTATED") != std::string::npos;
  }, kFailoverDeadline));
  Result<pid_t> killed = master().KillOpenSm();
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  // The takeover goes to the renamed file: OpenSM has not been told yet.
  ASSERT_OK(WaitFor("the takeover in the renamed log", [&] {
    return ReadFile(log + ".1").find("Entering MASTER state") != std::string::npos;
  }, kFailoverDeadline));
  EXPECT_EQ(fs::file_size(log), 0u) << "OpenSM wrote the new file before it was told";
  ASSERT_OK(standby().Signal(SIGUSR1));  // logrotate's postrotate, late
  ASSERT_NO_FATAL_FAILURE(ExpectTakeoverSeenThroughTheRotation());
  EXPECT_TRUE(standby().Running()) << "SIGUSR1 ended smsupd";
}

TEST_F(FailoverLogRotationTest, TheShippedLogrotateFileRotatesDuringATakeover) {
  ASSERT_TRUE(fs::exists(LOGROTATE_PATH)) << "logrotate is not installed (scripts/install-deps.sh)";
  ASSERT_NO_FATAL_FAILURE(StartPairAndStandby());
  const std::string dir = standby().dir() + "/logrotate";
  fs::create_directories(dir + "/bin");
  // The shipped file, for this node's log only.
  std::string conf = ReadFile(SHIPPED_LOGROTATE_FILE);
  const std::string paths = "/var/log/smsupd/*.log /var/log/smsupd-*/*.log";
  ASSERT_NE(conf.find(paths), std::string::npos) << conf;
  conf.replace(conf.find(paths), paths.size(), standby().opensm_log());
  std::ofstream(dir + "/smsupd") << conf;
  // systemd's part: smsupd.service is the standby's smsupd, no instances.
  std::ofstream(dir + "/bin/systemctl")
      << "#!/bin/sh\necho \"$*\" >>" << dir << "/systemctl.calls\n"
      << "case \"$1\" in\n"
      << "show) [ \"$4\" = smsupd.service ] && echo " << standby().pid() << " || echo 0 ;;\n"
      << "kill) [ \"$*\" = 'kill --kill-whom=main --signal=SIGUSR1 smsupd.service' ] && kill -USR1 "
      << standby().pid() << " ;;\nesac\n";
  ::chmod((dir + "/bin/systemctl").c_str(), 0755);

  Result<pid_t> killed = master().KillOpenSm();
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  ChildSpec logrotate;
  logrotate.argv = {LOGROTATE_PATH, "-f", "-s", dir + "/state", dir + "/smsupd"};
  logrotate.env = {{"PATH", dir + "/bin:/usr/sbin:/usr/bin:/sbin:/bin"}};
  logrotate.output_path = dir + "/logrotate.out";
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(logrotate);
  ASSERT_TRUE(child.ok()) << child.error().message;
  Result<ExitStatus> rotated = (*child)->Wait(milliseconds(30000));
  ASSERT_TRUE(rotated.ok()) << rotated.error().message;
  ASSERT_EQ(rotated->code, 0) << rotated->Describe() << ": " << ReadFile(dir + "/logrotate.out");
  EXPECT_FALSE(rotated->signaled) << rotated->Describe();
  EXPECT_TRUE(fs::exists(standby().opensm_log() + ".1")) << "delaycompress: the newest rotation stays plain";
  EXPECT_NE(ReadFile(dir + "/systemctl.calls").find("kill --kill-whom=main --signal=SIGUSR1 smsupd.service"),
            std::string::npos)
      << ReadFile(dir + "/systemctl.calls");
  ASSERT_NO_FATAL_FAILURE(ExpectTakeoverSeenThroughTheRotation());
  EXPECT_TRUE(standby().Running()) << "SIGUSR1 ended smsupd";
}

}  // namespace
}  // namespace smsupd::testbed
