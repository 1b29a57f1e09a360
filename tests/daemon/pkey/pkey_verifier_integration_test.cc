// VerifyPKeys against a real OpenSM on ibsim: a rendered config verifies;
// a partitions.conf corrupted behind OpenSM's back (it falls back to every
// port full in 0x7fff) is recognised as the default fallback.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/daemon/pkey/pkey_fabric_fixture.h"
#include "tests/testbed/topology_generators.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testing {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kVerifyDeadline(30000);
constexpr int kSample = 5;

std::string Port(const testbed::Topology& topology, const std::string& node) {
  return FormatGuid(topology.Find(node)->PortGuid(1));
}

// Hosts a, b (group ab) and c; storage names them, compute takes every CA
// limited and c full, the Default partition keeps the SM's port full.
std::string Body(const testbed::Topology& t) {
  return "hosts:\n"
         "  a: " + Port(t, "H1_3") + "\n"
         "  b: " + Port(t, "H2_1") + "\n"
         "  c: " + Port(t, "H3_2") + "\n"
         "groups:\n"
         "  ab: [a, b]\n"
         "partitions:\n"
         "  - name: Default\n"
         "    pkey: 0x7fff\n"
         "    ipoib: true\n"
         "    members:\n"
         "      - { ports: ALL, membership: limited }\n"
         "      - { ports: SELF, membership: full }\n"
         "  - name: storage\n"
         "    pkey: 0x0001\n"
         "    members:\n"
         "      - { group: ab, membership: full }\n"
         "      - { host: c, membership: limited }\n"
         "  - name: compute\n"
         "    pkey: 0x0002\n"
         "    members:\n"
         "      - { ports: ALL_CAS, membership: limited }\n"
         "      - { host: c, membership: full }\n";
}

class PKeyVerifierIntegrationTest : public PKeyFabricTest {};

TEST_F(PKeyVerifierIntegrationTest, RenderedConfigVerifiesThenCorruptFileIsTheDefaultFallback) {
  Result<testbed::Topology> topology = testbed::MakeFatTree(3, 4, 2);
  ASSERT_TRUE(topology.ok()) << topology.error().message;
  std::string body = Body(*topology);
  ASSERT_NO_FATAL_FAILURE(StartWithConfig(std::move(*topology), body));

  nlohmann::json run;
  Status verified = testbed::WaitFor(
      "the fabric to verify",
      [&](std::string& why) {
        run = RunVerifier("H3_4", kSample);
        why = run.dump();
        return run.value("ok", false);
      },
      kVerifyDeadline, milliseconds(200));
  ASSERT_TRUE(verified.ok()) << verified.message();
  const nlohmann::json& verification = run["verification"];
  // mgmt (SELF), a, b, c, then the sample.
  EXPECT_EQ(verification["expected"], 4 + kSample);
  EXPECT_EQ(verification["checked"], 4 + kSample);
  EXPECT_EQ(verification["summary"], "verified 9/9 ports");
  EXPECT_EQ(run["ports"], 17);
  EXPECT_FALSE(verification["default_fallback"].get<bool>());
  std::printf("%s (discovery %ld us, verification %ld us)\n", verification["summary"].get<std::string>().c_str(),
              run.value("discover_us", 0L), run.value("verify_us", 0L));

  // A definition without its ';' and a stray token: a parse error, so
  // OpenSM drops every partition (docs/opensm-behaviour.md "partitions.conf errors: fallback to the
  // default partition").
  ASSERT_NO_FATAL_FAILURE(CorruptPartitionsAndSighup("Default=0x7fff,ipoib : ALL=full\nstorage=0x0001 :: ,\n"));
  ASSERT_NO_FATAL_FAILURE(WaitForHeavySweep());
  Status fell_back = testbed::WaitFor(
      "the verifier to see the default fallback",
      [&](std::string& why) {
        run = RunVerifier("H3_4", kSample);
        why = run.dump();
        return run.contains("verification") && run["verification"].value("default_fallback", false);
      },
      kVerifyDeadline, milliseconds(200));
  ASSERT_TRUE(fell_back.ok()) << fell_back.message() << "\n" << OpenSmLog();
  EXPECT_FALSE(run["ok"].get<bool>());
  EXPECT_NE(run["verification"]["summary"].get<std::string>().find("fell back to the default partition"),
            std::string::npos);
  EXPECT_NE(OpenSmLog().find("Partition configuration in error"), std::string::npos);
  std::printf("after the corrupt file: %s\n", run["verification"]["summary"].get<std::string>().c_str());
}

}  // namespace
}  // namespace smsupd::testing
