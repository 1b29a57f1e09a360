// HookRunner with real hook processes: the fixed argv and environment, the
// ownership rule for the directory, every directory above it and each hook,
// with its log lines; the timeout kill of the whole process group, also of
// what a hook left running after it exited; the bounded queue and the
// bounded output. Runs as root (CI does): a hook must be root's.
#include "daemon/hooks/hook_runner.h"

#include "daemon/hooks/hook_directory.h"
#include "daemon/hooks/hook_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace smsupd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Polls `condition` until true or `deadline` (a condition, never a fixed sleep).
bool Eventually(const std::function<bool()>& condition, std::chrono::milliseconds deadline = 10s) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

// A process that still runs (a zombie has ended: only its parent has not
// collected it yet).
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  std::size_t end = line.rfind(')');
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] != 'Z';
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class HookRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0u) << "hooks must be root's: run the hook tests as root";
    char pattern[] = "/tmp/hook-test-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    hooks_ = dir_ + "/hooks.d";
    fs::create_directory(hooks_);
    ::chmod(hooks_.c_str(), 0755);
    log_sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(log_);
    previous_ = spdlog::default_logger();
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", log_sink_));
  }
  void TearDown() override {
    runner_.reset();
    spdlog::set_default_logger(previous_);
    fs::remove_all(dir_);
  }
  void WriteHook(const std::string& name, const std::string& body, mode_t mode = 0755) {
    std::string path = hooks_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), mode);
  }
  HookJob Job(const std::string& event, std::chrono::milliseconds timeout = 5s) {
    HookJob job;
    job.event = event;
    job.directory = hooks_;
    job.timeout = timeout;
    job.environment = {"PATH=/usr/bin:/bin", "SMSUPD_EVENT=" + event, "SMSUPD_GENERATION=7"};
    return job;
  }
  void StartRunner(std::size_t capacity = HookRunner::kDefaultCapacity) {
    runner_ = std::make_unique<HookRunner>(
        [this](std::string_view result) {
          std::lock_guard lock(mutex_);
          results_.emplace_back(result);
        },
        capacity);
  }
  std::vector<std::string> Results() {
    std::lock_guard lock(mutex_);
    return results_;
  }
  std::string Log() {
    log_sink_->flush();
    std::lock_guard lock(mutex_);
    return log_.str();
  }

  std::string dir_, hooks_;
  std::ostringstream log_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> log_sink_;
  std::shared_ptr<spdlog::logger> previous_;
  std::unique_ptr<HookRunner> runner_;
  std::mutex mutex_;
  std::vector<std::string> results_;
};

TEST_F(HookRunnerTest, AHookGetsTheEventAsItsOnlyArgumentAndOnlyTheJobsEnvironment) {
  const std::string out = dir_ + "/out";
  WriteHook("10-record", "echo \"$# $1\" >> " + out + "\nenv | sort >> " + out + "\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "ok");
  const std::string text = ReadFile(out);
  EXPECT_EQ(text.substr(0, text.find('\n')), "1 master-changed");
  EXPECT_NE(text.find("SMSUPD_EVENT=master-changed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("SMSUPD_GENERATION=7\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("HOME="), std::string::npos) << "the daemon's environment leaked: " << text;
  EXPECT_NE(Log().find("HOOK_RAN " + hooks_ + "/10-record master-changed"), std::string::npos) << Log();
}

TEST_F(HookRunnerTest, HooksRunInNameOrderAndOddNamesNeverRun) {
  const std::string out = dir_ + "/out";
  WriteHook("20-second", "echo second >> " + out + "\n");
  WriteHook("10-first", "echo first >> " + out + "\n");
  WriteHook("30-backup~", "echo backup >> " + out + "\n");
  WriteHook("40.dpkg-old", "echo dpkg >> " + out + "\n");
  WriteHook("50-not-executable", "echo plain >> " + out + "\n", 0644);
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("config-applied")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 2; })) << Log();
  EXPECT_EQ(ReadFile(out), "first\nsecond\n");
}

TEST_F(HookRunnerTest, AHookWritableByOthersOrNotRootsIsRefusedWithAClearLogLine) {
  const std::string out = dir_ + "/out";
  WriteHook("10-group-writable", "echo ran >> " + out + "\n", 0775);
  WriteHook("20-not-roots", "echo ran >> " + out + "\n");
  ASSERT_EQ(::chown((hooks_ + "/20-not-roots").c_str(), 65534, 65534), 0);
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 2; })) << Log();
  EXPECT_EQ(Results(), (std::vector<std::string>{"refused", "refused"}));
  EXPECT_FALSE(fs::exists(out)) << "a refused hook ran";
  const std::string log = Log();
  EXPECT_NE(log.find("HOOK_REFUSED " + hooks_ + "/10-group-writable: writable by group or others (mode 0775)"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("HOOK_REFUSED " + hooks_ + "/20-not-roots: owned by uid 65534, not root"),
            std::string::npos)
      << log;
}

