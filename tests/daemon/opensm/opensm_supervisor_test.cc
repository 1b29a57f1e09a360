// The supervisor against real child processes: a shell script stands in for
// OpenSM (it is started as `<script> -F <conf>` exactly like OpenSM).
#include "daemon/opensm/opensm_supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include "daemon/opensm/opensm_pid_file.h"
#include "daemon/process/pidfd_process_launcher.h"

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Exits 3 at once while <state_dir>/crash exists; otherwise runs until SIGTERM.
constexpr char kFakeOpenSm[] = R"(#!/bin/sh
echo "fake opensm $*"
echo "fake opensm on stderr" >&2
[ -e "$(dirname "$2")/crash" ] && exit 3
trap 'exit 0' TERM
while :; do sleep 1 & wait $!; done
)";

class OpenSmSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/supervisor-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    std::ofstream(dir_ + "/fake-opensm") << kFakeOpenSm;
    ::chmod((dir_ + "/fake-opensm").c_str(), 0755);
    spec_ = {dir_ + "/fake-opensm", dir_ + "/state/opensm.conf", dir_ + "/state", 0x0002c903000000a1};
    tuning_.backoff = {1ms, 8ms, 60s};
  }

  void TearDown() override {
    for (pid_t pid : pids_) ::kill(pid, SIGKILL);
    fs::remove_all(dir_);
  }

  std::unique_ptr<OpenSmSupervisor> MakeSupervisor() {
    return std::make_unique<OpenSmSupervisor>(io_, launcher_, processes_, clock_, spec_, tuning_,
                                              [this](const OpenSmEvent& event) {
                                                events_.push_back(event);
                                                if (event.pid) pids_.push_back(event.pid);
                                              });
  }

  // Runs the loop until `done` holds; false after a generous deadline.
  template <typename Predicate>
  bool RunUntil(Predicate done) {
    auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.restart();
      io_.run_one_for(50ms);
    }
    return true;
  }

  int Count(const std::string& kind) const {
    return static_cast<int>(std::count_if(events_.begin(), events_.end(),
                                          [&](const OpenSmEvent& e) { return e.kind == kind; }));
  }

  bool Alive(pid_t pid) const { return ::kill(pid, 0) == 0; }
  // True while `pid` is stopped by a signal (state T in /proc/<pid>/stat).
  static bool Stopped(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'T';
  }

  boost::asio::io_context io_;
  PidfdProcessLauncher launcher_{io_};
  ProcFsProcessTable processes_;
  SteadyClock clock_;
  std::string dir_;
  OpenSmLaunchSpec spec_;
  SupervisorTuning tuning_;
  std::vector<OpenSmEvent> events_;
  std::vector<pid_t> pids_;
};

// OpenSM prints every option it loads on stdout, keys included, and smsupd
// logged each line as OPENSM_OUTPUT.
TEST_F(OpenSmSupervisorTest, OpenSmsOutputReachesTheLogWithoutKeys) {
  std::ofstream(dir_ + "/fake-opensm")
      << "#!/bin/sh\necho ' Loading Cached Option:sm_key = 0x00000000deadbeef'\n"
      << "echo ' Loading Cached Option:m_key = 0x1122334455667788'\n"
      << "echo ' Loading Cached Option:sweep_interval = 10'\n"
      << "trap 'exit 0' TERM\nwhile :; do sleep 1 & wait $!; done\n";
  auto captured = std::make_shared<std::ostringstream>();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*captured);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  bool seen = RunUntil([&] {
    sink->flush();
    return captured->str().find("sweep_interval") != std::string::npos;
  });
  spdlog::set_default_logger(previous);
  ASSERT_TRUE(seen) << "OpenSM's output never reached the log:\n" << captured->str();
  const std::string log = captured->str();
  EXPECT_EQ(log.find("deadbeef"), std::string::npos) << log;
  EXPECT_EQ(log.find("1122334455667788"), std::string::npos) << log;
  EXPECT_NE(log.find("sm_key = <redacted>"), std::string::npos) << log;
}

TEST_F(OpenSmSupervisorTest, StartsOpenSmAndRecordsItsPid) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_EQ(Count("OPENSM_STARTED"), 1);
  OpenSmSnapshot snapshot = supervisor->Snapshot();
  EXPECT_EQ(snapshot.state, OpenSmSnapshot::State::kRunning);
  EXPECT_TRUE(Alive(snapshot.pid));
  auto record = ReadPidFile(spec_.PidFilePath());
  ASSERT_TRUE(record.ok()) << record.error().message;
  EXPECT_EQ(record->pid, snapshot.pid);
  EXPECT_EQ(record->port_guid, spec_.port_guid);
  EXPECT_TRUE(fs::is_directory(spec_.CacheDir()));
  EXPECT_TRUE(fs::is_directory(spec_.TmpDir()));
}

