// The real smctl binary against a ControlServer with a fake handler: what an
// operator or a script sees (output, the --json envelope, exit codes).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/daemon/control/control_test_support.h"
#include "tests/smctl/smctl_runner.h"
#include "common/control_wire.h"
#include "smctl/control_client.h"

namespace smsupd::smctl {
namespace {

using control::AccessLevel;
using control::MakeResponse;
using control::ResultCode;
using control::testing::RunningServer;
using control::testing::WaitFor;
using testing::RunSmctl;
using testing::SmctlProcess;
using testing::SmctlResult;

// smctl's one exit-code table (docs/smctl.md "Exit codes").
constexpr int kOk = 0, kFailed = 1, kUsage = 2, kUnreachable = 3, kInvalid = 4, kPlanRefused = 5,
              kUnreadable = 6;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SmctlTest, StatusPrintsATable) {
  RunningServer server;
  auto result = RunSmctl({"--socket", server.socket_path(), "status"});
  EXPECT_EQ(result.exit_code, kOk) << result.err;
  EXPECT_TRUE(Contains(result.out, "Node      mgmt-a")) << result.out;
  EXPECT_TRUE(Contains(result.out, "pid 4242, up 1h02m05s, 1 restart")) << result.out;
  EXPECT_TRUE(Contains(result.out, "(this node)")) << result.out;
  EXPECT_TRUE(Contains(result.out, "Health    healthy")) << result.out;
  EXPECT_TRUE(Contains(result.out, "0x0002c90300a1b2d4      7  STANDBY         5  mgmt-b"))
      << result.out;
}

TEST(SmctlTest, MetricsPrintsTheExpositionAsIs) {
  RunningServer server;
  auto result = RunSmctl({"--socket", server.socket_path(), "metrics"});
  EXPECT_EQ(result.exit_code, kOk) << result.err;
  EXPECT_EQ(result.out, server.handler.metrics_exposition);
  auto json = RunSmctl({"--socket", server.socket_path(), "metrics", "--json"});
  EXPECT_EQ(json.exit_code, kOk) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["arguments"]["exposition"], server.handler.metrics_exposition);
}

TEST(SmctlTest, StatusShowsProblems) {
  RunningServer server;
  server.handler.status.problems = {{"NO_STANDBY", "no standby SM: no redundancy", "2026-12-02T17:00:00.000Z"}};
  server.handler.status.master.reset();
  auto result = RunSmctl({"--socket", server.socket_path(), "status"});
  EXPECT_EQ(result.exit_code, kOk) << result.err;
  EXPECT_TRUE(Contains(result.out, "Health    1 problem")) << result.out;
  EXPECT_TRUE(Contains(result.out, "NO_STANDBY")) << result.out;
  EXPECT_TRUE(Contains(result.out, "Master    none seen")) << result.out;
}

TEST(SmctlTest, StatusJsonIsTheWireForm) {
  RunningServer server;
  for (auto args : {std::vector<std::string>{"--socket", server.socket_path(), "status", "--json"},
                    std::vector<std::string>{"--json", "--socket", server.socket_path(), "status"}}) {
    auto result = RunSmctl(args);
    ASSERT_EQ(result.exit_code, kOk) << result.err;
    auto json = nlohmann::json::parse(result.out);
    EXPECT_EQ(json["local_sm"]["state"], "MASTER");
    EXPECT_EQ(json["local_sm"]["guid"], "0x0002c90300a1b2c3");
    EXPECT_EQ(json["master"]["priority"], 15);
    EXPECT_EQ(json["sms"].size(), 2u);
    EXPECT_EQ(json["config"]["generation"], 3);
    EXPECT_TRUE(json["health"]["problems"].is_array());
  }
}

TEST(SmctlTest, SocketFromEnvironment) {
  RunningServer server;
  auto result = RunSmctl({"status"}, {{"SMSUPD_SOCKET", server.socket_path()}});
  EXPECT_EQ(result.exit_code, kOk) << result.err;
}

