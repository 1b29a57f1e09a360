// CommandRouter: command name -> the handler its subsystem registered.
#include "daemon/control/command_router.h"

#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

namespace smsupd::control {
namespace {

class CommandRouterTest : public ::testing::Test {
 protected:
  std::optional<Response> Call(const std::string& command) {
    std::optional<Response> answer;
    router_.Handle({kProtocolVersion, command, nlohmann::json::object()}, Caller{},
                   [&](Response response) { answer = std::move(response); });
    return answer;
  }
  CommandRouter router_;
};

TEST_F(CommandRouterTest, EveryCommandIsAnsweredStartingUntilOpen) {
  router_.Register("status", [](const Request&, const Caller&, CommandHandler::Reply reply) {
    reply(MakeResponse(ResultCode::kSuccess, "fine"));
  });
  auto early = Call("status");
  ASSERT_TRUE(early);
  EXPECT_EQ(early->result, ResultCode::kError);
  EXPECT_NE(early->text.find("starting"), std::string::npos);
  router_.Open();
  auto later = Call("status");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->result, ResultCode::kSuccess);
  EXPECT_EQ(later->text, "fine");
}

TEST_F(CommandRouterTest, AProtocolCommandNobodyRegisteredIsUnsupported) {
  router_.Open();
  auto answer = Call("rollback");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->result, ResultCode::kUnsupported);
  EXPECT_NE(answer->text.find("'rollback'"), std::string::npos);
}

TEST_F(CommandRouterTest, EachCommandReachesItsOwnHandler) {
  std::string seen;
  auto record = [&seen](const char* name) {
    return [&seen, name](const Request& request, const Caller&, CommandHandler::Reply reply) {
      seen = std::string(name) + ":" + request.command;
      reply(MakeResponse(ResultCode::kSuccess, ""));
    };
  };
  router_.Register("reload", record("apply"));
  router_.Register("failover", record("failover"));
  router_.Open();
  Call("failover");
  EXPECT_EQ(seen, "failover:failover");
  Call("reload");
  EXPECT_EQ(seen, "apply:reload");
  EXPECT_EQ(router_.Registered(), (std::vector<std::string>{"failover", "reload"}));
}

TEST_F(CommandRouterTest, OnlyDaemonCommandsOfTheProtocolCanBeRegistered) {
  auto handler = [](const Request&, const Caller&, CommandHandler::Reply) {};
  EXPECT_THROW(router_.Register("no-such-command", handler), std::logic_error);
  EXPECT_THROW(router_.Register("events", handler), std::logic_error) << "the server answers events";
  EXPECT_NO_THROW(router_.Register("plan", handler));
}

}  // namespace
}  // namespace smsupd::control