// Its own process group (a Ctrl-C meant for smsupd in a terminal does not
// reach it), in smsupd's session: a session of its own is a scheduler
// autogroup of its own, which Linux weighs as one process against all of
// smsupd's session (on the simulated fabric, OpenSM against the simulator).
TEST_F(OpenSmSupervisorTest, OpenSmHasAProcessGroupOfItsOwnInSmsupdsSession) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  const pid_t pid = supervisor->Snapshot().pid;
  ASSERT_GT(pid, 0);
  EXPECT_EQ(::getpgid(pid), pid);
  EXPECT_NE(::getpgid(pid), ::getpgid(0));
  EXPECT_EQ(::getsid(pid), ::getsid(0));
}

TEST_F(OpenSmSupervisorTest, KilledOpenSmIsRestartedAndTheExitDescribed) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  pid_t first = supervisor->Snapshot().pid;
  ::kill(first, SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; }));
  EXPECT_EQ(Count("OPENSM_EXITED"), 1);
  auto exited = std::find_if(events_.begin(), events_.end(),
                             [](auto& e) { return e.kind == "OPENSM_EXITED"; });
  EXPECT_NE(exited->details.find("signal 9"), std::string::npos) << exited->details;
  OpenSmSnapshot snapshot = supervisor->Snapshot();
  EXPECT_NE(snapshot.pid, first);
  EXPECT_EQ(snapshot.restarts, 1);
  EXPECT_FALSE(snapshot.crash_loop);
}

// A dead MASTER's OpenSM restarts only when the failover policy releases
// it (the new master has swept this node), or at the hold's limit.
TEST_F(OpenSmSupervisorTest, AHeldRestartWaitsForItsRelease) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  supervisor->HoldRestart(60s);
  ::kill(supervisor->Snapshot().pid, SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return supervisor->Snapshot().restart_held; }))
      << "the back-off (1 ms) ran out and the restart is held";
  EXPECT_EQ(Count("OPENSM_STARTED"), 1);
  EXPECT_EQ(supervisor->Snapshot().state, OpenSmSnapshot::State::kWaitingToRestart);
  supervisor->ReleaseRestart();
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; }));
  EXPECT_FALSE(supervisor->Snapshot().restart_held);
}

TEST_F(OpenSmSupervisorTest, AHeldRestartGoesOnAtTheHoldsLimit) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  supervisor->HoldRestart(100ms);
  ::kill(supervisor->Snapshot().pid, SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; })) << "never released";
}

// smctl failover kills the MASTER's OpenSM the moment it has handed over:
// at once (SIGKILL, no SIGTERM grace), reported as what it is and not as a
// crash, and started again only when released.
TEST_F(OpenSmSupervisorTest, AKillAfterAHandoverIsNoCrashAndWaitsForItsRelease) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_TRUE(supervisor->KillAfterHandover(60s).ok());
  ASSERT_TRUE(RunUntil([&] { return supervisor->Snapshot().restart_held; }));
  EXPECT_EQ(Count("OPENSM_KILLED_AFTER_HANDOVER"), 1);
  EXPECT_EQ(Count("OPENSM_EXITED"), 0) << "a kill smsupd asked for is no crash";
  EXPECT_EQ(Count("OPENSM_RESTART_BACKOFF"), 0);
  EXPECT_NE(supervisor->Snapshot().last_exit.find("signal 9"), std::string::npos)
      << supervisor->Snapshot().last_exit;
  EXPECT_EQ(Count("OPENSM_STARTED"), 1);
  supervisor->ReleaseRestart();
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; }));
}

// smctl failover pauses the MASTER's OpenSM for its HANDOVER: frozen, it
// answers nothing; not answered, the HANDOVER resumes it, and it runs on.
TEST_F(OpenSmSupervisorTest, APauseForAHandoverFreezesOpenSmUntilItIsResumed) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  const pid_t pid = supervisor->Snapshot().pid;
  ASSERT_TRUE(supervisor->PauseForHandover(60s).ok());
  ASSERT_TRUE(RunUntil([&] { return Stopped(pid); })) << "OpenSM not stopped";
  supervisor->Resume();
  ASSERT_TRUE(RunUntil([&] { return !Stopped(pid); })) << "OpenSM not resumed";
  EXPECT_EQ(supervisor->Snapshot().pid, pid);
  EXPECT_EQ(Count("OPENSM_EXITED"), 0);
}