// smsupd@NAME.service reads /etc/smsupd/NAME.yaml; `smctl -i NAME` finds
// the socket that file names (SMSUPD_CONFIG_DIR stands in for /etc/smsupd).
TEST(SmctlTest, InstanceNameFindsTheSocketItsConfigNames) {
  RunningServer server;
  const std::string dir = server.directory();
  std::ofstream(dir + "/fabric-b.yaml") << "version: 1\ncontrol:\n  socket: " << server.socket_path() << "\n";
  std::map<std::string, std::string> env = {{"SMSUPD_CONFIG_DIR", dir},
                                            {"SMSUPD_SOCKET", dir + "/elsewhere.sock"}};
  auto found = RunSmctl({"-i", "fabric-b", "status"}, env);
  EXPECT_EQ(found.exit_code, kOk) << found.err;
  EXPECT_EQ(RunSmctl({"--instance", "fabric-b", "--json", "version"}, env).exit_code, kOk);

  // No readable config: the packaged convention, /run/smsupd-NAME/smsupd.sock.
  auto convention = RunSmctl({"-i", "ghost", "status"}, env);
  EXPECT_EQ(convention.exit_code, kUnreachable);
  EXPECT_TRUE(Contains(convention.err, "/run/smsupd-ghost/smsupd.sock")) << convention.err;
  // A config without control.socket: the daemon's default socket.
  std::ofstream(dir + "/plain.yaml") << "version: 1\n";
  auto plain = RunSmctl({"-i", "plain", "status"}, env);
  EXPECT_TRUE(Contains(plain.err, "/run/smsupd/smsupd.sock")) << plain.err;

  EXPECT_EQ(RunSmctl({"-i", "../etc/passwd", "status"}, env).exit_code, kUsage);
  EXPECT_EQ(RunSmctl({"-i", "fabric-b", "--socket", server.socket_path(), "status"}, env).exit_code, kUsage);
}

TEST(SmctlTest, UnreachableDaemonExits3) {
  RunningServer server({}, /*start=*/false);
  auto missing = RunSmctl({"--socket", server.directory() + "/nothing.sock", "status"});
  EXPECT_EQ(missing.exit_code, kUnreachable);
  EXPECT_TRUE(Contains(missing.err, "does not exist")) << missing.err;

  std::string stale = server.directory() + "/stale.sock";  // a socket file nobody serves
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, stale.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  close(fd);
  auto refused = RunSmctl({"--socket", stale, "version"});
  EXPECT_EQ(refused.exit_code, kUnreachable);
  EXPECT_TRUE(Contains(refused.out, "smctl ")) << "smctl still reports its own version";
}

TEST(SmctlTest, NoAnswerInTimeExits3) {
  RunningServer server;
  auto result = RunSmctl({"--socket", server.socket_path(), "reload", "--wait", "--timeout", "0.1"});
  EXPECT_EQ(result.exit_code, kUnreachable);
  EXPECT_TRUE(Contains(result.err, "no answer")) << result.err;
}

TEST(SmctlTest, UsageErrorsExit2) {
  for (auto args : {std::vector<std::string>{},
                    std::vector<std::string>{"frobnicate"},
                    std::vector<std::string>{"events", "--since", "abc"},
                    std::vector<std::string>{"status", "--bogus"},
                    std::vector<std::string>{"render", "x.yaml"},
                    std::vector<std::string>{"reload", "--timeout", "0"}}) {
    auto result = RunSmctl(args);
    EXPECT_EQ(result.exit_code, kUsage) << args.size() << " " << result.err;
  }
  EXPECT_EQ(RunSmctl({"--help"}).exit_code, kOk);
}

// The daemon runs as root and opens no path a caller names: smctl sends the
// file's text, however large (above 60 KiB it sent the path).
TEST(SmctlTest, PlanSendsTheTextOfALargeFile) {
  RunningServer server;
  std::string file = server.directory() + "/big.yaml";
  std::string text = "version: 1\n# " + std::string(300 * 1024, 'x') + "\n";
  std::ofstream(file) << text;
  RunSmctl({"--socket", server.socket_path(), "plan", file});
  auto requests = server.handler.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].first.command, "plan");
  ASSERT_TRUE(requests[0].first.arguments.contains("yaml"));
  EXPECT_EQ(requests[0].first.arguments["yaml"].get<std::string>(), text);
}

