// The control server as a client sees it: answers, refusals, limits, and that
// one bad client never stops the others from being served.
#include "daemon/control/control_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include <string>
#include <thread>

#include "tests/daemon/control/control_test_support.h"
#include "tests/testbed/temporary_group.h"

namespace smsupd::control {
namespace {

using testing::LineClient;
using testing::RunningServer;
using testing::WaitFor;

constexpr char kStatus[] = R"({"version":1,"command":"status"})";
constexpr char kReload[] = R"({"version":1,"command":"reload"})";

TEST(ControlServerTest, AnswersVersionAndListCommandsItself) {
  RunningServer server;
  ASSERT_TRUE(server.start_status()) << server.start_status().message();
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto version = client.Call(R"({"version":1,"command":"version"})");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->result, ResultCode::kSuccess);
  EXPECT_EQ(version->arguments["protocol"], kProtocolVersion);
  auto list = client.Call(R"({"version":1,"command":"list-commands"})");
  ASSERT_TRUE(list);
  ASSERT_EQ(list->arguments["commands"].size(), kCommands.size());
  EXPECT_EQ(list->arguments["commands"][4]["name"], "reload");
  EXPECT_EQ(list->arguments["commands"][4]["access"], "changing");
  EXPECT_TRUE(server.handler.requests().empty());
}

TEST(ControlServerTest, DispatchesStatusWithCaller) {
  RunningServer server;
  server.peer_uid = 4321;
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto status = client.Call(kStatus);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kSuccess);
  EXPECT_EQ(status->arguments["local_sm"]["state"], "MASTER");
  ASSERT_EQ(server.handler.requests().size(), 1u);
  EXPECT_EQ(server.handler.requests()[0].second.uid, 4321u);
}

struct PermissionCase {
  AccessLevel access;
  const char* request;
  ResultCode expected;
  bool connection_stays_open;
};

class PermissionMatrixTest : public ::testing::TestWithParam<PermissionCase> {};

TEST_P(PermissionMatrixTest, DecidesByAccessLevel) {
  const auto& param = GetParam();
  RunningServer server;
  server.access = param.access;
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto response = client.Call(param.request);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->result, param.expected) << response->text;
  if (param.expected == ResultCode::kPermissionDenied) {
    EXPECT_NE(response->text.find("permission denied"), std::string::npos) << response->text;
  }
  if (param.connection_stays_open) {
    auto version = client.Call(R"({"version":1,"command":"version"})");
    ASSERT_TRUE(version);
    EXPECT_EQ(version->result, ResultCode::kSuccess);
  } else {
    EXPECT_TRUE(client.WaitForClose());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Matrix, PermissionMatrixTest,
    ::testing::Values(
        PermissionCase{AccessLevel::kFull, kStatus, ResultCode::kSuccess, true},
        PermissionCase{AccessLevel::kFull, kReload, ResultCode::kSuccess, true},
        PermissionCase{AccessLevel::kReadOnly, kStatus, ResultCode::kSuccess, true},
        PermissionCase{AccessLevel::kReadOnly, R"({"version":1,"command":"events"})",
                       ResultCode::kSuccess, true},
        PermissionCase{AccessLevel::kReadOnly, kReload, ResultCode::kPermissionDenied, true},
        PermissionCase{AccessLevel::kReadOnly, R"({"version":1,"command":"rollback"})",
                       ResultCode::kPermissionDenied, true},
        PermissionCase{AccessLevel::kNone, kStatus, ResultCode::kPermissionDenied, false},
        PermissionCase{AccessLevel::kNone, kReload, ResultCode::kPermissionDenied, false}));

TEST(ControlServerTest, BadRequestsGetErrorsAndTheServerKeepsServing) {
  RunningServer server;
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto malformed = client.Call("{\"version\":1,\"command\":");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->result, ResultCode::kBadRequest);
  auto unknown = client.Call(R"({"version":1,"command":"self-destruct"})");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->result, ResultCode::kUnsupported);
  auto reserved = client.Call(R"({"version":1,"command":"failover"})");
  ASSERT_TRUE(reserved);
  EXPECT_EQ(reserved->result, ResultCode::kUnsupported);
  auto old_version = client.Call(R"({"version":0,"command":"status"})");
  ASSERT_TRUE(old_version);
  EXPECT_EQ(old_version->result, ResultCode::kBadVersion);
  auto status = client.Call(kStatus);  // same connection, still served
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kSuccess);
}