TEST_F(OpenSmSupervisorTest, APauseForAHandoverEndsByItselfAtItsLimit) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  const pid_t pid = supervisor->Snapshot().pid;
  ASSERT_TRUE(supervisor->PauseForHandover(200ms).ok());
  ASSERT_TRUE(RunUntil([&] { return Stopped(pid); }));
  ASSERT_TRUE(RunUntil([&] { return !Stopped(pid); })) << "a pause nobody ended left OpenSM frozen";
}

// The kill that follows an answered HANDOVER ends the pause; a Stop during
// one still ends OpenSM by SIGTERM (a stopped process acts on it only
// once continued).
TEST_F(OpenSmSupervisorTest, APausedOpenSmIsKilledOrStoppedAsUsual) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_TRUE(supervisor->PauseForHandover(60s).ok());
  ASSERT_TRUE(supervisor->KillAfterHandover(60s).ok());
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_KILLED_AFTER_HANDOVER") == 1; }));
  supervisor->ReleaseRestart();
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; }));

  const pid_t pid = supervisor->Snapshot().pid;
  ASSERT_TRUE(supervisor->PauseForHandover(60s).ok());
  ASSERT_TRUE(RunUntil([&] { return Stopped(pid); }));
  bool stopped = false;
  supervisor->Stop([&] { stopped = true; });
  ASSERT_TRUE(RunUntil([&] { return stopped; }));
  EXPECT_EQ(Count("OPENSM_STOPPED"), 1);
  EXPECT_EQ(supervisor->Snapshot().last_exit.find("signal 9"), std::string::npos)
      << "a paused OpenSM ignored SIGTERM until the stop deadline: " << supervisor->Snapshot().last_exit;
}

TEST_F(OpenSmSupervisorTest, AKillAfterAHandoverNeedsARunningOpenSm) {
  auto supervisor = MakeSupervisor();
  EXPECT_FALSE(supervisor->KillAfterHandover(60s).ok());
  EXPECT_EQ(Count("OPENSM_KILLED_AFTER_HANDOVER"), 0);
}

TEST_F(OpenSmSupervisorTest, RepeatedCrashesAreACrashLoop) {
  fs::create_directories(spec_.state_dir);
  std::ofstream(spec_.state_dir + "/crash").close();
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_CRASH_LOOP") == 1; }));
  EXPECT_GE(Count("OPENSM_EXITED"), 5);
  EXPECT_GE(Count("OPENSM_RESTART_BACKOFF"), 4);
  EXPECT_TRUE(supervisor->Snapshot().crash_loop);
  fs::remove(spec_.state_dir + "/crash");
  bool stopped = false;
  supervisor->Stop([&] { stopped = true; });
  ASSERT_TRUE(RunUntil([&] { return stopped; }));
}

// OpenSM may quote what the fabric says; its last line reaches the crash
// loop's message (a problem, an event, a hook) as printable text.
TEST_F(OpenSmSupervisorTest, TheLastOutputInACrashLoopIsPrintable) {
  std::ofstream(dir_ + "/fake-opensm", std::ios::trunc)
      << "#!/bin/sh\nprintf 'node \\377 \\033]0;owned\\007 \\033[2J%s\\n' "
      << "\"$(head -c 5000 /dev/zero | tr '\\0' x)\"\nexit 3\n";
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_CRASH_LOOP") == 1; }));
  auto loop = std::find_if(events_.begin(), events_.end(),
                           [](const OpenSmEvent& e) { return e.kind == "OPENSM_CRASH_LOOP"; });
  EXPECT_NE(loop->details.find(R"(node \xff \x1b]0;owned\x07 \x1b[2Jxxx)"), std::string::npos)
      << loop->details;
  for (unsigned char c : loop->details) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << loop->details;
  EXPECT_LT(loop->details.size(), 600u) << "the 5,000-byte line is quoted whole";
  bool stopped = false;
  supervisor->Stop([&] { stopped = true; });
  ASSERT_TRUE(RunUntil([&] { return stopped; }));
}

TEST_F(OpenSmSupervisorTest, StopEndsOpenSmWithSigtermAndForgetsThePidFile) {
  auto supervisor = MakeSupervisor();
  ASSERT_TRUE(supervisor->Start().ok());
  pid_t pid = supervisor->Snapshot().pid;
  bool stopped = false;
  supervisor->Stop([&] { stopped = true; });
  ASSERT_TRUE(RunUntil([&] { return stopped; }));
  EXPECT_FALSE(Alive(pid));
  EXPECT_EQ(Count("OPENSM_STOPPED"), 1);
  EXPECT_EQ(Count("OPENSM_EXITED"), 0);  // a requested stop is no crash
  EXPECT_FALSE(fs::exists(spec_.PidFilePath()));
  EXPECT_EQ(supervisor->Snapshot().state, OpenSmSnapshot::State::kStopped);
}

