// The access rule as a table, and once for real: a forked child that drops to
// another uid/gid connects with its real SO_PEERCRED credentials.
#include "daemon/control/peer_credentials.h"

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "tests/daemon/control/control_test_support.h"
#include "tests/testbed/temporary_group.h"

namespace smsupd::control {
namespace {

constexpr uid_t kDaemonUid = 500;
constexpr gid_t kControlGid = 600;

struct AccessCase {
  uid_t uid;
  gid_t gid;
  std::vector<gid_t> groups;
  std::optional<gid_t> control_gid;
  AccessLevel expected;
};

class DecideAccessTest : public ::testing::TestWithParam<AccessCase> {};

TEST_P(DecideAccessTest, FollowsTheRule) {
  const auto& c = GetParam();
  EXPECT_EQ(DecideAccess(PeerIdentity{1, c.uid, c.gid}, c.groups, kDaemonUid, c.control_gid),
            c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, DecideAccessTest,
    ::testing::Values(AccessCase{0, 0, {}, kControlGid, AccessLevel::kFull},
                      AccessCase{0, 0, {}, std::nullopt, AccessLevel::kFull},
                      AccessCase{kDaemonUid, 1, {}, kControlGid, AccessLevel::kFull},
                      AccessCase{1000, kControlGid, {}, kControlGid, AccessLevel::kReadOnly},
                      AccessCase{1000, 1000, {27, kControlGid}, kControlGid, AccessLevel::kReadOnly},
                      AccessCase{1000, 1000, {27, 100}, kControlGid, AccessLevel::kNone},
                      AccessCase{1000, kControlGid, {kControlGid}, std::nullopt, AccessLevel::kNone}));

TEST(PeerCredentialsTest, ReadsOwnCredentialsOverASocketPair) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  auto peer = ReadPeerIdentity(fds[0]);
  ASSERT_TRUE(peer.ok()) << peer.error().message;
  EXPECT_EQ(peer->uid, geteuid());
  EXPECT_EQ(peer->pid, getpid());
  close(fds[0]);
  close(fds[1]);
}

// Exit codes of the child below.
constexpr int kChildStatusOk = 1;
constexpr int kChildReloadRefused = 2;
constexpr int kChildConnectDenied = 64;
constexpr int kChildSetupFailed = 90;

bool ReadReply(int fd, const char* expected) {
  char buffer[8192];
  std::size_t used = 0;
  while (used < sizeof buffer - 1) {
    ssize_t n = read(fd, buffer + used, sizeof buffer - 1 - used);
    if (n <= 0) return false;
    used += static_cast<std::size_t>(n);
    buffer[used] = '\0';
    if (std::strchr(buffer, '\n')) return std::strstr(buffer, expected) != nullptr;
  }
  return false;
}

// Runs in a forked child of a threaded process: raw system calls only.
[[noreturn]] void ChildClient(const char* path, uid_t uid, gid_t gid, gid_t supplementary) {
  if (setgroups(1, &supplementary) != 0 || setresgid(gid, gid, gid) != 0 ||
      setresuid(uid, uid, uid) != 0)
    _exit(kChildSetupFailed);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path, sizeof address.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
    _exit(errno == EACCES ? kChildConnectDenied : kChildSetupFailed + 1);
  int result = 0;
  const char status[] = "{\"version\":1,\"command\":\"status\"}\n";
  const char reload[] = "{\"version\":1,\"command\":\"reload\"}\n";
  if (write(fd, status, sizeof status - 1) > 0 && ReadReply(fd, "\"result\":0,"))
    result |= kChildStatusOk;
  if (write(fd, reload, sizeof reload - 1) > 0 && ReadReply(fd, "\"result\":4,"))
    result |= kChildReloadRefused;
  _exit(result);
}

int RunChild(const std::string& path, uid_t uid, gid_t gid, gid_t supplementary) {
  pid_t pid = fork();
  if (pid == 0) ChildClient(path.c_str(), uid, gid, supplementary);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs as root (CI does): it switches the child's uid, and makes its own
// control group.
TEST(PeerCredentialsTest, RealNonRootClientsGetTheirAccessLevel) {
  ASSERT_EQ(geteuid(), 0u) << "runs as root, to switch the child's uid";
  auto control_group = testbed::TemporaryGroup::Create("smsupd-pc");
  ASSERT_TRUE(control_group.ok()) << control_group.error().message;
  const std::string name = (*control_group)->name();
  auto group = LookupGroup(name);
  ASSERT_TRUE(group.has_value()) << "LookupGroup(" << name << ") found nothing";
  ControlServerOptions options;
  options.group = name;
  options.authenticator = SystemPeerAuthenticator(name);
  testing::RunningServer server(options);
  ASSERT_TRUE(server.start_status()) << server.start_status().message();
  ASSERT_EQ(chmod(server.directory().c_str(), 0755), 0);  // let the child reach the socket

  // A member of the control group (as a supplementary group) reads, never changes.
  EXPECT_EQ(RunChild(server.socket_path(), 65534, 4242, *group),
            kChildStatusOk | kChildReloadRefused);
  // Anyone else cannot even open the socket (mode 0660, group = control group).
  EXPECT_EQ(RunChild(server.socket_path(), 65534, 4242, 4243), kChildConnectDenied);
  for (const auto& [request, caller] : server.handler.requests()) {
    EXPECT_EQ(request.command, "status");
    EXPECT_EQ(caller.uid, 65534u);
    EXPECT_EQ(caller.access, AccessLevel::kReadOnly);
  }
}

// The groups are those of the connection, not of whatever process has the
// peer's pid when the daemon looks: here the peer has exited (and been
// reaped) before its connection is accepted, and its control group is only a
// supplementary group of its process, not in the group database. Reading
// /proc/<pid> (then the database) denied it; SO_PEERGROUPS does not.
TEST(PeerCredentialsTest, GroupsComeFromTheConnectionNotFromThePid) {
  ASSERT_EQ(geteuid(), 0u) << "runs as root, to switch the child's uid";
  auto control_group = testbed::TemporaryGroup::Create("smsupd-pg");
  ASSERT_TRUE(control_group.ok()) << control_group.error().message;
  auto gid = LookupGroup((*control_group)->name());
  ASSERT_TRUE(gid.has_value());
  char pattern[] = "/tmp/peer-groups-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string path = std::string(pattern) + "/sock";
  ASSERT_EQ(chmod(pattern, 0755), 0);
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  ASSERT_EQ(listen(listener, 4), 0);

  pid_t child = fork();
  if (child == 0) {
    const gid_t supplementary = *gid;
    if (setgroups(1, &supplementary) != 0 || setresgid(4242, 4242, 4242) != 0 ||
        setresuid(65534, 65534, 65534) != 0)
      _exit(kChildSetupFailed);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    _exit(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not connect";

  int connection = accept(listener, nullptr, nullptr);
  ASSERT_GE(connection, 0);
  auto caller = SystemPeerAuthenticator((*control_group)->name())(connection);
  ASSERT_TRUE(caller.ok()) << caller.error().message;
  EXPECT_EQ(caller->uid, 65534u);
  EXPECT_EQ(caller->access, AccessLevel::kReadOnly);
  close(connection);
  close(listener);
  unlink(path.c_str());
  rmdir(pattern);
}

}  // namespace
}  // namespace smsupd::control
