#include "tests/config/conformance_fixture.h"

#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "config/opensm_options.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "tests/testbed/fabric_pkey_tables.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::config::testing {
namespace {

using std::chrono::milliseconds;

// Generous: shared CI machines are slow; a healthy sweep here takes < 1 s.
constexpr milliseconds kApplyDeadline(60000);
// After OpenSM reported its sweep, the tables are final: a mismatch that
// lasts this long is OpenSM's result, not a delay.
constexpr milliseconds kSettleDeadline(3000);
constexpr char kProbeNode[] = "H2";

}  // namespace

void ConformanceTest::StartTestFabric() {
  testbed::Topology topology;
  int switch_port = 0;
  for (const TestNode& node : nodes_)
    topology.AddNode({node.name, node.is_switch ? testbed::NodeKind::kSwitch : testbed::NodeKind::kCa,
                      node.node_guid, node.is_switch ? testbed::kSwitchPorts : node.ports});
  for (const TestNode& node : nodes_) {
    if (node.is_switch) continue;
    for (int port = 1; port <= node.ports; ++port) topology.AddLink({node.name, port, "sw1", ++switch_port});
  }
  topology.SetManagementNodes("H1", "H3");
  testbed::FabricOptions options;
  options.name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  options.probe_node = kProbeNode;
  Result<std::unique_ptr<testbed::SimulatedFabric>> fabric =
      testbed::SimulatedFabric::Start(std::move(topology), options);
  ASSERT_TRUE(fabric.ok()) << fabric.error().message;
  fabric_ = std::move(*fabric);
  if (std::getenv("SMSUPD_KEEP_FABRIC") != nullptr) fabric_->set_keep_dir(true);  // for debugging
  Result<std::string> dir = fabric_->NewProcessDir("opensm-H1");
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  opensm_dir_ = *dir;
}

std::string ConformanceTest::AllHostsYaml() const {
  std::string yaml = "hosts:\n";
  for (const TestNode& node : nodes_) {
    if (node.is_switch) continue;
    yaml += "  " + node.name + ": [";
    for (int port = 1; port <= node.ports; ++port) yaml += (port > 1 ? ", " : "") + FormatGuid(node.PortGuid(port));
    yaml += "]\n";
  }
  return yaml;
}

void ConformanceTest::Apply(const std::string& body) {
  std::string yaml = "version: 1\nsm:\n  role: master\n  port_guid: " + FormatGuid(sm_port()) +
                     "\n  opensm:\n    options:\n"
                     "      log_flags: 0x07\n"  // VERBOSE too: OpenSM's PARSE WARN lines
                     "      force_log_flush: true\n"  // the log is read while OpenSM runs
                     "      dump_files_dir: " + opensm_dir_ + "/\n"
                     "      per_module_logging_file: " + opensm_dir_ + "/per-module-logging.conf\n" +
                     body;
  ValidationOutcome outcome = ValidateText(yaml, "conformance.yaml");
  std::string diagnostics;
  for (const Diagnostic& diagnostic : outcome.diagnostics) diagnostics += diagnostic.Format() + "\n";
  ASSERT_TRUE(outcome.ok()) << diagnostics << yaml;
  bool restart = !have_config_ || !OptionsNeedingRestart(config_, *outcome.config).empty();
  config_ = *outcome.config;
  have_config_ = true;
  RenderInputs inputs;
  inputs.port_guid = sm_port();
  inputs.partitions_path = opensm_dir_ + "/partitions.conf";
  inputs.opensm_log_file = opensm_dir_ + "/opensm.log";
  RenderedFiles files = Render(config_, inputs);
  subnet_up_before_ = SubnetUpCount();
  ASSERT_TRUE(WriteRenderedFiles(files, inputs.partitions_path, opensm_dir_ + "/opensm.conf").ok());
  if (restart) {
    ASSERT_NO_FATAL_FAILURE(StartOpenSm());
    // A freshly started OpenSM can leave a `both` port with only its full
    // P_Key when the port held the limited one (see LimitedToBothAcrossARestart);
    // one more heavy sweep completes the table. The daemon must do the same.
    ASSERT_NO_FATAL_FAILURE(WaitForHeavySweep());
    ASSERT_NO_FATAL_FAILURE(SighupOpenSm());
  } else {
    ASSERT_TRUE(opensm_->process->Running()) << "OpenSM exited";
    ASSERT_TRUE(opensm_->process->Signal(SIGHUP).ok());
  }
}

void ConformanceTest::StartOpenSm() {
  if (opensm_ != nullptr) opensm_->process->Stop();
  Result<testbed::NodeProcess*> started = fabric_->RunOnNodeIn(
      "H1", {"opensm", "-F", opensm_dir_ + "/opensm.conf"}, opensm_dir_,
      "opensm-H1-" + std::to_string(++opensm_starts_));
  ASSERT_TRUE(started.ok()) << started.error().message;
  opensm_ = *started;
}

int ConformanceTest::SubnetUpCount() const {
  std::ifstream log(opensm_dir_ + "/opensm.log");
  int count = 0;
  for (std::string line; std::getline(log, line);) count += line.find("SUBNET UP") != std::string::npos;
  return count;
}

