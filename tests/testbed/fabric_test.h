// GoogleTest base for integration tests on a simulated fabric. TearDown
// kills everything the fabric started, keeps its directory (logs) when the
// test failed, and fails the test if any process that mentions the fabric's
// socket name is still alive.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {

class FabricTest : public ::testing::Test {
 protected:
  // Starts a fabric named after the test; the caller ASSERTs on the result.
  ::testing::AssertionResult StartFabric(Topology topology);
  void TearDown() override;

  SimulatedFabric& fabric() { return *fabric_; }
  FabricProbe& probe() { return fabric_->probe(); }

  std::unique_ptr<SimulatedFabric> fabric_;
};

}  // namespace smsupd::testbed
