// The shipped example must validate cleanly and render.
#include <gtest/gtest.h>

#include "config/renderer.h"
#include "config/validator.h"

namespace smsupd::config {
namespace {

TEST(ExampleConfig, ValidatesWithoutErrorsOrWarnings) {
  ValidationOutcome outcome = LoadAndValidate(std::string(SMSUPD_SOURCE_DIR) + "/docs/example-smsupd.yaml");
  std::string text;
  for (const Diagnostic& diagnostic : outcome.diagnostics) text += diagnostic.Format() + "\n";
  ASSERT_TRUE(outcome.ok()) << text;
  EXPECT_TRUE(outcome.diagnostics.empty()) << text;
  EXPECT_EQ(outcome.config->partitions.size(), 3u);
  EXPECT_FALSE(Render(*outcome.config, RenderInputs{}).partitions_conf.empty());
}

}  // namespace
}  // namespace smsupd::config