std::string ConformanceTest::CompareOnce() {
  if (SubnetUpCount() <= subnet_up_before_) return "OpenSM has not finished a heavy sweep since the change";
  Result<testbed::FabricPKeyTables> tables = testbed::ReadFabricPKeyTables(probe());
  if (!tables.ok()) return tables.error().message;
  if (expected_ != nullptr) return testbed::DescribePKeyMismatches(*tables, *expected_);
  return testbed::DescribePKeyMismatches(*tables, ExpectedPKeyEntries(config_, TestFabricPorts(nodes_, sm_port())));
}

Status ConformanceTest::WaitForTables(milliseconds deadline) {
  return testbed::WaitFor(
      "P_Key tables as the config says",
      [&](std::string& why) {
        why = CompareOnce();
        return why.empty();
      },
      deadline, milliseconds(200));
}

void ConformanceTest::ExpectTablesMatch(bool allow_extra_sweep) {
  Status matched = WaitForTables(allow_extra_sweep ? kSettleDeadline : kApplyDeadline);
  if (!matched.ok() && allow_extra_sweep && SubnetUpCount() > subnet_up_before_) {
    ++extra_sweeps_;
    ASSERT_NO_FATAL_FAILURE(SighupOpenSm());
    matched = WaitForTables(kApplyDeadline);
  }
  EXPECT_TRUE(matched.ok()) << matched.message() << "\npartitions.conf:\n"
                            << ReadWholeFile(opensm_dir_ + "/partitions.conf").value();
  EXPECT_EQ(PartitionErrorsInLog(), "");
}

std::string ConformanceTest::TestOpenSmConf(bool allow_both_pkeys) {
  std::string yaml = "version: 1\nsm:\n  role: master\n  port_guid: " + FormatGuid(sm_port()) +
                     "\n  opensm:\n    options:\n      log_flags: 0x07\n      force_log_flush: true\n"
                     "      dump_files_dir: " + opensm_dir_ + "/\n"
                     "      per_module_logging_file: " + opensm_dir_ + "/per-module-logging.conf\n";
  ValidationOutcome outcome = ValidateText(yaml, "conformance.yaml");
  EXPECT_TRUE(outcome.ok());
  if (!outcome.ok()) return "";
  RenderInputs inputs;
  inputs.port_guid = sm_port();
  inputs.partitions_path = opensm_dir_ + "/partitions.conf";
  inputs.opensm_log_file = opensm_dir_ + "/opensm.log";
  std::string conf = Render(*outcome.config, inputs).opensm_conf;
  if (allow_both_pkeys) {
    std::size_t at = conf.find("\nallow_both_pkeys FALSE\n");
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) conf.replace(at, 24, "\nallow_both_pkeys TRUE\n");
  }
  return conf;
}

void ConformanceTest::ApplyOpenSmFiles(const std::string& opensm_conf, const std::string& partitions) {
  subnet_up_before_ = SubnetUpCount();
  ASSERT_TRUE(WriteFileAtomically(opensm_dir_ + "/partitions.conf", partitions).ok());
  ASSERT_TRUE(WriteFileAtomically(opensm_dir_ + "/opensm.conf", opensm_conf, 0600).ok());
  ASSERT_NO_FATAL_FAILURE(StartOpenSm());
  ASSERT_NO_FATAL_FAILURE(WaitForHeavySweep());
  ASSERT_NO_FATAL_FAILURE(SighupOpenSm());
}

void ConformanceTest::ExpectFabricTables(const std::map<Guid, std::set<std::uint16_t>>& expected) {
  expected_ = &expected;
  Status matched = WaitForTables(kApplyDeadline);
  expected_ = nullptr;
  EXPECT_TRUE(matched.ok()) << matched.message() << "\npartitions.conf:\n"
                            << ReadWholeFile(opensm_dir_ + "/partitions.conf").value();
}

void ConformanceTest::WaitForHeavySweep() {
  Status swept = testbed::WaitFor("a heavy sweep", [&] { return SubnetUpCount() > subnet_up_before_; }, kApplyDeadline);
  ASSERT_TRUE(swept.ok()) << swept.message();
}

void ConformanceTest::SighupOpenSm() {
  subnet_up_before_ = SubnetUpCount();
  ASSERT_TRUE(opensm_->process->Signal(SIGHUP).ok());
}

std::string ConformanceTest::OpenSmOutput() const {
  Result<std::string> text = ReadWholeFile(opensm_->output_path);
  return text.ok() ? *text : "";
}

std::string ConformanceTest::NodeNameMapFile() const {
  return NodeNameMapPath(opensm_dir_ + "/partitions.conf");
}

std::string ConformanceTest::PartitionErrorsInLog() const {
  std::ifstream log(opensm_dir_ + "/opensm.log");
  std::string complaints;
  for (std::string line; std::getline(log, line);)
    if (line.find("PARSE ERROR") != std::string::npos || line.find("PARSE WARN") != std::string::npos ||
        line.find("Partition configuration in error") != std::string::npos ||
        line.find("was not fully processed") != std::string::npos)
      complaints += line + "\n";
  return complaints;
}

}  // namespace smsupd::config::testing
