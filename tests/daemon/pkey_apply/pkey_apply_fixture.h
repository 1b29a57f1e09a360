// GoogleTest fixture for the P_Key apply tests: a small simulated fat tree
// (2 leaves x 4 HCAs, 2 spines), a real smsupd (and its OpenSM) as master on
// the first management node, a config naming every HCA by its node name, and
// checks that read every end port's P_Key table with the test bed's probe.
//
// Base partitions (EveryHcaConfig + AddTenants): Default (ALL limited, mgmt full),
// tenant-a 0x0010 ipoib {H1_3 full, H1_4 full, H2_1 limited},
// tenant-b 0x0020 {H2_2 full, H2_3 full}. The probe runs on H2_4.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/daemon/pkey_apply/expected_tables.h"
#include "tests/testbed/fabric_pkey_tables.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"

namespace smsupd::testbed::pkey {

inline constexpr std::chrono::milliseconds kStartDeadline(60000);
// `--timeout` given to every `smctl reload/rollback --wait`, in seconds.
inline constexpr int kWaitTimeoutS = 30;
// How long smctl may take for such a command: the wait and a wide margin.
inline constexpr std::chrono::milliseconds kWaitingSmctlDeadline(120000);

class PKeyApplyTest : public FabricTest {
 protected:
  void SetUp() override;
  void TearDown() override;

  // The tenant partitions on top of EveryHcaConfig().
  static void AddTenants(SmsupdConfig& config);
  // What a test changes in the fat tree before ibsim starts, and in every
  // node's config before its smsupd starts: nothing here.
  virtual void ShapeTopology(Topology&) {}
  virtual void ConfigureNode(SmsupdConfig&) {}

  // Starts smsupd on `node` with `role` and the tenant config; waits until
  // it reports `state` (failures are recorded; nullptr when it could not
  // be created). The first one started is master().
  ManagementNode* StartNode(const std::string& node, const std::string& role, const std::string& state);
  ManagementNode& master() { return *nodes_.front(); }

  // Every end port's table, read by the probe (fails the test when it cannot).
  FabricPKeyTables Tables();
  // "" when the fabric holds what `node`'s config file implies, with the
  // master's port as the SM port.
  std::string MismatchesWith(ManagementNode& node);
  // Waits (deadline) until the fabric holds what master()'s config implies.
  void WaitForFabricToMatchMaster(std::chrono::milliseconds deadline);

  // `smctl --json <command...> --wait --timeout 30` on `node`.
  SmctlResult ApplyWithWait(ManagementNode& node, const std::vector<std::string>& command);
  // Writes master()'s config, applies it with `smctl reload --wait` and
  // expects: exit 0, state "verified", generation + 1, every port of the
  // fabric as the config says (read once: verified means done), the same
  // OpenSM pid. Returns the reply's arguments.
  nlohmann::json ApplyAndExpectVerified();

  // Writes master()'s config and applies it with `smctl reload --wait`
  // while OpenSM is stopped (SIGSTOP); once smsupd installed the new
  // partitions.conf, the file is replaced with comments only and OpenSM
  // resumes: it reads the corrupt file on the sweep that follows the
  // daemon's SIGHUP, drops every partition and puts every port in the
  // default partition as a full member, so verification fails on every
  // port. Returns smctl's result (failures are recorded).
  SmctlResult ReloadThatOpenSmReadsCorrupted();

  std::uint64_t Generation(ManagementNode& node);  // status config.generation
  nlohmann::json History(ManagementNode& node);    // `smctl --json history` arguments
  // The entry of `history` for generation `number` (empty when absent).
  static nlohmann::json HistoryEntry(const nlohmann::json& history, std::uint64_t number);

  std::vector<std::unique_ptr<ManagementNode>> nodes_;
};

// `json[key]` as text: "" when missing or null, strings as they are, other
// values dumped. Never throws.
std::string Text(const nlohmann::json& json, const std::string& key);

}  // namespace smsupd::testbed::pkey