// A connection sending unparsable lines as fast as it can is answered at
// the pace of the refusal pause; other connections are served meanwhile.
TEST(ControlServerTest, AConnectionSendingGarbageIsSlowedDownOthersAreNot) {
  ControlServerOptions options;
  options.refusal_pause = std::chrono::seconds(60);
  RunningServer server(options);
  LineClient flooder;
  ASSERT_TRUE(flooder.Connect(server.socket_path()));
  ASSERT_TRUE(flooder.Send("garbage 1\ngarbage 2\n" + std::string(kStatus) + "\n"));
  auto first = flooder.ReadLine();
  ASSERT_TRUE(first);
  EXPECT_NE(first->find("\"result\":"), std::string::npos) << *first;
  LineClient other;
  ASSERT_TRUE(other.Connect(server.socket_path()));
  auto status = other.Call(kStatus);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kSuccess);
  // The flooder's next line waits for its pause (60 s here): nothing yet.
  EXPECT_FALSE(flooder.ReadLine(std::chrono::milliseconds(200)));
}

TEST(ControlServerTest, AfterTheRefusalPauseTheNextLineIsAnswered) {
  ControlServerOptions options;
  options.refusal_pause = std::chrono::milliseconds(20);
  RunningServer server(options);
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  ASSERT_TRUE(client.Send("garbage 1\ngarbage 2\n" + std::string(kStatus) + "\n"));
  auto a = client.ReadLine(), b = client.ReadLine(), c = client.ReadLine();
  ASSERT_TRUE(a && b && c);
  auto status = ParseResponse(*c);
  ASSERT_TRUE(status.ok()) << *c;
  EXPECT_EQ(status->result, ResultCode::kSuccess);
}

// A client asking again the instant it hears "busy" (a flood of validations
// or plans) is slowed down like one sending garbage; others are not.
TEST(ControlServerTest, AConnectionToldBusyIsSlowedDownOthersAreNot) {
  ControlServerOptions options;
  options.refusal_pause = std::chrono::seconds(60);
  RunningServer server(options);
  server.handler.reload_response = MakeResponse(ResultCode::kBusy, "busy: try again");
  LineClient asker;
  ASSERT_TRUE(asker.Connect(server.socket_path()));
  ASSERT_TRUE(asker.Send(std::string(kReload) + "\n" + kReload + "\n"));
  auto first = asker.ReadLine();
  ASSERT_TRUE(first);
  EXPECT_EQ(ParseResponse(*first)->result, ResultCode::kBusy);
  LineClient other;
  ASSERT_TRUE(other.Connect(server.socket_path()));
  EXPECT_EQ(other.Call(kStatus)->result, ResultCode::kSuccess);
  // The asker's second request waits for its pause (60 s here).
  EXPECT_FALSE(asker.ReadLine(std::chrono::milliseconds(200)));
  EXPECT_EQ(server.handler.requests().size(), 2u) << "one reload, the other's status";
}

TEST(ControlServerTest, OversizedRequestIsRefusedAndClosed) {
  ControlServerOptions options;
  options.max_request_bytes = 1024;
  options.max_upload_bytes = 2048;
  RunningServer server(options);
  LineClient hog;
  ASSERT_TRUE(hog.Connect(server.socket_path()));
  hog.Send(std::string(4096, 'x'));  // no newline: the server must not wait for one
  auto line = hog.ReadLine();
  ASSERT_TRUE(line);
  auto response = ParseResponse(*line);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->result, ResultCode::kTooLarge);
  EXPECT_NE(response->text.find("request too large"), std::string::npos);
  EXPECT_TRUE(hog.WaitForClose());

  LineClient next;
  ASSERT_TRUE(next.Connect(server.socket_path()));
  auto status = next.Call(kStatus);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kSuccess);
}

TEST(ControlServerTest, HandlerExceptionBecomesErrorReply) {
  RunningServer server;
  server.handler.throw_on_reload = true;
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  auto reload = client.Call(kReload);
  ASSERT_TRUE(reload);
  EXPECT_EQ(reload->result, ResultCode::kError);
  EXPECT_NE(reload->text.find("reload exploded"), std::string::npos);
  EXPECT_EQ(client.Call(kStatus)->result, ResultCode::kSuccess);
}

TEST(ControlServerTest, HandlerMayReplyLaterFromAnotherThread) {
  RunningServer server;
  LineClient waiting;
  ASSERT_TRUE(waiting.Connect(server.socket_path()));
  ASSERT_TRUE(waiting.Send(R"({"version":1,"command":"reload","arguments":{"wait":true}})"
                           "\n"));
  CommandHandler::Reply reply;
  ASSERT_TRUE(WaitFor([&] { return (reply = server.handler.TakePendingReply()) != nullptr; }));

  LineClient other;  // the loop is free while the reload waits
  ASSERT_TRUE(other.Connect(server.socket_path()));
  EXPECT_EQ(other.Call(kStatus)->result, ResultCode::kSuccess);

  std::thread([reply] { reply(MakeResponse(ResultCode::kSuccess, "verified 8/8 ports")); }).join();
  reply(MakeResponse(ResultCode::kError, "second reply is ignored"));
  auto line = waiting.ReadLine();
  ASSERT_TRUE(line);
  EXPECT_EQ(ParseResponse(*line)->text, "verified 8/8 ports");
}

