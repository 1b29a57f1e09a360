// The real smsupd + real OpenSM + real smctl on a simulated fabric; what
// they report is checked against the test bed's own MAD queries.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"
#include "tests/testbed/temporary_group.h"
#include "tests/testbed/topology_generators.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kDeadline(60000);
constexpr milliseconds kSmctlDeadline(20000);

class SmsupdIntegrationTest : public FabricTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(StartFabric(MakeTwoSwitchTopology()));
    const std::string& name = fabric().topology().management_nodes()[0];
    Result<std::unique_ptr<ManagementNode>> created =
        ManagementNode::Create(fabric(), SmNodesConfig(fabric().topology(), name, "master"));
    ASSERT_TRUE(created.ok()) << created.error().message;
    node_ = std::move(*created);
  }

  void TearDown() override {
    node_.reset();  // smsupd, then the OpenSM it runs in its own session
    FabricTest::TearDown();
  }

  ManagementNode& node() { return *node_; }

  void StartSmsupd() {
    Status started = node_->Start();
    ASSERT_TRUE(started.ok()) << started.message();
  }

  // `smctl --json status` once the daemon answers and `ready` holds.
  json WaitForStatus(const std::function<bool(const json&)>& ready, const std::string& what) {
    Result<json> status = node_->WaitForStatus(ready, what, kDeadline);
    EXPECT_TRUE(status.ok()) << status.error().message;
    return status.ok() ? *status : json::object();
  }
  json WaitForMaster() {
    // OpenSM reports MASTER before its first sweep has given its own port a
    // LID: wait for both.
    return WaitForStatus(
        [](const json& s) { return s["local_sm"]["state"] == "MASTER" && s["local_sm"].value("lid", 0) != 0; },
        "smsupd reports its OpenSM MASTER with a LID");
  }

  int CountEvents(const std::string& kind) {
    Result<std::vector<json>> events = node_->Events();
    EXPECT_TRUE(events.ok()) << events.error().message;
    if (!events.ok()) return -1;
    return static_cast<int>(std::count_if(events->begin(), events->end(), [&](const json& event) {
      return SameEventKind(event.value("kind", std::string()), kind);
    }));
  }

  std::unique_ptr<ManagementNode> node_;
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
  EXPECT_EQ(status["master"]["guid"], FormatGuid(node().port_guid()));
  EXPECT_EQ(status["master"]["lid"], lid);
  EXPECT_EQ(status["master"]["host"], node().node());
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
  ASSERT_TRUE(node().Signal(SIGKILL).ok());  // smsupd alone: OpenSM runs in its own session
  ASSERT_TRUE(node().Wait(kDeadline).ok()) << "smsupd survived SIGKILL";
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
  node().config().opensm_options["sweep_interval"] = "17";
  ASSERT_TRUE(node().WriteConfig().ok());
  SmctlResult reload = node().Smctl({"reload"});
  EXPECT_EQ(reload.exit_code, 0) << reload.Describe();
  auto conf = ReadWholeFile(node().StatePath("opensm.conf"));
  ASSERT_TRUE(conf.ok());
  EXPECT_NE(conf->find("sweep_interval 17"), std::string::npos);
  json status = WaitForStatus([](const json& s) { return s["config"]["generation"] == 2; }, "generation 2");

  ASSERT_TRUE(node().WriteConfigText(node().config().Yaml() + "no_such_key: 1\n").ok());
  reload = node().Smctl({"reload"});
  EXPECT_EQ(reload.exit_code, 4) << "invalid: " << reload.Describe();
  auto after = ReadWholeFile(node().StatePath("opensm.conf"));
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
    std::snprintf(address.sun_path, sizeof address.sun_path, "%s", node().socket_path().c_str());
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
  EXPECT_EQ(node().Smctl({"status"}).exit_code, 0);
}

// The control socket's group (control.group) may read but not change;
// anyone else cannot even connect. Runs smctl as nobody through setpriv.
TEST_F(SmsupdIntegrationTest, GroupMemberMayReadButNotChange) {
  ASSERT_EQ(::access("/usr/bin/setpriv", X_OK), 0) << "needs setpriv (util-linux) to run smctl as nobody";
  Result<std::unique_ptr<TemporaryGroup>> group = TemporaryGroup::Create("smsupd-it");
  ASSERT_TRUE(group.ok()) << group.error().message;
  node().config().control_group = (*group)->name();
  // nobody must be able to reach the socket's directory
  for (std::string d = node().dir(); d.size() > 1; d = d.substr(0, d.rfind('/'))) ::chmod(d.c_str(), 0755);
  StartSmsupd();
  WaitForMaster();
  const std::vector<std::string> as_member = {"setpriv", "--reuid=nobody", "--regid=nogroup",
                                              "--groups=" + (*group)->name()};
  const std::vector<std::string> as_stranger = {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"};
  SmctlResult status = node().Smctl({"status"}, kSmctlDeadline, as_member);
  EXPECT_EQ(status.exit_code, 0) << status.Describe();
  SmctlResult reload = node().Smctl({"reload"}, kSmctlDeadline, as_member);
  EXPECT_EQ(reload.exit_code, 1) << reload.Describe();
  SmctlResult stranger = node().Smctl({"status"}, kSmctlDeadline, as_stranger);
  EXPECT_GT(stranger.exit_code, 0) << stranger.Describe();
  node_.reset();  // smsupd stops before its control group goes
}

}  // namespace
}  // namespace smsupd::testbed
