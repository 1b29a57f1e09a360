#include "tests/testbed/fabric_test.h"

#include <cstdlib>
#include <iostream>
#include <string>

namespace smsupd::testbed {

::testing::AssertionResult FabricTest::StartFabric(Topology topology) {
  FabricOptions options;
  options.name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(std::move(topology), options);
  if (!fabric) return ::testing::AssertionFailure() << fabric.error().message;
  fabric_ = std::move(*fabric);
  return ::testing::AssertionSuccess();
}

void FabricTest::TearDown() {
  if (!fabric_) return;
  const std::string socket_name = fabric_->socket_name();
  const char* keep = std::getenv("SMSUPD_TB_KEEP");
  if (HasFailure() || (keep != nullptr && std::string(keep) == "1")) {
    fabric_->set_keep_dir(true);
    std::cerr << "fabric directory kept for inspection: " << fabric_->dir() << "\n";
  }
  fabric_.reset();
  // The socket name is in every child's environment (IBSIM_SOCKNAME).
  EXPECT_TRUE(FindProcessesMentioning(socket_name).empty()) << "processes outlived the fabric " << socket_name;
}

}  // namespace smsupd::testbed
