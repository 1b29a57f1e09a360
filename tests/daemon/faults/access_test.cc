// Who may do what on the control socket, tried as the users themselves
// (setpriv for smctl, a forked client with dropped credentials for raw
// protocol lines): a member of control.group gets every read-only command
// and is refused every changing one; a user outside the group cannot
// connect; and a `plan` from a member never makes the root daemon open a
// path it names, neither as "file" nor as the config's sm_key_file.
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/control_protocol.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/daemon/faults/raw_request.h"
#include "tests/testbed/temporary_group.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// A writer may open a FIFO without blocking only while someone has it open
// for reading: true when the daemon holds `fifo` open.
bool SomeoneReads(const std::string& fifo) {
  int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;  // ENXIO: no reader
  ::close(fd);
  return true;
}

class AccessTest : public FaultTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access("/usr/bin/setpriv", X_OK), 0) << "needs setpriv (util-linux)";
    const passwd* nobody = ::getpwnam("nobody");
    const group* nogroup = ::getgrnam("nogroup");
    ASSERT_TRUE(nobody != nullptr && nogroup != nullptr);
    nobody_ = nobody->pw_uid;
    nogroup_ = nogroup->gr_gid;
    Result<std::unique_ptr<TemporaryGroup>> group = TemporaryGroup::Create("smsupd-ac");
    ASSERT_TRUE(group.ok()) << group.error().message;
    group_ = std::move(*group);
    ASSERT_NO_FATAL_FAILURE(StartSmallFabric());
    const auto& names = fabric().topology().management_nodes();
    SmsupdConfig config = TenantConfig(names[0], "master");
    config.control_group = group_->name();
    master_ = AddNode(std::move(config));
    ASSERT_TRUE(master_ != nullptr);
    // nobody must be able to reach the socket's directory and read the
    // plan's file.
    for (std::string d = master_->dir(); d.size() > 1; d = d.substr(0, d.rfind('/'))) ::chmod(d.c_str(), 0755);
    ASSERT_NO_FATAL_FAILURE(StartAndWait(*master_, "MASTER"));
  }
  void TearDown() override {
    FaultTest::TearDown();  // smsupd stops before its control group goes
    group_.reset();
  }

  SmctlResult AsMember(const std::vector<std::string>& args) {
    return master_->Smctl(args, kSmctlDeadline,
                          {"setpriv", "--reuid=nobody", "--regid=nogroup", "--groups=" + group_->name()});
  }
  SmctlResult AsStranger(const std::vector<std::string>& args) {
    return master_->Smctl(args, kSmctlDeadline, {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  }
  std::string MemberRequest(const json& request) {
    return RawRequestAs(nobody_, nogroup_, {group_->gid()}, master_->socket_path(), request.dump());
  }

  uid_t nobody_ = 0;
  gid_t nogroup_ = 0;
  std::unique_ptr<TemporaryGroup> group_;
  ManagementNode* master_ = nullptr;
};

TEST_F(AccessTest, MemberReadsEverythingAndChangesNothingStrangerCannotConnect) {
  const std::string plan_file = master_->dir() + "/plan.yaml";
  Result<std::string> config_text = ReadWholeFile(master_->config_path());
  ASSERT_TRUE(config_text.ok());
  ASSERT_TRUE(WriteFileAtomically(plan_file, *config_text, 0644).ok());
  const std::vector<std::vector<std::string>> read_only = {
      {"status"},      {"--json", "status"}, {"events"},        {"history"}, {"version"},
      {"list-commands"}, {"plan", plan_file}, {"--json", "plan", plan_file}};
  for (const auto& args : read_only) {
    SmctlResult result = AsMember(args);
    EXPECT_EQ(result.exit_code, 0) << json(args).dump() << ": " << result.Describe();
  }
  // why is read-only too; its exit code is the answer (0 yes, 1 no).
  SmctlResult why = AsMember({"why", master_->node(), master_->node()});
  EXPECT_TRUE((why.exit_code == 0 && why.out.rfind("yes: ", 0) == 0) ||
              (why.exit_code == 1 && why.out.rfind("no: ", 0) == 0))
      << why.Describe();
  const std::vector<std::vector<std::string>> changing = {
      {"reload"}, {"reload", "--wait"}, {"rollback"}, {"failover"}, {"restart-opensm", "--force"}};
  const std::optional<pid_t> opensm = master_->OpenSmPid();
  for (const auto& args : changing) {
    SmctlResult result = AsMember(args);
    EXPECT_EQ(result.exit_code, 1) << json(args).dump() << ": " << result.Describe();
    EXPECT_NE((result.out + result.err).find("permission denied"), std::string::npos)
        << json(args).dump() << ": " << result.Describe();
  }
  for (const auto& args : std::vector<std::vector<std::string>>{{"status"}, {"version"}, {"plan", plan_file}}) {
    SmctlResult result = AsStranger(args);
    EXPECT_NE(result.exit_code, 0) << json(args).dump() << ": " << result.Describe();
    EXPECT_NE((result.out + result.err).find("permission denied"), std::string::npos) << result.Describe();
  }
  // Nothing changed: same OpenSM, still MASTER, one generation.
  EXPECT_EQ(master_->OpenSmPid(), opensm);
  EXPECT_TRUE(master_->WaitForSmState("MASTER", kFabricDeadline).ok());
  SmctlResult history = master_->Smctl({"--json", "history"});
  EXPECT_EQ(history.Arguments().value("generations", json::array()).size(), 1u) << history.Describe();
  // A stranger's raw connection is refused by the socket itself.
  std::string raw = RawRequestAs(nobody_, nogroup_, {}, master_->socket_path(), R"({"version":1,"command":"status"})");
  EXPECT_EQ(raw.rfind("connect: ", 0), 0u) << raw;
}

TEST_F(AccessTest, PlanFromAMemberNeverOpensAPath) {
  const std::string fifo = fabric().dir() + "/plan-fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  ASSERT_EQ(::chmod(fifo.c_str(), 0666), 0);

  // "file" alone: refused at once, the FIFO never opened (an open would
  // block the daemon until a writer came).
  std::string reply = MemberRequest({{"version", control::kProtocolVersion}, {"command", "plan"}, {"arguments", {{"file", fifo}}}});
  ASSERT_FALSE(reply.empty()) << "no reply to a plan naming a FIFO";
  json refused = json::parse(reply, nullptr, false);
  EXPECT_NE(refused.value("result", 0), 0) << reply;
  EXPECT_NE(reply.find("does not open"), std::string::npos) << reply;
  EXPECT_FALSE(SomeoneReads(fifo));

  // A text naming /etc/shadow and the FIFO as sm_key_file: planned as text,
  // neither file read.
  Result<std::string> text = ReadWholeFile(master_->config_path());
  ASSERT_TRUE(text.ok());
  for (const std::string& key_file : {std::string("/etc/shadow"), fifo}) {
    std::string yaml = *text;
    yaml.replace(yaml.find("sm:\n") + 4, 0, "  sm_key_file: " + key_file + "\n");
    reply = MemberRequest(
        {{"version", control::kProtocolVersion}, {"command", "plan"}, {"arguments", {{"yaml", yaml}, {"file", "/etc/smsupd/smsupd.yaml"}}}});
    ASSERT_FALSE(reply.empty()) << "no reply to a plan whose sm_key_file is " << key_file;
    EXPECT_EQ(reply.find("root:"), std::string::npos) << reply;
    EXPECT_FALSE(SomeoneReads(fifo));
  }
  // The daemon still answers at once.
  SmctlResult status = AsMember({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.Describe();
}

// /proc/<pid>/status's VmHWM (peak resident set) in MB; -1 if unreadable.
double PeakRssMb(pid_t pid) {
  Result<std::string> status = ReadWholeFile("/proc/" + std::to_string(pid) + "/status");
  if (!status.ok()) return -1;
  const std::size_t at = status->find("VmHWM:");
  return at == std::string::npos ? -1 : std::stod(status->substr(at + 6)) / 1024;
}

// What a member may send to take a root daemon down, each refused with a
// clear answer while the daemon goes on: a million nested brackets, a
// 30,000-deep cycle of groups, an alias bomb (10^9 nodes in 500 bytes) and
// an 8 MiB "file" name. Its peak memory stays within the budget stated in
// docs/reliability.md.
TEST_F(AccessTest, AMembersHostileRequestsAreRefusedAndTheDaemonGoesOn) {
  const pid_t daemon = master_->pid();
  const double peak_before = PeakRssMb(daemon);
  auto plan_line = [](const std::string& yaml, const std::string& file) {
    return json{{"version", control::kProtocolVersion},
                {"command", "plan"},
                {"arguments", {{"yaml", yaml}, {"file", file}}}}
        .dump();
  };
  auto member = [&](const std::string& line) {
    return RawRequestAs(nobody_, nogroup_, {group_->gid()}, master_->socket_path(), line);
  };
  auto result_of = [](const std::string& reply) {
    return json::parse(reply, nullptr, false).value("result", -1);
  };

  const std::size_t depth = 1'000'000;
  std::string reply = member(R"({"version":1,"command":"plan","arguments":{"yaml":"x","x":)" +
                             std::string(depth, '[') + std::string(depth, ']') + "}}");
  EXPECT_EQ(result_of(reply), static_cast<int>(control::ResultCode::kBadRequest)) << reply;
  EXPECT_NE(reply.find("nests deeper than 32 levels"), std::string::npos) << reply;

  std::string chain = "version: 1\nsm:\n  role: master\ngroups:\n";
  for (int i = 0; i < 30000; ++i)
    chain += "  g" + std::to_string(i) + ": [g" + std::to_string((i + 1) % 30000) + "]\n";
  reply = member(plan_line(chain, "chain.yaml"));
  EXPECT_EQ(result_of(reply), static_cast<int>(control::ResultCode::kError)) << reply.substr(0, 300);
  EXPECT_NE(reply.find("group cycle: g0 -> g1 -> "), std::string::npos) << reply.substr(0, 300);

  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  reply = member(plan_line(bomb, "bomb.yaml"));
  EXPECT_EQ(result_of(reply), static_cast<int>(control::ResultCode::kError)) << reply;
  EXPECT_NE(reply.find("more than 500000 nodes"), std::string::npos) << reply;

  reply = member(plan_line("version: 1\n", std::string(8 * 1024 * 1024, 'f')));
  EXPECT_EQ(result_of(reply), static_cast<int>(control::ResultCode::kBadRequest)) << reply.substr(0, 300);
  EXPECT_NE(reply.find("the limit is 4096"), std::string::npos) << reply.substr(0, 300);

  // The same daemon, still MASTER, answering a member at once.
  EXPECT_EQ(master_->pid(), daemon);
  EXPECT_TRUE(ProcessAlive(daemon));
  SmctlResult status = AsMember({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.Describe();
  EXPECT_TRUE(master_->WaitForSmState("MASTER", kFabricDeadline).ok());
  const double peak_after = PeakRssMb(daemon);
  std::printf("smsupd peak RSS: %.1f MB before, %.1f MB after the hostile requests\n", peak_before,
              peak_after);
  // Measured: 9 MB before, 115 MB after (the chain's tree of 90,000 nodes
  // ~60 MB, the 8 MiB line's copies ~45 MB); the budget of one request is
  // in docs/reliability.md.
  EXPECT_LT(peak_after, 256.0);
}

}  // namespace
}  // namespace smsupd::testbed::faults
