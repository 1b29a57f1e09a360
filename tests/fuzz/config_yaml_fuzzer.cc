// Fuzz target: smsupd.yaml text -> the validator -> the renderer.
//
// Properties, for any bytes:
// - validation never crashes or throws, and every diagnostic formats;
// - at most kMaxDiagnostics diagnostics and one counting the rest, each part
//   at most kMaxDiagnosticPartBytes, whatever the text (yaml_bounds.h and
//   yaml_view.h: a text's cost is bounded before and while it is read);
// - validating the same text twice and rendering both configs gives the
//   same bytes (the renderer's contract: deterministic for a Config);
// - the rendered partitions.conf reads without error through the model of
//   OpenSM's parser (tests/config/opensm_partition_model.h) and gives every
//   port exactly the P_Key entries of the product rule (ExpectedPKeyEntries):
//   a file OpenSM refuses would put every port in the default partition;
// - opensm.conf, read the way OpenSM reads it (opensm_conf_model.h), gives
//   every option once with the value the renderer meant: no value can
//   smuggle in a line of its own or be read differently.
#include <cstdint>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/opensm_options.h"
#include "config/pkey_tables.h"
#include "config/renderer.h"
#include "config/validator.h"
#include "config/yaml_view.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/fuzz/opensm_conf_model.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::config {
namespace {

// Ports nobody names, so that the keywords have something to pick.
constexpr Guid kSmPort = 0x0002c903000000f1;
constexpr Guid kSwitchPort = 0x0008f104000000f2;
constexpr Guid kRouterPort = 0x0008f104000000f3;
constexpr Guid kOtherCa = 0x0002c903000000f4;

// The SM port, every GUID the config names (as CA ports) and one port of
// each kind nobody names.
std::vector<FabricPort> FabricFor(const Config& config, Guid sm_port) {
  std::map<Guid, FabricPort> ports;
  for (const auto& [host, guids] : config.hosts)
    for (Guid guid : guids) ports[guid] = {guid, PortKind::kCa, false};
  for (const Partition& partition : config.partitions)
    for (const Member& member : partition.members)
      if (member.kind == Member::Kind::kGuid) ports[member.guid] = {member.guid, PortKind::kCa, false};
  ports.try_emplace(kSwitchPort, FabricPort{kSwitchPort, PortKind::kSwitch, false});
  ports.try_emplace(kRouterPort, FabricPort{kRouterPort, PortKind::kRouter, false});
  ports.try_emplace(kOtherCa, FabricPort{kOtherCa, PortKind::kCa, false});
  ports[sm_port] = {sm_port, ports.count(sm_port) ? ports[sm_port].kind : PortKind::kCa, true};
  std::vector<FabricPort> out;
  for (const auto& [guid, port] : ports) out.push_back(port);
  return out;
}

std::string Describe(const std::map<Guid, std::set<std::uint16_t>>& tables) {
  std::ostringstream out;
  for (const auto& [guid, entries] : tables) {
    out << FormatGuid(guid) << ":";
    for (std::uint16_t entry : entries) out << " " << std::hex << entry << std::dec;
    out << "\n";
  }
  return out.str();
}

void CheckPartitionsConf(const Config& config, const RenderedFiles& files, Guid sm_port) {
  std::vector<FabricPort> ports = FabricFor(config, sm_port);
  bool allow_both = testing::OpenSmConfValue(files.opensm_conf, "allow_both_pkeys") == "TRUE";
  auto read = testing::ApplyPartitionsConf(files.partitions_conf, allow_both, ports);
  FUZZ_CHECK(read.ok(), (read.ok() ? "" : read.error().message) + "\n" + files.partitions_conf);
  auto expected = ExpectedPKeyEntries(config, ports);
  FUZZ_CHECK(*read == expected, "OpenSM would program:\n" + Describe(*read) +
                                    "the product rule says:\n" + Describe(expected) +
                                    files.partitions_conf);
}

// Reads opensm.conf as OpenSM does: every option once, known, and with the
// value the renderer meant, so no value can smuggle in a line of its own or
// lose part of itself.
void CheckOpenSmConf(const Config& config, const RenderInputs& inputs, const std::string& conf) {
  std::map<std::string, std::string> meant = OpenSmOptionValues(config, inputs);
  std::set<std::string> seen;
  for (const auto& [name, value] : fuzz::ReadOpenSmConf(conf)) {
    const OpenSmOption* option = FindOpenSmOption(name);
    FUZZ_CHECK(option != nullptr, "OpenSM reads an unknown option '" + name + "'\n" + conf);
    FUZZ_CHECK(seen.insert(name).second, "OpenSM reads '" + name + "' twice\n" + conf);
    auto it = meant.find(name);
    std::string want = it != meant.end() ? it->second : std::string(option->default_value);
    FUZZ_CHECK(value == want, "OpenSM reads " + name + " '" + value + "', smsupd meant '" + want + "'");
  }
  FUZZ_CHECK(seen.size() == AllOpenSmOptions().size(), "options missing from opensm.conf\n" + conf);
}

}  // namespace
}  // namespace smsupd::config

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::config;
  std::string_view yaml = smsupd::fuzz::AsText(data, size);
  ValidationOutcome first = ValidateText(yaml, "fuzz.yaml");
  FUZZ_CHECK(first.diagnostics.size() <= kMaxDiagnostics + 1, std::to_string(first.diagnostics.size()));
  for (const Diagnostic& diagnostic : first.diagnostics) {
    (void)diagnostic.Format();
    for (const std::string* part : {&diagnostic.yaml_path, &diagnostic.what, &diagnostic.valid})
      FUZZ_CHECK(part->size() <= kMaxDiagnosticPartBytes, diagnostic.Format().substr(0, 200));
  }
  const auto hidden = first.hidden_errors + first.hidden_warnings;
  FUZZ_CHECK(hidden == 0 || first.diagnostics.size() == kMaxDiagnostics + 1, "hidden diagnostics, no summary");
  if (!first.ok()) return 0;
  ValidationOutcome second = ValidateText(yaml, "fuzz.yaml");
  FUZZ_CHECK(second.ok(), "the same text validated once and then not");

  RenderInputs inputs;
  inputs.port_guid = first.config->sm.port_guid.value_or(kSmPort);
  RenderedFiles files = Render(*first.config, inputs);
  RenderedFiles again = Render(*second.config, inputs);
  FUZZ_CHECK(files.partitions_conf == again.partitions_conf, "partitions.conf differs between renderings");
  FUZZ_CHECK(files.opensm_conf == again.opensm_conf, "opensm.conf differs between renderings");
  CheckPartitionsConf(*first.config, files, *inputs.port_guid);
  CheckOpenSmConf(*first.config, inputs, files.opensm_conf);
  return 0;
}