TEST(ControlServerTest, IdleConnectionTimesOut) {
  ControlServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(100);
  RunningServer server(options);
  LineClient idle;
  ASSERT_TRUE(idle.Connect(server.socket_path()));
  auto line = idle.ReadLine();
  ASSERT_TRUE(line);
  EXPECT_EQ(ParseResponse(*line)->result, ResultCode::kTimeout);
  EXPECT_TRUE(idle.WaitForClose());
  EXPECT_TRUE(WaitFor([&] { return server.ConnectionCount() == 0; }));
}

TEST(ControlServerTest, ConnectionCapRefusesExtraConnectionsAsBusy) {
  ControlServerOptions options;
  options.max_connections = 2;
  options.connections_kept_for_root = 0;
  RunningServer server(options);
  LineClient first, second, third;
  ASSERT_TRUE(first.Connect(server.socket_path()));
  ASSERT_TRUE(second.Connect(server.socket_path()));
  ASSERT_TRUE(WaitFor([&] { return server.ConnectionCount() == 2; }));
  ASSERT_TRUE(third.Connect(server.socket_path()));
  auto line = third.ReadLine();
  ASSERT_TRUE(line);
  EXPECT_EQ(ParseResponse(*line)->result, ResultCode::kBusy);
  EXPECT_TRUE(third.WaitForClose());
  EXPECT_EQ(first.Call(kStatus)->result, ResultCode::kSuccess);
}

// One user flooding the socket must not lock out root or other users.
TEST(ControlServerTest, OneUserGetsAShareOfTheConnectionsNotAll) {
  ControlServerOptions options;
  options.max_connections_per_uid = 2;
  RunningServer server(options);
  server.peer_uid = 1000;
  LineClient first, second, third;
  ASSERT_TRUE(first.Connect(server.socket_path()));
  ASSERT_TRUE(second.Connect(server.socket_path()));
  ASSERT_TRUE(WaitFor([&] { return server.ConnectionCount() == 2; }));
  ASSERT_TRUE(third.Connect(server.socket_path()));
  auto line = third.ReadLine();
  ASSERT_TRUE(line);
  EXPECT_EQ(ParseResponse(*line)->result, ResultCode::kBusy);
  server.peer_uid = 0;
  LineClient root;
  ASSERT_TRUE(root.Connect(server.socket_path()));
  EXPECT_EQ(root.Call(kStatus)->result, ResultCode::kSuccess);
}

// Group members following events on every slot they may take leave root
// the slots kept for it.
TEST(ControlServerTest, SomeConnectionsAreKeptForRoot) {
  ControlServerOptions options;
  options.max_connections = 4;
  options.connections_kept_for_root = 2;
  RunningServer server(options);
  server.peer_uid = 1000;
  server.access = AccessLevel::kReadOnly;
  LineClient first, second, third;
  for (LineClient* member : {&first, &second}) {
    ASSERT_TRUE(member->Connect(server.socket_path()));
    ASSERT_TRUE(member->Send(R"({"version":1,"command":"events","arguments":{"follow":true}})"
                             "\n"));
    ASSERT_TRUE(member->ReadLine());
  }
  ASSERT_TRUE(WaitFor([&] { return server.ConnectionCount() == 2; }));
  server.peer_uid = 1001;  // another member: not its own per-uid cap
  ASSERT_TRUE(third.Connect(server.socket_path()));
  auto refused = third.ReadLine();
  ASSERT_TRUE(refused);
  EXPECT_EQ(ParseResponse(*refused)->result, ResultCode::kBusy) << *refused;
  EXPECT_NE(refused->find("kept for root"), std::string::npos) << *refused;

  server.peer_uid = 0;
  server.access = AccessLevel::kFull;
  LineClient root, root_again, one_too_many;
  ASSERT_TRUE(root.Connect(server.socket_path()));
  EXPECT_EQ(root.Call(kStatus)->result, ResultCode::kSuccess);
  ASSERT_TRUE(root_again.Connect(server.socket_path()));
  EXPECT_EQ(root_again.Call(kStatus)->result, ResultCode::kSuccess);
  ASSERT_TRUE(one_too_many.Connect(server.socket_path()));
  auto busy = one_too_many.ReadLine();
  ASSERT_TRUE(busy);
  EXPECT_EQ(ParseResponse(*busy)->result, ResultCode::kBusy);
}