TEST_F(OpenSmSupervisorTest, NextSupervisorAdoptsTheRunningOpenSm) {
  pid_t pid;
  {
    auto first = MakeSupervisor();
    ASSERT_TRUE(first->Start().ok());
    pid = first->Snapshot().pid;
  }  // destroyed without Stop(), as when smsupd is killed
  ASSERT_TRUE(Alive(pid));
  auto second = MakeSupervisor();
  ASSERT_TRUE(second->Start().ok());
  EXPECT_EQ(Count("OPENSM_ADOPTED"), 1);
  EXPECT_EQ(Count("OPENSM_STARTED"), 1);
  OpenSmSnapshot snapshot = second->Snapshot();
  EXPECT_EQ(snapshot.pid, pid);
  EXPECT_TRUE(snapshot.adopted);
  // An adopted OpenSM's exit is still seen at once, and it is replaced.
  ::kill(pid, SIGKILL);
  ASSERT_TRUE(RunUntil([&] { return Count("OPENSM_STARTED") == 2; }));
  EXPECT_NE(second->Snapshot().pid, pid);
}

// smsupd killed (SIGKILL: no destructor) while its OpenSM was paused for a
// handover: the next smsupd adopts that OpenSM and lets it run again.
TEST_F(OpenSmSupervisorTest, AnOpenSmLeftPausedRunsAgainOnceAdopted) {
  pid_t pid;
  {
    auto first = MakeSupervisor();
    ASSERT_TRUE(first->Start().ok());
    pid = first->Snapshot().pid;
  }
  ::kill(pid, SIGSTOP);  // the pause nobody ended
  ASSERT_TRUE(RunUntil([&] { return Stopped(pid); }));
  auto second = MakeSupervisor();
  ASSERT_TRUE(second->Start().ok());
  EXPECT_EQ(Count("OPENSM_ADOPTED"), 1);
  EXPECT_EQ(second->Snapshot().pid, pid);
  EXPECT_TRUE(RunUntil([&] { return !Stopped(pid); })) << "the adopted OpenSM stays stopped";
}

TEST_F(OpenSmSupervisorTest, PidFileOfAnotherPortIsNotAdopted) {
  pid_t pid;
  {
    auto first = MakeSupervisor();
    ASSERT_TRUE(first->Start().ok());
    pid = first->Snapshot().pid;
  }
  spec_.port_guid = 0x0002c903000000b2;
  auto second = MakeSupervisor();
  ASSERT_TRUE(second->Start().ok());
  EXPECT_EQ(Count("OPENSM_ADOPTED"), 0);
  EXPECT_NE(second->Snapshot().pid, pid);
}

// logrotate's SIGUSR1 reaches an OpenSM that handles it, and never one
// that would die of it (SIGUSR1's default action ends a process).
TEST_F(OpenSmSupervisorTest, ReopenLogSignalsOnlyAnOpenSmThatHandlesSigusr1) {
  std::ofstream(dir_ + "/fake-opensm")
      << "#!/bin/sh\ntrap 'echo reopened >> \"$(dirname \"$2\")/reopened\"' USR1\n"
      << "trap 'exit 0' TERM\nwhile :; do sleep 1 & wait $!; done\n";
  auto supervisor = MakeSupervisor();
  EXPECT_FALSE(supervisor->ReopenLog().ok()) << "nothing runs yet";
  ASSERT_TRUE(supervisor->Start().ok());
  ASSERT_TRUE(RunUntil([&] {
    Result<bool> sent = supervisor->ReopenLog();
    return sent.ok() && *sent;
  })) << "the handler was never seen in /proc";
  EXPECT_TRUE(RunUntil([&] { return fs::exists(spec_.state_dir + "/reopened"); }));
  EXPECT_TRUE(Alive(supervisor->Snapshot().pid));
}

TEST_F(OpenSmSupervisorTest, ReopenLogSparesAnOpenSmWithoutAHandler) {
  auto supervisor = MakeSupervisor();  // kFakeOpenSm traps TERM only
  ASSERT_TRUE(supervisor->Start().ok());
  Result<bool> sent = supervisor->ReopenLog();
  ASSERT_TRUE(sent.ok()) << sent.error().message;
  EXPECT_FALSE(*sent);
  EXPECT_EQ(Count("OPENSM_EXITED"), 0);
  EXPECT_TRUE(Alive(supervisor->Snapshot().pid));
}

TEST_F(OpenSmSupervisorTest, MissingBinaryIsAnError) {
  spec_.binary = dir_ + "/no-such-opensm";
  auto supervisor = MakeSupervisor();
  Status started = supervisor->Start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.message().find("cannot execute"), std::string::npos) << started.message();
}

}  // namespace
}  // namespace smsupd
