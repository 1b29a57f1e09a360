// Discovery and verification of every port of the 648-HCA fat tree (36
// leaves x 18 hosts, 18 spines) under a real OpenSM: the numbers the apply
// path's timing rests on. Times are printed, never asserted (CI is noisy).
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/daemon/pkey/pkey_fabric_fixture.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testing {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kVerifyDeadline(120000);
constexpr int kEveryPort = 100000;
constexpr int kRuns = 3;

// Twenty hosts of leaves 1 and 2 in a tenant partition, every CA limited
// in compute, the Default partition limited except the SM's port.
std::string Body(const testbed::Topology& t) {
  std::string hosts = "hosts:\n";
  std::string members;
  for (int i = 0; i < 20; ++i) {
    std::string node = testbed::CaName(1 + i / 10, 3 + i % 10);
    hosts += "  t" + std::to_string(i) + ": " + FormatGuid(t.Find(node)->PortGuid(1)) + "\n";
    members += "      - { host: t" + std::to_string(i) + ", membership: full }\n";
  }
  return hosts +
         "partitions:\n"
         "  - name: Default\n"
         "    pkey: 0x7fff\n"
         "    members:\n"
         "      - { ports: ALL, membership: limited }\n"
         "      - { ports: SELF, membership: full }\n"
         "  - name: tenant\n"
         "    pkey: 0x0010\n"
         "    members:\n" + members +
         "  - name: compute\n"
         "    pkey: 0x0002\n"
         "    members:\n"
         "      - { ports: ALL_CAS, membership: limited }\n";
}

class PKeyVerifierFatTreeTest : public PKeyFabricTest {};

TEST_F(PKeyVerifierFatTreeTest, EveryPortOf648HcasVerifies) {
  Result<testbed::Topology> topology = testbed::MakeFatTree(36, 18, 18);
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  std::string body = Body(*topology);
  ASSERT_NO_FATAL_FAILURE(StartWithConfig(std::move(*topology), body));
  const std::string far = testbed::CaName(36, 18);
  nlohmann::json run;
  Status verified = testbed::WaitFor(
      "every port to verify",
      [&](std::string& why) {
        run = RunVerifier(far, kEveryPort);
        why = run.value("verification", nlohmann::json::object()).value("summary", run.dump());
        return run.value("ok", false);
      },
      kVerifyDeadline, milliseconds(500));
  ASSERT_TRUE(verified.ok()) << verified.message();
  EXPECT_EQ(run["ports"], 648 + 54);
  EXPECT_EQ(run["verification"]["checked"], 648 + 54);

  for (const nlohmann::json& one : RunVerifierRuns(far, kEveryPort, kRuns)) {
    EXPECT_TRUE(one.value("ok", false)) << one.dump();
    std::printf("648-HCA fat tree: discovered %d end ports in %.1f ms; %s in %.1f ms\n",
                one.value("ports", 0), one.value("discover_us", 0L) / 1000.0,
                one["verification"].value("summary", "").c_str(), one.value("verify_us", 0L) / 1000.0);
  }
}

}  // namespace
}  // namespace smsupd::testing
