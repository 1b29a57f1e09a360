// GoogleTest fixture for the fault tests: a small simulated fat tree (2
// leaves x 4 HCAs, 2 spines; the probe on H2_4), real smsupd + OpenSM pairs
// on the management nodes configured with every HCA by name and two tenant
// partitions, and the checks a fault test makes afterwards: the fabric's
// P_Key tables against a node's config, the state_dir (state_dir_audit.h),
// smsupd's own log.
//
// Partitions: Default (ALL limited, mgmt full), tenant-a 0x0010 ipoib
// {H1_3 full, H1_4 full, H2_1 limited}, tenant-b 0x0020 {H2_2 full, H2_3 full}.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/daemon/faults/state_dir_audit.h"
#include "tests/testbed/fabric_pkey_tables.h"
#include "tests/testbed/fabric_test.h"
#include "tests/testbed/management_node.h"

namespace smsupd::testbed::faults {

inline constexpr std::chrono::milliseconds kStartDeadline(60000);
// A failover or an apply on a loaded 2-core machine: ~1 s when healthy.
inline constexpr std::chrono::milliseconds kFabricDeadline(30000);
inline constexpr std::chrono::milliseconds kSmctlDeadline(60000);

class FaultTest : public FabricTest {
 protected:
  void TearDown() override;

  // The 2 x 4 x 2 fat tree (ASSERT on it).
  void StartSmallFabric();
  // EveryHcaConfig plus the two tenants, for `node` in `role`.
  SmsupdConfig TenantConfig(const std::string& node, const std::string& role);
  // The third tenant, tenant-c 0x0030 {H2_4 full, H1_3 limited}: a change.
  static void AddTenantC(SmsupdConfig& config);
  // Creates a node (not started); nullptr on failure (recorded).
  ManagementNode* AddNode(SmsupdConfig config);
  // Starts `node` (with `environment`) and waits until its smsupd reports
  // its OpenSM in `state`; failures are recorded.
  void StartAndWait(ManagementNode& node, const std::string& state,
                    const std::map<std::string, std::string>& environment = {});

  // Every end port's table, read by the probe (fails the test when it cannot).
  FabricPKeyTables Tables();
  // "" when the fabric holds what `config_path` implies, `sm_port` being
  // the master SM's port.
  std::string MismatchesWith(const std::string& config_path, Guid sm_port);
  Status WaitForFabricToMatch(const std::string& config_path, Guid sm_port,
                              std::chrono::milliseconds deadline = kFabricDeadline);

  std::vector<std::unique_ptr<ManagementNode>> nodes_;
};

// Lines of `node`'s smsupd output from byte `from` on at level error or
// critical.
std::vector<std::string> ErrorLines(const ManagementNode& node, std::size_t from = 0);
// The size of `node`'s smsupd output now (for ErrorLines(from)).
std::size_t OutputSize(const ManagementNode& node);
// `node`'s health problems (ids), from smctl status.
std::vector<std::string> ProblemIds(const ManagementNode& node);
// Events of `node` whose kind matches `kind` (ignoring case and -/_).
std::vector<nlohmann::json> EventsOfKind(const ManagementNode& node, const std::string& kind);

}  // namespace smsupd::testbed::faults
