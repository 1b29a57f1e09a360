// GoogleTest base for failover integration tests: a 4 x 4 x 2 fat tree, two
// smsupd (role master on H1_1, role standby on H1_2) and the rule every test
// checks in TearDown: no stretch of two MASTERs longer than OpenSM's own
// handover, as the background MasterMonitor saw it. On failure the fabric
// directory (logs of both smsupds and OpenSMs) is kept and the monitor's
// timeline printed.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "tests/daemon/failover/failover_bed.h"
#include "tests/testbed/fabric_test.h"

namespace smsupd::testbed {

// Generous: CI machines are slow and shared; a healthy failover takes ~1 s.
inline constexpr std::chrono::milliseconds kFailoverDeadline(30000);
inline constexpr std::chrono::milliseconds kSetupDeadline(60000);
// OpenSM's own handover (heavy sweep, HANDOVER, ack) took ~1.1 s on the
// 648-HCA fabric (docs/opensm-behaviour.md "Controlled failover: safe and unsafe
// priority changes"); 3 s leaves room for a loaded machine.
inline constexpr std::chrono::milliseconds kMaxDualMaster(3000);

class FailoverTest : public FabricTest {
 protected:
  // Fails every test at once when `smctl failover --help` does not work.
  void SetUp() override;
  // Starts the fabric (the 4 x 4 x 2 fat tree unless `topology` is given)
  // and both smsupds; ASSERT_NO_FATAL_FAILURE on it.
  void StartPair(FailoverBedOptions options = {}, std::optional<Topology> topology = std::nullopt);
  void TearDown() override;

  FailoverBed& bed() { return *bed_; }
  ManagementNode& master() { return bed_->master(); }
  ManagementNode& standby() { return bed_->standby(); }
  const std::string& master_name() { return bed_->master_name(); }
  const std::string& standby_name() { return bed_->standby_name(); }

  // ASSERT-style helpers: fail the test with diagnostics.
  void ExpectSoleMaster(const std::string& node, std::chrono::milliseconds deadline = kFailoverDeadline);
  void ExpectEveryCaFollows(const std::string& node, std::chrono::milliseconds deadline = kFailoverDeadline);
  // The monitor's report so far: never two MASTERs for longer than kMaxDualMaster.
  void ExpectNoLongDualMaster();

  std::unique_ptr<FailoverBed> bed_;
};

// Shorthand: ASSERT a Status with its message.
#define ASSERT_OK(expr)                                  \
  do {                                                   \
    ::smsupd::Status status_ = (expr);                   \
    ASSERT_TRUE(status_.ok()) << status_.message();      \
  } while (0)
#define EXPECT_OK(expr)                                  \
  do {                                                   \
    ::smsupd::Status status_ = (expr);                   \
    EXPECT_TRUE(status_.ok()) << status_.message();      \
  } while (0)

// The whole text of a file ("" when it cannot be read).
std::string ReadFile(const std::string& path);

}  // namespace smsupd::testbed