TEST(SmctlTest, ReloadSucceedsOrFailsWithTheDaemonsText) {
  RunningServer server;
  auto ok = RunSmctl({"--socket", server.socket_path(), "reload", "--restart"});
  EXPECT_EQ(ok.exit_code, kOk) << ok.err;
  EXPECT_TRUE(Contains(ok.out, "config generation 4 applied"));
  auto requests = server.handler.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests.back().first.arguments["restart"], true);

  server.handler.reload_response =
      MakeResponse(ResultCode::kError, "smsupd.yaml:3:9: error: sm.role: 'boss' is not valid");
  auto failed = RunSmctl({"--socket", server.socket_path(), "reload"});
  EXPECT_EQ(failed.exit_code, kFailed);
  EXPECT_TRUE(Contains(failed.err, "sm.role")) << failed.err;
  auto json = RunSmctl({"--socket", server.socket_path(), "reload", "--json"});
  EXPECT_EQ(json.exit_code, kFailed);
  EXPECT_EQ(nlohmann::json::parse(json.out)["result"], 1);
}

TEST(SmctlTest, RefusedCommandExits1WithReason) {
  RunningServer server;
  server.access = AccessLevel::kReadOnly;
  auto reload = RunSmctl({"--socket", server.socket_path(), "reload"});
  EXPECT_EQ(reload.exit_code, kFailed);
  EXPECT_TRUE(Contains(reload.err, "permission denied")) << reload.err;
  EXPECT_EQ(RunSmctl({"--socket", server.socket_path(), "status"}).exit_code, kOk);
  server.access = AccessLevel::kNone;
  auto status = RunSmctl({"--socket", server.socket_path(), "status", "--json"});
  EXPECT_EQ(status.exit_code, kFailed);
  EXPECT_EQ(nlohmann::json::parse(status.out)["result"], 4);
}

TEST(SmctlTest, EventsListAndSince) {
  RunningServer server;
  server.OnLoop([&] {
    server.events.Append(control::kEventOpenSmStarted, {{"pid", 4242}});
    return server.events.Append(control::kEventMasterChanged, {{"guid", "0x0000000000000002"}});
  });
  auto table = RunSmctl({"--socket", server.socket_path(), "events"});
  EXPECT_EQ(table.exit_code, kOk) << table.err;
  EXPECT_TRUE(Contains(table.out, "opensm-started")) << table.out;
  EXPECT_TRUE(Contains(table.out, "pid=4242")) << table.out;
  auto json = RunSmctl({"--socket", server.socket_path(), "events", "--since", "1", "--json"});
  EXPECT_EQ(json.exit_code, kOk) << json.err;
  std::istringstream lines(json.out);
  std::string line;
  std::vector<nlohmann::json> events;
  while (std::getline(lines, line)) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["seq"], 2);
  EXPECT_EQ(events[0]["kind"], "master-changed");
}

// An event's text holding an escape sequence (from a daemon that did not
// clean it, or a hostile one on the socket) is shown, not obeyed.
TEST(SmctlTest, EventsNeverWriteAControlCharacterToTheTerminal) {
  RunningServer server;
  server.OnLoop([&] {
    return server.events.Append(control::kEventPKeyVerifyFailed,
                                {{"text", "port \x1b]0;owned\x07 \x1b[31mred \xc2\x9b" "2J"}});
  });
  for (const char* mode : {"", "--json"}) {
    std::vector<std::string> args = {"--socket", server.socket_path(), "events"};
    if (*mode) args.push_back(mode);
    auto out = RunSmctl(args);
    EXPECT_EQ(out.exit_code, kOk) << out.err;
    for (unsigned char c : out.out) EXPECT_TRUE(c >= 0x20 || c == '\n' || c == '\t') << mode << ": " << out.out;
    EXPECT_EQ(out.out.find("\xc2\x9b"), std::string::npos) << mode << ": " << out.out;
  }
}

TEST(SmctlTest, EventsFollowStreamsOneJsonObjectPerLine) {
  auto server = std::make_unique<RunningServer>();
  SmctlProcess follower({"--socket", server->socket_path(), "events", "--follow", "--json"});
  ASSERT_TRUE(WaitFor([&] {
    return server->OnLoop([&] { return server->events.subscriber_count(); }) == 1;
  }));
  server->OnLoop([&] {
    for (int i = 1; i <= 3; ++i) server->events.Append(control::kEventSmStateChanged, {{"i", i}});
    return 0;
  });
  ASSERT_TRUE(WaitFor([&] {
    auto text = follower.OutputSoFar();
    return std::count(text.begin(), text.end(), '\n') == 3;
  }));
  server.reset();  // the daemon goes away: the follower ends as "unreachable"
  auto result = follower.Wait();
  EXPECT_EQ(result.exit_code, kUnreachable) << result.err;
  std::istringstream lines(result.out);
  std::string line;
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(std::getline(lines, line));
    auto event = nlohmann::json::parse(line);
    EXPECT_EQ(event["seq"], i);
    EXPECT_EQ(event["details"]["i"], i);
  }
}