TEST_F(HookRunnerTest, ADirectoryWritableByOthersRunsNothing) {
  const std::string out = dir_ + "/out";
  WriteHook("10-record", "echo ran >> " + out + "\n");
  ::chmod(hooks_.c_str(), 0777);
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "refused");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_NE(Log().find("HOOK_DIRECTORY_REFUSED no hook runs: " + hooks_ +
                       " is writable by group or others (mode 0777)"),
            std::string::npos)
      << Log();
}

TEST_F(HookRunnerTest, AHookThatHangsIsKilledWithItsChildrenAtItsTimeout) {
  const std::string pid_file = dir_ + "/child.pid";
  // Ignores SIGTERM, so only the SIGKILL a second later ends it; its child
  // (the sleep) dies with the process group.
  WriteHook("10-hang", "trap '' TERM\nsleep 1000 &\necho $! > " + pid_file + "\nwait\nwhile :; do :; done\n");
  StartRunner();
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(runner_->Enqueue(Job("master-lost", 300ms)));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(Results()[0], "timeout");
  EXPECT_LT(took, 5s);
  EXPECT_GE(took, 300ms);
  pid_t child = std::stoi(ReadFile(pid_file));
  EXPECT_TRUE(Eventually([&] { return ::kill(child, 0) != 0; })) << "the hook's child outlived it";
  EXPECT_NE(Log().find("HOOK_TIMEOUT " + hooks_ + "/10-hang master-lost: killed after"), std::string::npos)
      << Log();
}

// Where a hook hung is in the log: its name, its state and the kernel
// function it waited in, read before the SIGTERM. The name is the hook's
// own choice (here a newline and a ')' written to /proc/self/comm): only
// plain characters reach the log.
TEST_F(HookRunnerTest, AHookKilledAtItsTimeoutIsLoggedWithWhereItWaited) {
  WriteHook("10-stuck", "printf 'bad\\nname)' > /proc/self/comm\nwhile :; do sleep 1; done\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-lost", 300ms)));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "timeout");
  const std::string log = Log();
  EXPECT_NE(log.find("HOOK_TIMEOUT " + hooks_ + "/10-stuck master-lost: killed after"), std::string::npos) << log;
  EXPECT_NE(log.find("killed by signal 15; at its timeout: bad?name?, state "), std::string::npos) << log;
  EXPECT_EQ(log.find("bad\nname"), std::string::npos) << log;
}

TEST_F(HookRunnerTest, EventsBeyondTheQueueAreDroppedNotWaitedFor) {
  WriteHook("10-slow", "sleep 1000\n");
  StartRunner(/*capacity=*/2);
  int accepted = 0;
  for (int i = 0; i < 6; ++i) accepted += runner_->Enqueue(Job("event-" + std::to_string(i), 2s));
  // One runs, two wait, the rest are dropped (the first may not have been
  // taken off the queue yet: then only two are accepted).
  EXPECT_GE(accepted, 2);
  EXPECT_LE(accepted, 3);
  runner_->Stop();  // kills the running hook at once
  EXPECT_FALSE(runner_->Enqueue(Job("after-stop")));
}

TEST_F(HookRunnerTest, OutputGoesToTheLogLineByLineAndBounded) {
  WriteHook("10-chatty",
            "echo to-stdout\necho to-stderr >&2\nhead -c 3000 /dev/zero | tr '\\0' x; echo\n"
            "i=0; while [ $i -lt 150 ]; do echo line$i; i=$((i+1)); done\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  const std::string log = Log();
  EXPECT_NE(log.find("[info] HOOK_OUTPUT " + hooks_ + "/10-chatty: to-stdout"), std::string::npos) << log;
  EXPECT_NE(log.find("[warning] HOOK_OUTPUT " + hooks_ + "/10-chatty: to-stderr"), std::string::npos) << log;
  EXPECT_NE(log.find(": " + std::string(kMaxHookLineBytes, 'x') + "\n"), std::string::npos);
  EXPECT_EQ(log.find(std::string(kMaxHookLineBytes + 1, 'x')), std::string::npos);
  EXPECT_NE(log.find("line96\n"), std::string::npos);
  EXPECT_EQ(log.find("line97\n"), std::string::npos);
  EXPECT_NE(log.find("(53 more lines not logged)"), std::string::npos) << log;
}


// What a hook leaves running when it exits belongs to its run: it may
// finish within the timeout, and is killed with the group at the timeout.
TEST_F(HookRunnerTest, WhatAHookLeftRunningIsKilledAtTheTimeout) {
  const std::string pid_file = dir_ + "/child.pid";
  WriteHook("10-detach", "sleep 1000 >/dev/null 2>&1 &\necho $! > " + pid_file + "\nexit 0\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-lost", 300ms)));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "timeout");
  const pid_t child = std::stoi(ReadFile(pid_file));
  EXPECT_TRUE(Eventually([&] { return !Running(child); })) << "the hook's background child outlived its timeout";
  EXPECT_NE(Log().find("HOOK_TIMEOUT " + hooks_ + "/10-detach master-lost: killed after"), std::string::npos)
      << Log();
  EXPECT_NE(Log().find("exit 0, then what it left running was killed"), std::string::npos) << Log();
}

