// Fuzz target: `smctl import` over any opensm.conf, partitions.conf and
// node-name map. Input layout: opensm.conf, partitions.conf and the map,
// separated by the line "%%%%"; without any such line the input is
// partitions.conf alone, with one the map is not given.
//
// Properties, for any bytes:
// - the same inputs import to the same YAML and findings (no hidden state;
//   inputs up to 64 KiB);
// - every finding names its file and has a message;
// - the YAML validates, or an error finding says it does not;
// - no value of sm_key, m_key or sa_key from opensm.conf appears in the YAML
//   or in a finding;
// - a YAML that validates gives every port CheckImport() compares the same
//   P_Key table as OpenSM's reading of the files (no difference), and, when
//   the test-side model of OpenSM (tests/config/opensm_partition_model.h)
//   accepts the file, the same tables as that model.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/secrets.h"
#include "config/opensm_import.h"
#include "config/opensm_import_check.h"
#include "config/validator.h"
#include "tests/config/opensm_partition_model.h"
#include "tests/fuzz/fuzz_support.h"

namespace smsupd::config {
namespace {

// Inputs up to this size are imported twice (determinism) and their YAML
// validated a second time; bigger ones once, so that a 300 KiB input of
// 30,000 definitions stays within libFuzzer's timeout under ASan.
constexpr std::size_t kDeterminismCheckedBytes = 64 * 1024;

std::vector<std::string> Parts(std::string_view text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at; parts.size() < 2 && (at = text.find("%%%%\n", start)) != std::string_view::npos; start = at + 5)
    parts.emplace_back(text.substr(start, at - start));
  parts.emplace_back(text.substr(start));
  return parts;
}

// The values opensm.conf gives the keys (6 bytes or more, so that a value
// that is also an ordinary word of the output does not count; not OpenSM's
// defaults 0 and 1).
std::vector<std::string> SecretValues(const std::string& conf) {
  std::vector<std::string> values;
  std::size_t pos = 0;
  while (pos < conf.size()) {
    std::size_t end = conf.find('\n', pos);
    std::string line = conf.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? conf.size() : end + 1;
    std::size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos) continue;
    std::size_t word_end = line.find_first_of(" \t=", begin);
    if (word_end == std::string::npos || !IsSecretOption(line.substr(begin, word_end - begin))) continue;
    std::size_t value = line.find_first_not_of(" \t=", word_end);
    if (value == std::string::npos) continue;
    std::string text = line.substr(value, line.find_first_of(" \t#\r", value) - value);
    // OpenSM's defaults (0 and 1) are no secret: other numbers print so too.
    if (text.size() >= 6 && std::strtoull(text.c_str(), nullptr, 0) > 1) values.push_back(text);
  }
  return values;
}

}  // namespace
}  // namespace smsupd::config

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace smsupd::config;
  std::vector<std::string> parts = Parts(smsupd::fuzz::AsText(data, size));
  ImportInputs inputs;
  if (parts.size() == 1) {
    inputs.partitions = ImportFile{"partitions.conf", parts[0]};
  } else {
    inputs.opensm_conf = ImportFile{"opensm.conf", parts[0]};
    inputs.partitions = ImportFile{"partitions.conf", parts[1]};
    if (parts.size() == 3) inputs.node_name_map = ImportFile{"node-name-map", parts[2]};
  }
  ImportResult result = ImportOpenSm(inputs);
  if (size <= kDeterminismCheckedBytes) {
    ImportResult again = ImportOpenSm(inputs);
    FUZZ_CHECK(result.yaml == again.yaml && result.findings.size() == again.findings.size(), "not deterministic");
  }
  if (result.refused) {
    FUZZ_CHECK(result.yaml.empty() && !result.findings.empty(), "refused without saying why");
    return 0;
  }
  bool error = false;
  std::string everything = result.yaml;
  for (const ImportFinding& finding : result.findings) {
    FUZZ_CHECK(!finding.message.empty(), finding.Format());
    error = error || finding.severity == ImportFinding::Severity::kError;
    everything += finding.Format() + "\n";
  }
  if (inputs.opensm_conf) {
    std::string others = inputs.partitions->text + (inputs.node_name_map ? inputs.node_name_map->text : "");
    for (const std::string& secret : SecretValues(inputs.opensm_conf->text))
      if (others.find(secret) == std::string::npos)
        FUZZ_CHECK(everything.find(secret) == std::string::npos, "a key's value is shown: " + secret);
  }
  // ImportOpenSm() validated the YAML with the one validator; small ones are
  // validated here again, independently of that.
  if (size <= kDeterminismCheckedBytes) {
    ValidationOutcome validation = ValidateText(result.yaml, "imported.yaml", KeyFile::kNameOnly);
    FUZZ_CHECK(validation.ok() == result.config.has_value(), "the import's validation differs from the validator's");
  }
  FUZZ_CHECK(result.config || error, "the YAML does not validate and no error says so");
  if (!result.config) return 0;
  ImportCheck check = CheckImport(inputs, result);
  FUZZ_CHECK(!check.invalid.empty() || check.differences.empty(),
             check.differences.empty() ? "" : check.differences.front() + "\n" + result.yaml);
  if (!check.invalid.empty()) return 0;
  std::vector<FabricPort> ports = ImportCheckPorts(inputs);
  std::string conf = inputs.opensm_conf ? inputs.opensm_conf->text : "";
  bool allow_both = smsupd::config::testing::OpenSmConfValue(conf, "allow_both_pkeys") == "TRUE";
  auto model = smsupd::config::testing::ApplyPartitionsConf(inputs.partitions->text, allow_both, ports);
  bool plain = conf.find('\r') == std::string::npos && conf.find('#') == std::string::npos &&
               conf.find('\t') == std::string::npos && conf.find('"') == std::string::npos;
  if (model.ok() && plain && !error)
    FUZZ_CHECK(ExpectedPKeyEntries(*result.config, ports) == *model, "the test model of OpenSM disagrees:\n" + result.yaml);
  return 0;
}
