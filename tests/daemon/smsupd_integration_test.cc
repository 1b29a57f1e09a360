// The real smsupd + real OpenSM + real smctl on a simulated fabric; what
// they report is checked against the test bed's own MAD queries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "daemon/opensm/opensm_pid_file.h"
#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kDeadline(60000);

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// Runs a command line (smctl) with a deadline; stdout only.
CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen(("timeout 20 " + command + " 2>/dev/null").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

class SmsupdIntegrationTest : public FabricTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
    node_ = fabric().topology().management_nodes()[0];
    port_guid_ = fabric().topology().Find(node_)->PortGuid(1);
    auto dir = fabric().NewProcessDir("smsupd-" + node_);
    ASSERT_TRUE(dir.ok()) << dir.error().message;
    dir_ = *dir;
    WriteConfig("");
  }

  void TearDown() override {
    // OpenSM runs in its own session (it must outlive smsupd): end it here.
    if (auto record = ReadPidFile(dir_ + "/state/opensm.pid")) ::kill(record->pid, SIGKILL);
    for (pid_t pid : extra_pids_) ::kill(pid, SIGKILL);
    FabricTest::TearDown();
  }

  std::string ConfigText(const std::string& extra_options) {
    std::string text = "version: 1\nnode: " + node_ + "\nsm:\n  role: master\n  port_guid: " +
                       FormatGuid(port_guid_) + "\n";
    if (!extra_options.empty()) text += "  opensm:\n    options:\n" + extra_options;
    text += "state_dir: " + dir_ + "/state\ncontrol:\n  socket: " + socket() + "\n";
    text += "hosts:\n  " + node_ + ": " + FormatGuid(port_guid_) + "\n";
    text += "partitions:\n  - name: Default\n    pkey: 0x7fff\n    ipoib: true\n"
            "    members:\n      - { ports: ALL, membership: full }\n";
    return text;
  }
  void WriteConfig(const std::string& extra_options) {
    ASSERT_TRUE(WriteFileAtomically(config_path(), ConfigText(extra_options)).ok());
  }

  std::string config_path() const { return dir_ + "/smsupd.yaml"; }
  std::string socket() const { return dir_ + "/run/smsupd.sock"; }
  std::string Smctl(const std::string& args) const {
    return std::string(SMSUPD_SMCTL_PATH) + " --socket " + socket() + " " + args;
  }

  void StartSmsupd() {
    auto process = fabric().RunOnNodeIn(node_, {SMSUPD_DAEMON_PATH, "--config", config_path()}, dir_,
                                        "smsupd-" + node_);
    ASSERT_TRUE(process.ok()) << process.error().message;
    smsupd_ = *process;
  }

  // `smctl --json status`, once the daemon answers and `ready` holds.
  json WaitForStatus(const std::function<bool(const json&)>& ready, const std::string& what) {
    json status;
    Status waited = WaitFor(what, [&] {
      CommandResult result = RunCommand(Smctl("--json status"));
      if (result.exit_code != 0) return false;
      status = json::parse(result.output, nullptr, false);
      return !status.is_discarded() && ready(status);
    }, kDeadline, milliseconds(200));
    EXPECT_TRUE(waited.ok()) << waited.message() << "\nlast status: " << status.dump();
    return status;
  }
  json WaitForMaster() {
    return WaitForStatus([](const json& s) { return s["local_sm"]["state"] == "MASTER"; },
                         "smsupd reports its OpenSM MASTER");
  }

  json Events() {
    CommandResult result = RunCommand(Smctl("--json events"));
    json list = json::array();
    std::istringstream lines(result.output);
    std::string line;
    while (std::getline(lines, line)) {
      json event = json::parse(line, nullptr, false);
      if (!event.is_discarded()) list.push_back(event);
    }
    return list;
  }
  int CountEvents(const std::string& kind) {
    int count = 0;
    std::string all = RunCommand(Smctl("--json events")).output;
    for (size_t at = all.find("\"" + kind + "\""); at != std::string::npos;
         at = all.find("\"" + kind + "\"", at + 1))
      ++count;
    return count;
  }

  std::string node_;
  Guid port_guid_ = 0;
  std::string dir_;
  NodeProcess* smsupd_ = nullptr;
  std::vector<pid_t> extra_pids_;
};

TEST_F(SmsupdIntegrationTest, StatusMatchesWhatTheFabricSays) {
  StartSmsupd();
  json status = WaitForMaster();
  uint16_t lid = status["local_sm"]["lid"];
  auto sminfo = probe().SmInfo(lid);
  ASSERT_TRUE(sminfo.ok()) << sminfo.error().message;
  EXPECT_EQ(status["local_sm"]["guid"], FormatGuid(sminfo->guid));
  EXPECT_EQ(status["local_sm"]["priority"], sminfo->priority);
  EXPECT_EQ(sminfo->priority, 15);
  EXPECT_TRUE(sminfo->is_master());
  EXPECT_EQ(status["master"]["guid"], FormatGuid(port_guid_));
  EXPECT_EQ(status["master"]["lid"], lid);
  EXPECT_EQ(status["master"]["host"], node_);
  auto far = probe().LocalPortInfo();  // the probe runs on a far HCA
  ASSERT_TRUE(far.ok()) << far.error().message;
  EXPECT_EQ(far->sm_lid, lid);
  EXPECT_GT(status["opensm"]["pid"].get<int>(), 0);
  EXPECT_EQ(status["config"]["generation"], 1);
  EXPECT_EQ(status["config"]["hash"].get<std::string>().size(), 64u);
}

