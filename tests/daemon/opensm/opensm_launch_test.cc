#include "daemon/opensm/opensm_launch.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace smsupd {
namespace {

bool Has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

TEST(OpenSmLaunchTest, EnvironmentKeepsSimulatorVariablesAndDropsServiceManagerOnes) {
  OpenSmLaunchSpec spec{"/usr/sbin/opensm", "/st/opensm.conf", "/st", 0x11};
  std::vector<std::string> parent = {
      "PATH=/usr/bin", "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so",
      "SIM_HOST=mgmt-a", "IBSIM_SOCKNAME=sim42", "NOTIFY_SOCKET=/run/systemd/notify",
      "WATCHDOG_USEC=30000000", "WATCHDOG_PID=7", "OSM_CACHE_DIR=/var/cache/opensm"};
  auto env = OpenSmEnvironment(parent, spec);
  EXPECT_TRUE(Has(env, "PATH=/usr/bin"));
  EXPECT_TRUE(Has(env, "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"));
  EXPECT_TRUE(Has(env, "SIM_HOST=mgmt-a"));
  EXPECT_TRUE(Has(env, "IBSIM_SOCKNAME=sim42"));
  EXPECT_TRUE(Has(env, "OSM_CACHE_DIR=/st/opensm-cache"));
  EXPECT_TRUE(Has(env, "OSM_TMP_DIR=/st/opensm-tmp"));
  EXPECT_FALSE(Has(env, "OSM_CACHE_DIR=/var/cache/opensm"));
  for (const auto& entry : env) {
    EXPECT_NE(entry.rfind("NOTIFY_SOCKET=", 0), 0u) << entry;
    EXPECT_NE(entry.rfind("WATCHDOG_", 0), 0u) << entry;
  }
}

TEST(OpenSmLaunchTest, RunsOpenSmOnTheRenderedConfInTheStateDirectory) {
  OpenSmLaunchSpec spec{"/usr/sbin/opensm", "/st/opensm.conf", "/st", 0x11};
  SpawnRequest request = OpenSmSpawnRequest(spec, {});
  EXPECT_EQ(request.binary, "/usr/sbin/opensm");
  EXPECT_EQ(request.args, (std::vector<std::string>{"-F", "/st/opensm.conf"}));
  EXPECT_EQ(request.cwd, "/st");
}

}  // namespace
}  // namespace smsupd
