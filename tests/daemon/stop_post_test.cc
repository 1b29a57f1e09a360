// The units' ExecStopPost= rule: what smsupd left runs on only when systemd
// starts smsupd again (docs/systemd.md "When smsupd is gone").
#include "daemon/stop_post.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

TEST(StopPost, KeepsOpenSmOnlyWhenAnotherSmsupdFollows) {
  struct Case {
    StopPostFacts facts;
    bool restart_coming;
    const char* why;
  };
  const Case cases[] = {
      {{"restart", "success", "exited", "0"}, true, "systemctl restart: adopted next"},
      {{"stop", "success", "exited", "0"}, false, "systemctl stop"},
      {{"stop", "signal", "killed", "KILL"}, false, "stop right after kill -9"},
      {{"", "signal", "killed", "KILL"}, true, "kill -9: Restart=on-failure"},
      {{"", "watchdog", "killed", "ABRT"}, true, "watchdog: restarted"},
      {{"", "exit-code", "exited", "69"}, true, "port missing: restarted"},
      {{"start", "exit-code", "exited", "1"}, true, "a failing (re)start: restarted"},
      {{"start", "exit-code", "exited", "78"}, false, "invalid config: not restarted"},
      {{"", "exit-code", "exited", "78"}, false, "invalid config: not restarted"},
      {{"", "success", "exited", "0"}, false, "smsupd exited by itself"},
      {{"", "", "", ""}, false, "outside systemd"},
  };
  for (const Case& c : cases) EXPECT_EQ(RestartComing(c.facts), c.restart_coming) << c.why;
}

}  // namespace
}  // namespace smsupd