// A stand-in daemon on `path` that answers one request with `reply` (sent
// in pieces) and keeps the connection open until the client closes it.
class RawReplyServer {
 public:
  RawReplyServer(const std::string& path, std::string reply) : reply_(std::move(reply)) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    bound_ = bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
             listen(listener_, 1) == 0;
    thread_ = std::thread([this] { Serve(); });
  }
  ~RawReplyServer() {
    thread_.join();
    close(listener_);
  }
  bool bound() const { return bound_; }

 private:
  void Serve() {
    if (!bound_) return;
    int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) return;
    char c;
    while (recv(fd, &c, 1, 0) == 1 && c != '\n') {}  // the request line
    for (std::size_t sent = 0; sent < reply_.size();) {
      ssize_t n = send(fd, reply_.data() + sent, std::min<std::size_t>(reply_.size() - sent, 100000), MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    while (recv(fd, &c, 1, 0) == 1) {}  // until the client hangs up
    close(fd);
  }

  std::string reply_;
  int listener_ = -1;
  bool bound_ = false;
  std::thread thread_;
};

TEST(SmctlClientTest, AReplyLineIsReadWholeAcrossManyReads) {
  RunningServer server({}, /*start=*/false);
  const std::string path = server.directory() + "/raw.sock";
  const std::string text(700000, 'p');  // ~11 reads of 64 KiB
  RawReplyServer daemon(path, control::SerializeResponse(MakeResponse(ResultCode::kSuccess, text)) + "\n");
  ASSERT_TRUE(daemon.bound());
  ControlClient client(path, std::chrono::milliseconds(20000), 1u << 20);
  std::optional<control::Response> reply = client.Call(control::Request{.command = "status"});
  ASSERT_TRUE(reply) << client.error().message;
  EXPECT_EQ(reply->text, text);
}

TEST(SmctlClientTest, AReplyLineLongerThanTheBoundIsRefused) {
  RunningServer server({}, /*start=*/false);
  const std::string path = server.directory() + "/raw.sock";
  RawReplyServer daemon(path, std::string(3u << 20, 'x'));  // 3 MiB and no end of line
  ASSERT_TRUE(daemon.bound());
  ControlClient client(path, std::chrono::milliseconds(20000), 1u << 20);
  EXPECT_FALSE(client.Call(control::Request{.command = "status"}));
  EXPECT_EQ(client.error().code, "bad-reply") << client.error().message;
  EXPECT_EQ(client.error().exit_code, kFailed);
  EXPECT_TRUE(Contains(client.error().message, "longer than 1 MiB")) << client.error().message;
}

