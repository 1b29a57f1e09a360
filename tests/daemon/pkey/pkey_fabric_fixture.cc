#include "tests/daemon/pkey/pkey_fabric_fixture.h"

#include <signal.h>

#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testing {
namespace {

using std::chrono::milliseconds;

// Generous: shared CI machines are slow; a healthy sweep here takes < 1 s.
constexpr milliseconds kSweepDeadline(60000);
constexpr milliseconds kToolDeadline(60000);

}  // namespace

void PKeyFabricTest::StartWithConfig(testbed::Topology topology, const std::string& body) {
  ASSERT_TRUE(StartFabric(std::move(topology)));
  sm_node_ = fabric().topology().management_nodes()[0];
  sm_port_ = fabric().topology().Find(sm_node_)->PortGuid(1);
  Result<std::string> dir = fabric().NewProcessDir("opensm");
  ASSERT_TRUE(dir.ok()) << dir.error().message;
  opensm_dir_ = *dir;
  std::string yaml = "version: 1\nsm:\n  role: master\n  port_guid: " + FormatGuid(sm_port_) +
                     "\n  opensm:\n    options:\n      force_log_flush: true\n" + body;
  config_path_ = fabric().dir() + "/smsupd.yaml";
  ASSERT_TRUE(WriteFileAtomically(config_path_, yaml).ok());
  config::ValidationOutcome outcome = config::ValidateText(yaml, config_path_);
  ASSERT_TRUE(outcome.config.has_value()) << yaml;
  config::RenderInputs inputs;
  inputs.port_guid = sm_port_;
  inputs.partitions_path = opensm_dir_ + "/partitions.conf";
  inputs.opensm_log_file = opensm_dir_ + "/opensm.log";
  config::RenderedFiles files = config::Render(*outcome.config, inputs);
  ASSERT_TRUE(config::WriteRenderedFiles(files, inputs.partitions_path, opensm_dir_ + "/opensm.conf").ok());
  auto started = fabric().RunOnNodeIn(sm_node_, {"opensm", "-F", opensm_dir_ + "/opensm.conf"}, opensm_dir_,
                                      "opensm");
  ASSERT_TRUE(started.ok()) << started.error().message;
  opensm_ = *started;
  ASSERT_NO_FATAL_FAILURE(WaitForHeavySweep());
  ASSERT_NO_FATAL_FAILURE(SighupOpenSm());
  ASSERT_NO_FATAL_FAILURE(WaitForHeavySweep());
}

nlohmann::json PKeyFabricTest::RunVerifier(const std::string& node, int sample_ports) {
  std::vector<nlohmann::json> runs = RunVerifierRuns(node, sample_ports, 1);
  return runs.empty() ? nlohmann::json::object() : runs.back();
}

std::vector<nlohmann::json> PKeyFabricTest::RunVerifierRuns(const std::string& node, int sample_ports,
                                                            int runs) {
  auto process = fabric().RunOnNode(node,
                                    {PKEY_VERIFY_TOOL_PATH, "--config", config_path_, "--sm-port",
                                     FormatGuid(sm_port_), "--sample", std::to_string(sample_ports),
                                     "--runs", std::to_string(runs)},
                                    "verify");
  EXPECT_TRUE(process.ok()) << process.error().message;
  if (!process.ok()) return {};
  auto exited = (*process)->process->Wait(kToolDeadline * runs);
  EXPECT_TRUE(exited.ok()) << "pkey_verify_tool did not finish";
  std::ifstream output((*process)->output_path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(output, line);) {
    if (!line.empty() && line[0] == '{') lines.push_back(nlohmann::json::parse(line));  // skip umad2sim's chatter
  }
  return lines;
}

void PKeyFabricTest::CorruptPartitionsAndSighup(const std::string& text) {
  ASSERT_TRUE(WriteFileAtomically(opensm_dir_ + "/partitions.conf", text).ok());
  ASSERT_NO_FATAL_FAILURE(SighupOpenSm());
}

void PKeyFabricTest::SighupOpenSm() {
  subnet_up_before_ = SubnetUpCount();
  ASSERT_TRUE(opensm_->process->Signal(SIGHUP).ok());
}

void PKeyFabricTest::WaitForHeavySweep() {
  Status swept = testbed::WaitFor(
      "a heavy sweep of OpenSM", [&] { return SubnetUpCount() > subnet_up_before_; }, kSweepDeadline);
  ASSERT_TRUE(swept.ok()) << swept.message();
}

int PKeyFabricTest::SubnetUpCount() const {
  std::ifstream log(opensm_dir_ + "/opensm.log");
  int count = 0;
  for (std::string line; std::getline(log, line);) count += line.find("SUBNET UP") != std::string::npos;
  return count;
}

std::string PKeyFabricTest::OpenSmLog() const {
  std::ifstream log(opensm_dir_ + "/opensm.log");
  std::stringstream text;
  text << log.rdbuf();
  return text.str();
}

}  // namespace smsupd::testing