TEST_F(HookRunnerTest, WhatAHookLeftRunningMayFinishWithinTheTimeout) {
  const std::string out = dir_ + "/out";
  WriteHook("10-late", "( sleep 0.2; echo late >> " + out + " ) >/dev/null 2>&1 &\nexit 0\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("config-applied", 10s)));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "ok");
  EXPECT_EQ(ReadFile(out), "late\n") << "the run ended before what the hook started";
}

TEST_F(HookRunnerTest, StoppingKillsWhatAHookLeftRunning) {
  const std::string pid_file = dir_ + "/child.pid";
  WriteHook("10-detach", "sleep 1000 >/dev/null 2>&1 &\necho $! > " + pid_file + ".new\nmv " + pid_file +
                             ".new " + pid_file + "\nexit 0\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-lost", 60s)));
  ASSERT_TRUE(Eventually([&] { return fs::exists(pid_file); })) << Log();
  const pid_t child = std::stoi(ReadFile(pid_file));
  ASSERT_TRUE(Running(child));
  runner_->Stop();
  EXPECT_TRUE(Eventually([&] { return !Running(child); })) << "the hook's background child outlived smsupd's stop";
}

// The directory is checked from / down, without following a link: each
// directory above it must be root's and writable by no one else (a sticky
// one like /tmp aside), or whoever may rename it can swap the hooks.
TEST_F(HookRunnerTest, ADirectoryBelowASymbolicLinkRunsNothing) {
  const std::string out = dir_ + "/out";
  fs::rename(hooks_, dir_ + "/real");
  fs::create_directory(dir_ + "/parent");
  fs::rename(dir_ + "/real", dir_ + "/parent/hooks.d");
  fs::create_directory_symlink(dir_ + "/parent", dir_ + "/link");
  hooks_ = dir_ + "/link/hooks.d";
  WriteHook("10-record", "echo ran >> " + out + "\n");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "refused");
  EXPECT_FALSE(fs::exists(out)) << "a hook below a symbolic link ran";
  EXPECT_NE(Log().find("HOOK_DIRECTORY_REFUSED no hook runs: " + dir_ + "/link, above " + hooks_ +
                       ", is a symbolic link"),
            std::string::npos)
      << Log();
}

TEST_F(HookRunnerTest, ADirectoryThatIsASymbolicLinkRunsNothing) {
  const std::string out = dir_ + "/out";
  WriteHook("10-record", "echo ran >> " + out + "\n");
  fs::create_directory_symlink(hooks_, dir_ + "/hooks.link");
  StartRunner();
  HookJob job = Job("master-changed");
  job.directory = dir_ + "/hooks.link";
  ASSERT_TRUE(runner_->Enqueue(job));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "refused");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_NE(Log().find("HOOK_DIRECTORY_REFUSED no hook runs: " + job.directory + " is a symbolic link"),
            std::string::npos)
      << Log();
}

TEST_F(HookRunnerTest, AParentWritableByGroupOrNotRootsRunsNothing) {
  const std::string out = dir_ + "/out";
  fs::create_directory(dir_ + "/parent");
  fs::rename(hooks_, dir_ + "/parent/hooks.d");
  hooks_ = dir_ + "/parent/hooks.d";
  WriteHook("10-record", "echo ran >> " + out + "\n");
  ::chmod((dir_ + "/parent").c_str(), 0775);
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "refused");
  EXPECT_NE(Log().find("HOOK_DIRECTORY_REFUSED no hook runs: " + dir_ + "/parent, above " + hooks_ +
                       ", is writable by group or others (mode 0775)"),
            std::string::npos)
      << Log();
  ::chmod((dir_ + "/parent").c_str(), 0755);
  ASSERT_EQ(::chown((dir_ + "/parent").c_str(), 65534, 65534), 0);
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 2; })) << Log();
  EXPECT_EQ(Results()[1], "refused");
  EXPECT_NE(Log().find("HOOK_DIRECTORY_REFUSED no hook runs: " + dir_ + "/parent, above " + hooks_ +
                       ", is owned by uid 65534, not root"),
            std::string::npos)
      << Log();
  EXPECT_FALSE(fs::exists(out));
}