TEST(SmctlTest, VersionAndListCommands) {
  RunningServer server;
  auto version = RunSmctl({"--socket", server.socket_path(), "version"});
  EXPECT_EQ(version.exit_code, kOk) << version.err;
  EXPECT_TRUE(Contains(version.out, "protocol 1")) << version.out;
  auto list = RunSmctl({"--socket", server.socket_path(), "list-commands"});
  EXPECT_EQ(list.exit_code, kOk);
  EXPECT_TRUE(Contains(list.out, "rollback")) << list.out;
  auto json = RunSmctl({"--socket", server.socket_path(), "list-commands", "--json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["commands"][2]["name"], "status");
}

// --version answers without a daemon: a script can ask which smctl it has
// on a node where smsupd is down.
TEST(SmctlTest, VersionFlagNeedsNoDaemon) {
  auto version = RunSmctl({"--socket", "/nonexistent/smsupd.sock", "--version"});
  EXPECT_EQ(version.exit_code, kOk) << version.err;
  EXPECT_EQ(version.out.rfind("smctl ", 0), 0u) << version.out;
  EXPECT_TRUE(Contains(version.out, "(protocol 1)")) << version.out;
  EXPECT_EQ(RunSmctl({"--version"}).out, version.out);
}

TEST(SmctlTest, GlobalOptionsAreAcceptedAfterTheCommand) {
  RunningServer server;
  auto after = RunSmctl({"status", "--socket", server.socket_path(), "--json"});
  EXPECT_EQ(after.exit_code, kOk) << after.err;
  EXPECT_TRUE(nlohmann::json::parse(after.out, nullptr, false).is_object()) << after.out;
  auto mixed = RunSmctl({"--json", "version", "--socket", server.socket_path()});
  EXPECT_EQ(mixed.exit_code, kOk) << mixed.err;
  EXPECT_TRUE(nlohmann::json::parse(mixed.out, nullptr, false).contains("daemon")) << mixed.out;
  // Still one socket: --instance and --socket exclude each other wherever they stand.
  EXPECT_EQ(RunSmctl({"status", "--socket", server.socket_path(), "-i", "b"}).exit_code, kUsage);
}

// The keys every --json output has, whatever the command and whether it
// worked (docs/smctl.md "JSON output"); `exit_code` is smctl's own.
void ExpectEnvelope(const SmctlResult& result, const std::string& command, int exit_code,
                    const std::string& error_code) {
  SCOPED_TRACE(command + ": " + result.out + result.err);
  EXPECT_EQ(result.exit_code, exit_code);
  if (command == "events") {
    ASSERT_EQ(std::count(result.out.begin(), result.out.end(), '\n'), 1) << "JSON Lines";
  }
  auto json = nlohmann::json::parse(result.out, nullptr, false);
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(json["command"], command);
  EXPECT_EQ(json["exit_code"], exit_code);
  EXPECT_EQ(json["ok"], error_code.empty());
  if (error_code.empty()) {
    EXPECT_TRUE(json["error"].is_null());
  } else {
    EXPECT_EQ(json["error"]["code"], error_code);
    EXPECT_FALSE(json["error"]["message"].get<std::string>().empty());
  }
  EXPECT_TRUE(json.contains("result"));
  EXPECT_TRUE(json["text"].is_string());
  EXPECT_TRUE(json["arguments"].is_object());
}

TEST(SmctlTest, EveryCommandsJsonIsOneEnvelope) {
  RunningServer server;
  auto& responses = server.handler.responses;
  responses["plan"] = MakeResponse(ResultCode::kSuccess, "no change", {{"changed", false}, {"valid", true}});
  responses["history"] = MakeResponse(ResultCode::kSuccess, "1 generation(s); current 1",
                                      {{"current", 1}, {"generations", nlohmann::json::array()}});
  responses["rollback"] = MakeResponse(ResultCode::kSuccess, "generation 2 applied", {{"generation", 2}});
  responses["failover"] = MakeResponse(ResultCode::kSuccess, "handed over", {{"to", "0x0002c90300a1b2d4"}});
  responses["restart-opensm"] = MakeResponse(ResultCode::kSuccess, "restarted", nlohmann::json::object());
  responses["version"] = MakeResponse(ResultCode::kSuccess, "", {{"daemon", "0.1.0"}, {"protocol", 1}});
  responses["list-commands"] = MakeResponse(ResultCode::kSuccess, "", {{"commands", nlohmann::json::array()}});
  std::string file = server.directory() + "/candidate.yaml";
  std::ofstream(file) << "version: 1\n";
  for (auto command : std::vector<std::vector<std::string>>{
           {"status"}, {"reload"}, {"plan", file}, {"history"}, {"rollback"}, {"failover"},
           {"restart-opensm"}, {"metrics"}, {"version"}, {"list-commands"}}) {
    std::vector<std::string> args = {"--socket", server.socket_path()};
    args.insert(args.end(), command.begin(), command.end());
    args.push_back("--json");
    ExpectEnvelope(RunSmctl(args), command[0], kOk, "");
  }
  // The command's own keys stay where scripts found them before.
  auto status = nlohmann::json::parse(RunSmctl({"--socket", server.socket_path(), "status", "--json"}).out);
  EXPECT_EQ(status["local_sm"]["state"], "MASTER");
  auto rollback = nlohmann::json::parse(RunSmctl({"--socket", server.socket_path(), "rollback", "--json"}).out);
  EXPECT_EQ(rollback["generation"], 2);
  EXPECT_EQ(rollback["arguments"]["generation"], 2);
  EXPECT_EQ(rollback["text"], "generation 2 applied");
}

TEST(SmctlTest, FailuresAreEnvelopesToo) {
  RunningServer server;
  std::string missing_socket = server.directory() + "/nothing.sock";
  ExpectEnvelope(RunSmctl({"--socket", missing_socket, "status", "--json"}), "status", kUnreachable,
                 "unreachable");
  ExpectEnvelope(RunSmctl({"--socket", missing_socket, "events", "--json"}), "events", kUnreachable,
                 "unreachable");
  ExpectEnvelope(RunSmctl({"status", "--bogus", "--json"}), "status", kUsage, "usage");
  ExpectEnvelope(RunSmctl({"--json", "frobnicate"}), "", kUsage, "usage");
  ExpectEnvelope(RunSmctl({"reload", "--timeout", "0", "--json"}), "reload", kUsage, "usage");
  server.access = AccessLevel::kReadOnly;
  ExpectEnvelope(RunSmctl({"--socket", server.socket_path(), "reload", "--json"}), "reload", kFailed,
                 "permission-denied");
  server.access = AccessLevel::kFull;
  server.handler.reload_response = MakeResponse(ResultCode::kError, "verification failed; rolled back");
  ExpectEnvelope(RunSmctl({"--socket", server.socket_path(), "reload", "--json"}), "reload", kFailed,
                 "error");
  // A reply of the wrong shape is a failure with a reason, never an abort.
  server.handler.responses["plan"] = MakeResponse(ResultCode::kSuccess, "", {{"changed", "yes"}});
  std::string file = server.directory() + "/candidate.yaml";
  std::ofstream(file) << "version: 1\n";
  ExpectEnvelope(RunSmctl({"--socket", server.socket_path(), "plan", file, "--exit-code", "--json"}),
                 "plan", kFailed, "bad-reply");
}

// Usage, unreadable and invalid are told apart the same way in every
// command that reads a config: 2, 6, 4.
TEST(SmctlTest, OneExitCodeTableForEveryCommand) {
  RunningServer server;
  const std::string dir = server.directory();
  const std::string socket = server.socket_path();
  const std::string missing = dir + "/missing.yaml";
  std::string invalid = dir + "/invalid.yaml";
  std::ofstream(invalid) << "version: 1\nsm:\n  role: boss\n";
  // The daemon refuses the invalid candidate as the real one does.
  server.handler.responses["plan"] = MakeResponse(
      ResultCode::kError, invalid + ": 1 error(s); nothing would be applied",
      {{"valid", false}, {"unreadable", false}, {"changed", false}});
  server.handler.reload_response = MakeResponse(
      ResultCode::kError, "smsupd.yaml: 1 error(s); nothing changed", {{"valid", false}, {"unreadable", false}});
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {{"validate", missing}, kUnreadable, "unreadable"},
           {{"render", missing, "--out", dir}, kUnreadable, "unreadable"},
           {{"plan", missing}, kUnreadable, "unreadable"},
           {{"plan", missing, "--exit-code"}, kUnreadable, "unreadable"},
           {{"validate", invalid}, kInvalid, "invalid"},
           {{"render", invalid, "--out", dir}, kInvalid, "invalid"},
           {{"plan", invalid}, kInvalid, "invalid"},
           {{"plan", invalid, "--exit-code"}, kInvalid, "invalid"},
           {{"reload"}, kInvalid, "invalid"},
           {{"validate"}, kUsage, "usage"},
           {{"render", invalid}, kUsage, "usage"},
           {{"plan", "--bogus"}, kUsage, "usage"},
           {{"reload", "--timeout", "x"}, kUsage, "usage"}}) {
    std::vector<std::string> args = {"--socket", socket};
    args.insert(args.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(RunSmctl(args).exit_code, c.exit_code) << c.args[0] << " " << c.args.back();
    args.push_back("--json");
    ExpectEnvelope(RunSmctl(args), c.args[0], c.exit_code, c.error);
  }
  // plan --exit-code: 1 means "changes" (as git diff), so a refusal is 5.
  server.handler.responses["plan"] = MakeResponse(ResultCode::kApplyInProgress, "busy");
  std::string good = dir + "/good.yaml";
  std::ofstream(good) << "version: 1\n";
  EXPECT_EQ(RunSmctl({"--socket", socket, "plan", good, "--exit-code"}).exit_code, kPlanRefused);
  EXPECT_EQ(RunSmctl({"--socket", socket, "plan", good}).exit_code, kFailed);
  server.handler.responses["plan"] = MakeResponse(ResultCode::kSuccess, "1 partition added", {{"changed", true}});
  EXPECT_EQ(RunSmctl({"--socket", socket, "plan", good, "--exit-code"}).exit_code, 1);
  ExpectEnvelope(RunSmctl({"--socket", socket, "plan", good, "--exit-code", "--json"}), "plan", 1, "");
  EXPECT_EQ(RunSmctl({"--socket", socket, "plan", good}).exit_code, kOk);
}

class OfflineCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/smctl-offline-XXXXXX";
    ASSERT_TRUE(mkdtemp(pattern));
    directory_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(directory_ + "/" + name) << text;
    return directory_ + "/" + name;
  }
  std::string directory_;
};

