// Property test on a real OpenSM: many random valid configs (random_config.h),
// each rendered, applied (SIGHUP, or a restart when an option OpenSM reads
// only at start changed) and compared port by port with ExpectedPKeyEntries().
// A mismatch left after OpenSM's sweep gets one more heavy sweep before it
// fails (OpenSM 3.3.23 sometimes needs it for a port that becomes `both`;
// see conformance_fixture.h); the count is printed. The base seed is printed; rerun one with SMSUPD_CONFORMANCE_SEED=<seed>.
// SMSUPD_CONFORMANCE_CONFIGS sets the count (default 120, under a minute here).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>

#include "tests/config/conformance_fixture.h"

namespace smsupd::config::testing {
namespace {

std::uint64_t EnvNumber(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  return text != nullptr ? std::strtoull(text, nullptr, 0) : fallback;
}

// Each config gets its own marker partition (P_Key 0x7000 + index, every CA
// limited): a table that matches proves OpenSM applied this config, not
// that the previous one happened to look the same.
std::string WithMarker(const std::string& yaml, int index) {
  char pkey[16];
  std::snprintf(pkey, sizeof pkey, "0x%04x", 0x7000 + (index & 0xfff));
  return yaml + "  - name: marker" + std::to_string(index) + "\n    pkey: " + pkey +
         "\n    members:\n      - { ports: ALL_CAS, membership: limited }\n";
}

class RandomConformance : public ConformanceTest {};

TEST_F(RandomConformance, RandomConfigsProgramWhatTheYamlSays) {
  ASSERT_NO_FATAL_FAILURE(StartTestFabric());
  std::uint64_t base = EnvNumber("SMSUPD_CONFORMANCE_SEED", std::random_device{}());
  int count = static_cast<int>(EnvNumber("SMSUPD_CONFORMANCE_CONFIGS", 120));
  std::printf("random conformance: base seed %llu, %d configs\n", static_cast<unsigned long long>(base), count);
  std::vector<TestNode> nodes = TestFabricNodes();
  for (int i = 0; i < count; ++i) {
    RandomCase random = RandomConfig(nodes, sm_port(), base + i);
    // RandomConfig's header is replaced by the fixture's (same SM port).
    std::string body = random.yaml.substr(random.yaml.find("hosts:"));
    SCOPED_TRACE("seed " + std::to_string(base + i) + "\n" + body);
    ASSERT_NO_FATAL_FAILURE(Apply(WithMarker(body, i)));
    ASSERT_NO_FATAL_FAILURE(ExpectTablesMatch(/*allow_extra_sweep=*/true));
    if (HasFailure()) break;
  }
  std::printf("random conformance: %d OpenSM starts, %d extra heavy sweeps for %d configs\n",
              opensm_starts(), extra_sweeps(), count);
}

}  // namespace
}  // namespace smsupd::config::testing