// A sticky directory (like /tmp) lets no one but root rename or remove
// root's entries in it: root's, it may be above the hooks; anyone else's not.
TEST_F(HookRunnerTest, AStickyParentCountsOnlyWhenRoots) {
  const std::string out = dir_ + "/out";
  fs::create_directory(dir_ + "/sticky");
  fs::rename(hooks_, dir_ + "/sticky/hooks.d");
  hooks_ = dir_ + "/sticky/hooks.d";
  WriteHook("10-record", "echo ran >> " + out + "\n");
  ::chmod((dir_ + "/sticky").c_str(), 01777);
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "ok") << Log();
  EXPECT_EQ(ReadFile(out), "ran\n");
  ASSERT_EQ(::chown((dir_ + "/sticky").c_str(), 65534, 65534), 0);
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 2; })) << Log();
  EXPECT_EQ(Results()[1], "refused");
  EXPECT_EQ(ReadFile(out), "ran\n");
}

// A hook that is a symbolic link would run whatever the link names by then.
TEST_F(HookRunnerTest, AHookThatIsASymbolicLinkIsRefused) {
  const std::string out = dir_ + "/out";
  const std::string target = dir_ + "/real-hook";
  std::ofstream(target) << "#!/bin/sh\necho ran >> " << out << "\n";
  ::chmod(target.c_str(), 0755);
  fs::create_symlink(target, hooks_ + "/10-link");
  StartRunner();
  ASSERT_TRUE(runner_->Enqueue(Job("master-changed")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 1; })) << Log();
  EXPECT_EQ(Results()[0], "refused");
  EXPECT_FALSE(fs::exists(out)) << "a symbolic link ran as a hook";
  EXPECT_NE(Log().find("HOOK_REFUSED " + hooks_ + "/10-link: is a symbolic link"), std::string::npos) << Log();
}

// The hook runs from the descriptor that was opened and checked: a file
// renamed over its path afterwards is not what runs.
TEST_F(HookRunnerTest, WhatRunsIsTheFileThatWasChecked) {
  const std::string out = dir_ + "/out";
  WriteHook("10-hook", "echo checked >> " + out + "\n");
  HookListing listing = ListHooks(hooks_);
  ASSERT_EQ(listing.error, "");
  OpenedHook hook = OpenHook(listing, hooks_, "10-hook");
  ASSERT_EQ(hook.kind, OpenedHook::Kind::kRun) << hook.refusal;
  WriteHook("10-new", "echo swapped >> " + out + "\n");
  fs::rename(hooks_ + "/10-new", hooks_ + "/10-hook");
  std::atomic<bool> abort{false};
  HookOutcome outcome = RunHook(hook.path, hook.fd.get(), Job("master-changed"), [](bool, const std::string&) {}, abort);
  EXPECT_EQ(outcome.kind, HookOutcome::Kind::kOk) << outcome.text;
  EXPECT_EQ(ReadFile(out), "checked\n");
}

// A refusal is logged once, not at every event, until it changes.
TEST_F(HookRunnerTest, ARefusalIsLoggedOnceUntilItChanges) {
  WriteHook("10-group-writable", "exit 0\n", 0775);
  StartRunner();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(runner_->Enqueue(Job("event-" + std::to_string(i))));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 3; })) << Log();
  ::chmod((hooks_ + "/10-group-writable").c_str(), 0757);
  ASSERT_TRUE(runner_->Enqueue(Job("event-3")));
  ASSERT_TRUE(Eventually([&] { return Results().size() == 4; })) << Log();
  const std::string log = Log();
  std::size_t lines = 0;
  for (std::size_t at = log.find("HOOK_REFUSED"); at != std::string::npos; at = log.find("HOOK_REFUSED", at + 1))
    ++lines;
  EXPECT_EQ(lines, 2u) << log;
  EXPECT_NE(log.find("(mode 0775)"), std::string::npos) << log;
  EXPECT_NE(log.find("(mode 0757)"), std::string::npos) << log;
}

}  // namespace
}  // namespace smsupd
