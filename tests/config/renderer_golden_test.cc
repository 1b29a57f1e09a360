// Golden files: tests/config/golden/NAME.yaml renders byte for byte to
// NAME.opensm.conf, NAME.partitions.conf and NAME.node-name-map. After an intended change,
// regenerate with SMSUPD_REGENERATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "config/renderer.h"
#include "config/validator.h"

namespace smsupd::config {
namespace {

const std::string kGoldenDir = std::string(SMSUPD_SOURCE_DIR) + "/tests/config/golden/";

std::string ReadGolden(const std::string& name) {
  Result<std::string> text = ReadWholeFile(kGoldenDir + name);
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.error().message);
  return text.ok() ? *text : "";
}

void Compare(const std::string& name, const std::string& rendered) {
  if (std::getenv("SMSUPD_REGENERATE_GOLDEN") != nullptr) {
    std::ofstream(kGoldenDir + name) << rendered;
    return;
  }
  EXPECT_EQ(rendered, ReadGolden(name)) << "golden file " << name << " differs";
}

class GoldenTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenTest, RendersExactly) {
  std::string name = GetParam();
  std::string yaml = ReadGolden(name + ".yaml");
  ValidationOutcome outcome = ValidateText(yaml, name + ".yaml");
  ASSERT_TRUE(outcome.ok()) << (outcome.diagnostics.empty() ? "" : outcome.diagnostics[0].Format());
  RenderedFiles files = Render(*outcome.config, RenderInputs{});
  Compare(name + ".opensm.conf", files.opensm_conf);
  Compare(name + ".partitions.conf", files.partitions_conf);
  Compare(name + ".node-name-map", files.node_name_map);
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest,
                         ::testing::Values("issue_example", "no_default", "precedence", "flags", "cabling"));

}  // namespace
}  // namespace smsupd::config