TEST(ControlServerTest, StaleSocketIsReplacedButALiveOneIsNot) {
  RunningServer live;
  ASSERT_TRUE(live.start_status());
  ControlServerOptions options;
  options.socket_path = live.socket_path();
  RunningServer second(options);
  EXPECT_FALSE(second.start_status());
  EXPECT_NE(second.start_status().message().find("another process"), std::string::npos);
  LineClient client;  // the first server still owns its socket
  ASSERT_TRUE(client.Connect(live.socket_path()));
  EXPECT_EQ(client.Call(kStatus)->result, ResultCode::kSuccess);
}

TEST(ControlServerTest, StaleSocketFileFromADeadDaemonIsRemoved) {
  RunningServer server({}, /*start=*/false);
  {
    LineClient bound_only;  // binds the path, never listens, then closes
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, server.socket_path().c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    close(fd);
  }
  ControlServerOptions options;
  options.socket_path = server.socket_path();
  RunningServer replacement(options);
  ASSERT_TRUE(replacement.start_status()) << replacement.start_status().message();
  LineClient client;
  ASSERT_TRUE(client.Connect(server.socket_path()));
  EXPECT_EQ(client.Call(kStatus)->result, ResultCode::kSuccess);
}

TEST(ControlServerTest, CreatesMissingSocketDirectoryWithMode0750) {
  char pattern[] = "/tmp/smsupd-dir-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  std::string directory = std::string(pattern) + "/run";
  {
    ControlServerOptions options;
    options.socket_path = directory + "/smsupd.sock";
    RunningServer server(options);
    ASSERT_TRUE(server.start_status()) << server.start_status().message();
    struct stat info {};
    ASSERT_EQ(stat(directory.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0750u);
    ASSERT_EQ(stat(options.socket_path.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, 0660u);
  }
  std::filesystem::remove_all(pattern);
}

// Under systemd's RuntimeDirectory= the directory exists as root:root 0750:
// it was "left as it is", so members of control.group could never reach the
// socket.
TEST(ControlServerTest, APrivateSocketDirectoryGetsTheControlGroup) {
  ASSERT_EQ(geteuid(), 0u) << "runs as root, to change a directory's group";
  auto control_group = testbed::TemporaryGroup::Create("smsupd-sd");
  ASSERT_TRUE(control_group.ok()) << control_group.error().message;
  char pattern[] = "/tmp/smsupd-dir-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  std::string directory = std::string(pattern) + "/run";
  ASSERT_EQ(mkdir(directory.c_str(), 0750), 0);
  ASSERT_EQ(chown(directory.c_str(), 0, 0), 0);
  {
    ControlServerOptions options;
    options.socket_path = directory + "/smsupd.sock";
    options.group = (*control_group)->name();
    RunningServer server(options);
    ASSERT_TRUE(server.start_status()) << server.start_status().message();
    struct stat info {};
    ASSERT_EQ(stat(directory.c_str(), &info), 0);
    EXPECT_EQ(info.st_gid, *LookupGroup((*control_group)->name()));
    EXPECT_EQ(info.st_mode & 07777, 0750u);
  }
  std::filesystem::remove_all(pattern);
}

// Anyone who can write to the directory could replace the socket.
TEST(ControlServerTest, ASocketDirectoryOthersCanWriteOrOwnIsRefused) {
  char pattern[] = "/tmp/smsupd-dir-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(pattern));
  std::string directory = std::string(pattern) + "/run";
  ASSERT_EQ(mkdir(directory.c_str(), 0777), 0);
  ASSERT_EQ(chmod(directory.c_str(), 0777), 0);
  ControlServerOptions options;
  options.socket_path = directory + "/smsupd.sock";
  {
    RunningServer writable(options);
    EXPECT_FALSE(writable.start_status());
    EXPECT_NE(writable.start_status().message().find("writable by others"), std::string::npos)
        << writable.start_status().message();
  }
  ASSERT_EQ(chmod(directory.c_str(), 0750), 0);
  ASSERT_EQ(chown(directory.c_str(), 65534, 65534), 0);
  {
    RunningServer foreign(options);
    EXPECT_FALSE(foreign.start_status());
    EXPECT_NE(foreign.start_status().message().find("owned by uid 65534"), std::string::npos)
        << foreign.start_status().message();
  }
  std::filesystem::remove_all(pattern);
}

// One connection that pipelines requests and never reads the replies: the
// daemon read every request and queued every reply (60,000 status requests
// took it from 8 to 66 MB). Now it stops reading while a reply waits, and a
// reply nobody takes within the idle timeout closes the connection.
TEST(ControlServerTest, PipelinedRequestsNeverReadHoldOneReplyAtMost) {
  ControlServerOptions options;
  options.idle_timeout = std::chrono::milliseconds(500);
  RunningServer server(options);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, server.socket_path().c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  std::string batch;
  for (int i = 0; i < 100; ++i) batch += std::string(kStatus) + "\n";
  std::size_t sent_requests = 0;
  auto stop_at = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (sent_requests < 60000 && std::chrono::steady_clock::now() < stop_at) {
    ssize_t n = send(fd, batch.data(), batch.size(), MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(batch.size())) {
      sent_requests += 100;
    } else {
      if (n > 0) break;  // part of a batch: the socket is full
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // full; try again
    }
  }
  ASSERT_GE(sent_requests, 100u) << "nothing pipelined";
  // What the daemon holds for this client: at most one reply and one read
  // chunk, whatever the number of requests waiting in the socket.
  EXPECT_LT(server.BufferedBytes(), 64u * 1024) << sent_requests << " requests sent";
  EXPECT_TRUE(WaitFor([&] { return server.ConnectionCount() == 0; }))
      << "a client that never reads keeps its connection";
  close(fd);
}

TEST(ControlServerTest, OnlyAPlanMayCarryALongLineAndOnlyWithinTheBudget) {
  ControlServerOptions options;
  options.max_request_bytes = 1024;
  options.max_upload_bytes = 64 * 1024;
  options.upload_budget_bytes = 100 * 1024;
  RunningServer server(options);
  const std::string text(40 * 1024, 'y');
  LineClient planner;
  ASSERT_TRUE(planner.Connect(server.socket_path()));
  auto plan = planner.Call(R"({"version":1,"command":"plan","arguments":{"yaml":")" + text + R"("}})");
  ASSERT_TRUE(plan);
  EXPECT_NE(plan->result, ResultCode::kTooLarge) << "a plan's text is allowed past the request size";

  LineClient other;
  ASSERT_TRUE(other.Connect(server.socket_path()));
  auto status = other.Call(R"({"version":1,"command":"status","arguments":{"x":")" + text + R"("}})");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kTooLarge);

  // Two half-sent long lines hold the budget: a third is refused, not buffered.
  LineClient first, second, third;
  for (LineClient* client : {&first, &second, &third}) ASSERT_TRUE(client->Connect(server.socket_path()));
  first.Send(std::string(R"({"version":1,"command":"plan","arguments":{"yaml":")") + std::string(50 * 1024, 'z'));
  second.Send(std::string(R"({"version":1,"command":"plan","arguments":{"yaml":")") + std::string(50 * 1024, 'z'));
  ASSERT_TRUE(WaitFor([&] { return server.BufferedBytes() > 90 * 1024; }));
  third.Send(std::string(R"({"version":1,"command":"plan","arguments":{"yaml":")") + std::string(50 * 1024, 'z'));
  auto refused = third.ReadLine();
  ASSERT_TRUE(refused);
  EXPECT_EQ(ParseResponse(*refused)->result, ResultCode::kBusy) << *refused;
}

// A million nested brackets in a group member's plan request: refused as a
// bad request while it is parsed, before anything recursive touches it (a
// copy or a dump of such a value overflows the stack), and the server goes on.
TEST(ControlServerTest, ADeeplyNestedRequestIsRefusedAndTheServerGoesOn) {
  RunningServer server;
  server.access = AccessLevel::kReadOnly;
  const std::size_t depth = 1'000'000;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  LineClient member;
  ASSERT_TRUE(member.Connect(server.socket_path()));
  auto plan = member.Call(R"({"version":1,"command":"plan","arguments":{"yaml":"x","x":)" + deep + "}}");
  ASSERT_TRUE(plan) << "the server closed the connection or died";
  EXPECT_EQ(plan->result, ResultCode::kBadRequest);
  EXPECT_NE(plan->text.find("nests deeper than"), std::string::npos) << plan->text;
  auto status = member.Call(std::string(R"({"version":1,"command":"status","arguments":)") +
                            std::string(100, '[') + std::string(100, ']') + "}");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->result, ResultCode::kBadRequest);
  EXPECT_TRUE(server.handler.requests().empty());
  LineClient other;
  ASSERT_TRUE(other.Connect(server.socket_path()));
  EXPECT_EQ(other.Call(kStatus)->result, ResultCode::kSuccess);
}

}  // namespace
}  // namespace smsupd::control