TEST_F(SmsupdIntegrationTest, KilledOpenSmIsRestartedWithEvents) {
  StartSmsupd();
  json status = WaitForMaster();
  int first = status["opensm"]["pid"];
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  status = WaitForStatus([&](const json& s) {
    return s["opensm"]["pid"] != first && s["opensm"]["pid"] != 0 && s["local_sm"]["state"] == "MASTER";
  }, "a new OpenSM is master");
  EXPECT_EQ(status["opensm"]["restarts"], 1);
  EXPECT_EQ(CountEvents("opensm-exited"), 1);
  EXPECT_EQ(CountEvents("opensm-restarted"), 1);
}

TEST_F(SmsupdIntegrationTest, NewSmsupdAdoptsTheRunningOpenSmAfterKill9) {
  StartSmsupd();
  json status = WaitForMaster();
  int opensm = status["opensm"]["pid"];
  uint16_t lid = status["local_sm"]["lid"];
  smsupd_->process->Kill();  // SIGKILL to smsupd's process group: OpenSM is not in it
  ASSERT_EQ(::kill(opensm, 0), 0) << "OpenSM died with smsupd";
  StartSmsupd();
  status = WaitForMaster();
  EXPECT_EQ(status["opensm"]["pid"], opensm);
  EXPECT_EQ(CountEvents("opensm-adopted"), 1);
  EXPECT_EQ(CountEvents("opensm-started"), 0);
  EXPECT_EQ(CountEvents("sm-state-changed"), 0);
  auto sminfo = probe().SmInfo(lid);
  ASSERT_TRUE(sminfo.ok()) << sminfo.error().message;
  EXPECT_TRUE(sminfo->is_master());
}

TEST_F(SmsupdIntegrationTest, ReloadAppliesAValidChangeAndRefusesAnInvalidOne) {
  StartSmsupd();
  WaitForMaster();
  WriteConfig("      sweep_interval: 17\n");
  CommandResult reload = RunCommand(Smctl("reload"));
  EXPECT_EQ(reload.exit_code, 0) << reload.output;
  auto conf = ReadWholeFile(dir_ + "/state/opensm.conf");
  ASSERT_TRUE(conf.ok());
  EXPECT_NE(conf->find("sweep_interval 17"), std::string::npos);
  json status = WaitForStatus([](const json& s) { return s["config"]["generation"] == 2; }, "generation 2");

  ASSERT_TRUE(WriteFileAtomically(config_path(), ConfigText("") + "no_such_key: 1\n").ok());
  reload = RunCommand(Smctl("reload"));
  EXPECT_EQ(reload.exit_code, 1);
  auto after = ReadWholeFile(dir_ + "/state/opensm.conf");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *conf);
  status = WaitForStatus([](const json&) { return true; }, "status");
  EXPECT_EQ(status["config"]["generation"], 2);
  EXPECT_EQ(CountEvents("config-rejected"), 1);
}

TEST_F(SmsupdIntegrationTest, BadRequestsGetErrorsAndTheDaemonKeepsServing) {
  StartSmsupd();
  WaitForMaster();
  auto ask = [&](const std::string& payload) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", socket().c_str());
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
      timeval timeout{5, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      (void)!::write(fd, payload.data(), payload.size());
      char buffer[4096];
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n > 0) answer.assign(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    return json::parse(answer, nullptr, false);
  };
  json garbage = ask("this is not json\n");
  ASSERT_FALSE(garbage.is_discarded());
  EXPECT_NE(garbage["result"], 0);
  json unknown = ask(R"({"version":1,"command":"make-coffee","arguments":{}})" "\n");
  ASSERT_FALSE(unknown.is_discarded());
  EXPECT_NE(unknown["result"], 0);
  json oversized = ask(std::string(200 * 1024, 'x') + "\n");
  ASSERT_FALSE(oversized.is_discarded());
  EXPECT_NE(oversized["result"], 0);
  EXPECT_EQ(RunCommand(Smctl("status")).exit_code, 0);
}

TEST_F(SmsupdIntegrationTest, GroupMemberMayReadButNotChange) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0 ||
      ::access("/usr/sbin/groupadd", X_OK) != 0)
    GTEST_SKIP() << "needs root, setpriv and groupadd";
  const std::string group = "smsupd-it-" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("groupadd " + group).c_str()), 0);
  struct GroupCleanup {
    std::string name;
    ~GroupCleanup() { (void)!std::system(("groupdel " + name).c_str()); }
  } cleanup{group};
  std::string text = ConfigText("");
  text.replace(text.find("control:\n"), 9, "control:\n  group: " + group + "\n");
  ASSERT_TRUE(WriteFileAtomically(config_path(), text).ok());
  // nobody must be able to reach the socket's directory
  for (std::string d = dir_; d.size() > 1; d = d.substr(0, d.rfind('/'))) ::chmod(d.c_str(), 0755);
  StartSmsupd();
  WaitForMaster();
  std::string as_member = "setpriv --reuid=nobody --regid=nogroup --groups=" + group + " ";
  std::string as_stranger = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
  EXPECT_EQ(RunCommand(as_member + Smctl("status")).exit_code, 0);
  EXPECT_EQ(RunCommand(as_member + Smctl("reload")).exit_code, 1);
  EXPECT_NE(RunCommand(as_stranger + Smctl("status")).exit_code, 0);
}

}  // namespace
}  // namespace smsupd::testbed
