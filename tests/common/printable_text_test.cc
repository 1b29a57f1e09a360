// PrintableText: what a switch's NodeDescription or a line of OpenSM's log
// may hold becomes text a terminal, the journal and a strict JSON writer
// take as it is.
#include "common/printable_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace smsupd {
namespace {

TEST(PrintableTextTest, PlainTextAndUtf8StayAsTheyAre) {
  EXPECT_EQ(PrintableText("leaf-01 HCA-1", 64), "leaf-01 HCA-1");
  EXPECT_EQ(PrintableText("Zürich ノード", 64), "Zürich ノード");
}

TEST(PrintableTextTest, ControlsBadBytesAndDisplayTricksAreEscaped) {
  EXPECT_EQ(PrintableText("a\tb\nc\rd\\e", 64), "a\\tb\\nc\\rd\\\\e");
  EXPECT_EQ(PrintableText("\x1b[31mred\x07\x7f", 64), "\\x1b[31mred\\x07\\x7f");
  EXPECT_EQ(PrintableText("caf\xe9 \xff", 64), "caf\\xe9 \\xff");  // Latin-1, not UTF-8
  EXPECT_EQ(PrintableText("\xc2\x9b"
                          "1m",
                          64),
            "\\u{009b}1m");  // C1 CSI
  EXPECT_EQ(PrintableText("abc\xe2\x80\xae"
                          "fed",
                          64),
            "abc\\u{202e}fed");  // right-to-left override
  EXPECT_EQ(PrintableText("\xc0\xaf \xed\xa0\x80", 64),
            "\\xc0\\xaf \\xed\\xa0\\x80");  // overlong, surrogate
  EXPECT_EQ(PrintableText(std::string("a\0b", 3), 64), "a\\x00b");
}

TEST(PrintableTextTest, TheResultIsValidUtf8WithoutControlBytesForEveryByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string text = PrintableText(all + all, 4096);
  for (unsigned char c : text) EXPECT_GE(c, 0x20u);
  EXPECT_NO_THROW((void)nlohmann::json(text).dump());  // the strict writer takes it
}

TEST(PrintableTextTest, IsCutOnAPieceBoundaryWithinItsBound) {
  EXPECT_EQ(PrintableText("abcdefgh", 6), "abc...");
  EXPECT_EQ(PrintableText("ab\x1b\x1b", 8), "ab...");  // never half an escape
  EXPECT_EQ(PrintableText("aノノ", 6), "a...");        // never half a character
  EXPECT_EQ(PrintableText("abc", 3), "abc");
}

TEST(PrintableTextTest, ANodeDescriptionEndsAtItsFirstNulAndIsBounded) {
  EXPECT_EQ(PrintableNodeDescription(std::string("H1_1 HCA-1\0\0\0garbage", 21)), "H1_1 HCA-1");
  const std::string hostile(kNodeDescriptionBytes, '\x1b');
  const std::string text = PrintableNodeDescription(hostile);
  EXPECT_EQ(text.size(), kMaxNodeDescriptionText);
  EXPECT_EQ(text.substr(0, 8), "\\x1b\\x1b");
}

}  // namespace
}  // namespace smsupd