constexpr char kValidConfig[] = R"(version: 1
node: mgmt-a
sm:
  port_guid: 0x0002c90300a1b2c3
  role: master
partitions:
  - name: Default
    pkey: 0x7fff
    members:
      - { ports: ALL, membership: full }
)";

// No daemon anywhere: validate and render never touch the socket.
TEST_F(OfflineCommandsTest, ValidateAndRenderWorkWithoutADaemon) {
  std::map<std::string, std::string> env = {{"SMSUPD_SOCKET", directory_ + "/none.sock"}};
  std::string good = Write("good.yaml", kValidConfig);
  EXPECT_EQ(RunSmctl({"validate", good}, env).exit_code, kOk);
  auto bad = RunSmctl({"validate", Write("bad.yaml", "version: 1\nsm:\n  role: boss\n"), "--json"}, env);
  EXPECT_EQ(bad.exit_code, kInvalid);
  EXPECT_EQ(nlohmann::json::parse(bad.out)["valid"], false);
  EXPECT_EQ(RunSmctl({"validate", directory_ + "/missing.yaml"}, env).exit_code, kUnreadable);
  auto render = RunSmctl({"render", good, "--out", directory_}, env);
  EXPECT_EQ(render.exit_code, kOk) << render.err;
  EXPECT_TRUE(std::filesystem::exists(directory_ + "/opensm.conf"));
  EXPECT_TRUE(std::filesystem::exists(directory_ + "/partitions.conf"));
}

