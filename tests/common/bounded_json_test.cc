// ParseBoundedJson: the depth bound is exact, and a text far past it is
// refused without recursion (a million levels would overflow the stack).
#include "common/bounded_json.h"

#include <gtest/gtest.h>

#include <string>

namespace smsupd {
namespace {

std::string Nested(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(BoundedJsonTest, AcceptsNestingUpToTheBoundAndRefusesOneMore) {
  EXPECT_TRUE(ParseBoundedJson(Nested(kMaxJsonDepth)));
  auto deeper = ParseBoundedJson(Nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deeper);
  EXPECT_EQ(deeper.error().message, "nests deeper than 32 levels");
  EXPECT_TRUE(ParseBoundedJson(R"({"a":{"b":[1,{"c":2}]}})", 4));
  EXPECT_FALSE(ParseBoundedJson(R"({"a":{"b":[1,{"c":2}]}})", 3));
}

TEST(BoundedJsonTest, AMillionLevelsAreRefusedObjectsAndArraysAlike) {
  const std::size_t depth = 1'000'000;
  EXPECT_FALSE(ParseBoundedJson(Nested(depth)));
  std::string objects;
  for (std::size_t i = 0; i < depth; ++i) objects += R"({"a":)";
  objects += "1" + std::string(depth, '}');
  EXPECT_FALSE(ParseBoundedJson(objects));
  auto unclosed = ParseBoundedJson(std::string(depth, '['));
  ASSERT_FALSE(unclosed);
  EXPECT_EQ(unclosed.error().message, kNotJsonError) << "a syntax error wins over the depth";
}

TEST(BoundedJsonTest, TextThatIsNotJsonSaysSo) {
  auto bad = ParseBoundedJson("{\"a\":");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, kNotJsonError);
  EXPECT_FALSE(ParseBoundedJson("\"\xff\""));  // not UTF-8
  EXPECT_FALSE(ParseBoundedJson(std::string("{}\0[[[", 6)))
      << "nlohmann's reader stops at a NUL; the text must not";
  EXPECT_EQ(ParseBoundedJson(R"({"x":[1,2]})")->at("x").size(), 2u);
}

}  // namespace
}  // namespace smsupd
