// Conformance of rendered configs on a real OpenSM over ibsim: a fixture that
// starts the small test fabric (random_config.h: switch sw1, HCAs H1..H8,
// H5..H8 with two ports), renders a config into an OpenSM directory, runs or
// re-reads OpenSM on H1, and compares the P_Key table of every end port,
// read over directed routes, with ExpectedPKeyEntries().
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/pkey_tables.h"
#include "tests/config/random_config.h"
#include "tests/testbed/fabric_test.h"

namespace smsupd::config::testing {

class ConformanceTest : public testbed::FabricTest {
 protected:
  // Starts ibsim with the test fabric; the probe runs on H2.
  void StartTestFabric();

  // "hosts:" naming every HCA H1..H8 with all its port GUIDs.
  std::string AllHostsYaml() const;

  // Validates `body` (hosts/groups/partitions sections) under a fixed
  // version/sm header, renders it for OpenSM on H1 and applies it: the first
  // time, or when OptionsNeedingRestart() says so, by (re)starting OpenSM;
  // otherwise with SIGHUP. After a (re)start it waits for the first heavy
  // sweep and sends one SIGHUP (see LimitedToBothAcrossARestart). Sets config_.
  void Apply(const std::string& body);

  // Installs OpenSM's files as they are (no YAML behind them): `opensm_conf`
  // as written, `partitions` raw, then (re)starts OpenSM on H1 as Apply()
  // does after a restart. Then ExpectFabricTables() compares.
  void ApplyOpenSmFiles(const std::string& opensm_conf, const std::string& partitions);
  // An opensm.conf for OpenSM on H1 in this fixture's directory (as Apply()
  // renders it), with allow_both_pkeys as asked.
  std::string TestOpenSmConf(bool allow_both_pkeys);
  // Like ExpectTablesMatch(), against `expected` instead of config_, and
  // without the "no complaint in the log" check (a file may be in error).
  void ExpectFabricTables(const std::map<Guid, std::set<std::uint16_t>>& expected);
  const std::vector<TestNode>& nodes() const { return nodes_; }

  // Waits until OpenSM has finished a heavy sweep since Apply() and every
  // end port's P_Key table, as the test bed reads it, is what
  // ExpectedPKeyEntries() says for config_ (a table the config fills to
  // capacity or beyond is only checked to hold expected entries).
  // With `allow_extra_sweep`, a mismatch that remains after OpenSM's sweep
  // gets one more heavy sweep (SIGHUP) before it fails, counted in
  // extra_sweeps(): OpenSM 3.3.23 sometimes leaves a port that changes from
  // limited to `both` with the full P_Key only (LimitedToBothAcrossARestart).
  void ExpectTablesMatch(bool allow_extra_sweep = false);
  int extra_sweeps() const { return extra_sweeps_; }

  // Partition-file complaints in OpenSM's log ("" when none).
  std::string PartitionErrorsInLog() const;
  // OpenSM's own stdout and stderr (where it reports a node-name map it
  // cannot open).
  std::string OpenSmOutput() const;
  // Where Apply() installed the node-name map.
  std::string NodeNameMapFile() const;

  const Config& config() const { return config_; }
  int opensm_starts() const { return opensm_starts_; }
  Guid sm_port() const { return nodes_[1].PortGuid(1); }

 private:
  void StartOpenSm();
  // Waits for a "SUBNET UP" after subnet_up_before_.
  void WaitForHeavySweep();
  // SIGHUP (a heavy sweep that re-reads partitions.conf); resets the count.
  void SighupOpenSm();
  std::string CompareOnce();
  Status WaitForTables(std::chrono::milliseconds deadline);
  const std::map<Guid, std::set<std::uint16_t>>* expected_ = nullptr;  // else config_'s tables
  // "SUBNET UP" lines in OpenSM's log: one per completed heavy sweep.
  int SubnetUpCount() const;

  std::vector<TestNode> nodes_ = TestFabricNodes();
  std::string opensm_dir_;
  testbed::NodeProcess* opensm_ = nullptr;
  Config config_;
  bool have_config_ = false;
  int opensm_starts_ = 0;
  int subnet_up_before_ = 0;
  int extra_sweeps_ = 0;  // SubnetUpCount() when the config was applied
};

}  // namespace smsupd::config::testing
