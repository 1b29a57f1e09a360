// A simulated fabric with a real OpenSM that runs a rendered smsupd config,
// and pkey_verify_tool run on one of its HCAs: the verifier against what
// OpenSM really programs.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "tests/testbed/fabric_test.h"

namespace smsupd::testing {

class PKeyFabricTest : public testbed::FabricTest {
 protected:
  // Starts `topology`, validates "version/sm" + `body` (hosts, groups,
  // partitions), renders it and starts OpenSM -F on the first management
  // node; returns after OpenSM's first heavy sweep and one more (SIGHUP):
  // a freshly started OpenSM sometimes needs it to finish a port's table
  // (tests/config conformance tests, LimitedToBothAcrossARestart).
  void StartWithConfig(testbed::Topology topology, const std::string& body);

  // Runs pkey_verify_tool on `node` and returns its last JSON line.
  nlohmann::json RunVerifier(const std::string& node, int sample_ports);
  // The same with `runs` runs in one process: one JSON line each.
  std::vector<nlohmann::json> RunVerifierRuns(const std::string& node, int sample_ports, int runs);

  // Replaces partitions.conf behind OpenSM's back and SIGHUPs it (what a
  // file corrupted after validation looks like to OpenSM).
  void CorruptPartitionsAndSighup(const std::string& text);

  // Waits until OpenSM logged a heavy sweep since the last SIGHUP/start.
  void WaitForHeavySweep();

  std::string OpenSmLog() const;
  Guid sm_port() const { return sm_port_; }
  const std::string& sm_node() const { return sm_node_; }

 private:
  void SighupOpenSm();
  int SubnetUpCount() const;

  std::string opensm_dir_;
  std::string config_path_;
  std::string sm_node_;
  Guid sm_port_ = 0;
  testbed::NodeProcess* opensm_ = nullptr;
  int subnet_up_before_ = 0;
};

}  // namespace smsupd::testing