// import, through smctl's own command line: the YAML on stdout and the
// findings on stderr, its own exit codes (0 clean, 1 findings, 2 a file
// unreadable or usage), no daemon, and a key never shown.
TEST_F(OfflineCommandsTest, ImportReadsOpenSmFilesWithoutADaemon) {
  std::map<std::string, std::string> env = {{"SMSUPD_SOCKET", directory_ + "/none.sock"}};
  std::string conf = Write("opensm.conf", "guid 0x0002c90300a1b2c3\nsm_priority 15\n");
  std::string partitions = Write("partitions.conf", "Default=0x7fff, ipoib : ALL=full ;\n");
  auto clean = RunSmctl({"import", "--opensm-conf", conf, "--partitions", partitions, "--check"}, env);
  EXPECT_EQ(clean.exit_code, kOk) << clean.err;
  EXPECT_TRUE(Contains(clean.out, "version: 1"));
  EXPECT_TRUE(Contains(clean.err, "every P_Key table equal"));
  std::string guide = Write("guide.conf", "P_KEY_ENABLE=1\nsm_key 0x1a2b3c4d5e6f7081\n");
  auto warned = RunSmctl({"import", "--opensm-conf", guide, "--partitions", partitions, "--out", directory_ + "/i.yaml"}, env);
  EXPECT_EQ(warned.exit_code, 1);
  EXPECT_TRUE(Contains(warned.err, guide + ":1: warning: 'P_KEY_ENABLE' is not an OpenSM option")) << warned.err;
  EXPECT_TRUE(std::filesystem::exists(directory_ + "/i.yaml"));
  EXPECT_FALSE(Contains(warned.out + warned.err, "1a2b3c4d5e6f7081")) << "no key in the output";
  EXPECT_EQ(RunSmctl({"import", "--partitions", directory_ + "/missing.conf"}, env).exit_code, 2);
  EXPECT_EQ(RunSmctl({"import"}, env).exit_code, kUsage);
  EXPECT_EQ(RunSmctl({"import", "--partitions"}, env).exit_code, kUsage);
}

// render --json does what it says: it writes the files and reports each
// (path, mode, size, sha256), never their text: opensm.conf holds the keys.
TEST_F(OfflineCommandsTest, RenderJsonReportsTheFilesItWrote) {
  std::string key_file = Write("sm.key", "0x1a2b3c4d5e6f7081\n");
  std::filesystem::permissions(key_file, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  std::string config = std::string(kValidConfig);
  config.insert(config.find("  role: master\n"), "  sm_key_file: " + key_file + "\n");
  std::string file = Write("keyed.yaml", config);
  std::string out_dir = directory_ + "/out";
  std::filesystem::create_directory(out_dir);
  auto render = RunSmctl({"render", file, "--out", out_dir, "--json"});
  ExpectEnvelope(render, "render", kOk, "");
  auto json = nlohmann::json::parse(render.out);
  ASSERT_EQ(json["files"].size(), 3u);
  EXPECT_EQ(json["files"][0]["path"], out_dir + "/opensm.conf");
  EXPECT_EQ(json["files"][0]["mode"], "0600");
  EXPECT_EQ(json["files"][1]["path"], out_dir + "/partitions.conf");
  EXPECT_EQ(json["files"][2]["path"], out_dir + "/node-name-map");
  EXPECT_EQ(json["files"][2]["mode"], "0644");
  EXPECT_EQ(json["files"][0]["sha256"].get<std::string>().size(), 64u);
  EXPECT_TRUE(json["config_hash"].is_string());
  EXPECT_TRUE(json["valid"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(out_dir + "/partitions.conf"));
  EXPECT_FALSE(Contains(render.out + render.err, "1a2b3c4d5e6f7081")) << "no key in the output";
  // A directory that is not there: nothing written, a failure with the reason.
  ExpectEnvelope(RunSmctl({"render", file, "--out", directory_ + "/nowhere", "--json"}), "render",
                 kFailed, "write-failed");
}

}  // namespace
}  // namespace smsupd::smctl

namespace smsupd::smctl {
namespace {

// `why`: the answer is the exit code (0 yes, 1 no, which is not an error),
// an unknown name is 4 with error.code "unknown-name", and the text output
// starts with the answer.
TEST(SmctlWhyTest, ExitCodesTellYesNoAndUnknownNameApart) {
  RunningServer server;
  auto& responses = server.handler.responses;
  const nlohmann::json end = {{"name", "gpu01"}, {"guid", "0x0002c90300001031"}, {"lid", 9},
                              {"node_description", "gpu01 HCA-1"}, {"in_fabric", true}};
  const nlohmann::json partition = {{"pkey", "0x0030"}, {"name", "tenant-c"},
                                    {"a", {{"intent", "limited"}, {"fact", "limited"}}},
                                    {"b", {{"intent", "limited"}, {"fact", "limited"}}},
                                    {"usable", false}, {"limited_with_limited", true}, {"generation", 3}};
  const std::string no = "no: gpu01 is a limited member of 0x0030 (tenant-c) and stor01 too; they share no "
                         "partition with a full member";
  responses["why"] = MakeResponse(ResultCode::kSuccess, no,
                                  {{"answer", "no"}, {"reason", no.substr(4)}, {"a", end}, {"b", end},
                                   {"partitions", {partition}}, {"notes", nlohmann::json::array()}});
  auto text = RunSmctl({"--socket", server.socket_path(), "why", "gpu01", "stor01"});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_EQ(text.out.rfind(no + "\n", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("no (l/l)"), std::string::npos) << text.out;
  auto json = RunSmctl({"--socket", server.socket_path(), "why", "gpu01", "stor01", "--json"});
  ExpectEnvelope(json, "why", 1, "");
  auto parsed = nlohmann::json::parse(json.out);
  EXPECT_EQ(parsed["answer"], "no");
  EXPECT_EQ(parsed["partitions"][0]["pkey"], "0x0030");

  responses["why"] = MakeResponse(ResultCode::kSuccess, "yes: ...", {{"answer", "yes"}, {"reason", "..."}});
  ExpectEnvelope(RunSmctl({"--socket", server.socket_path(), "why", "a", "b", "--json"}), "why", 0, "");

  responses["why"] = MakeResponse(ResultCode::kError, "unknown name 'gpu1': ...; closest: gpu01",
                                  {{"error_code", "unknown-name"}, {"name", "gpu1"}, {"suggestions", {"gpu01"}}});
  auto unknown = RunSmctl({"--socket", server.socket_path(), "why", "gpu1", "b", "--json"});
  ExpectEnvelope(unknown, "why", 4, "unknown-name");
  EXPECT_NE(unknown.err.find("closest: gpu01"), std::string::npos) << unknown.err;
  ExpectEnvelope(RunSmctl({"--socket", server.socket_path(), "why", "only-one", "--json"}), "why", 2, "usage");
}

}  // namespace
}  // namespace smsupd::smctl
