// What smctl prints can never drive the terminal it prints to.
#include "smctl/terminal_text.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace smsupd::smctl {
namespace {

std::string Through(const std::string& text) {
  std::ostringstream out;
  {
    TerminalSafeStream safe(out);
    out << text;
  }
  return out.str();
}

TEST(TerminalSafeTest, ControlsAreShownNotObeyed) {
  EXPECT_EQ(Through("node \x1b[31mred\x1b[0m\n"), "node \\x1b[31mred\\x1b[0m\n");
  EXPECT_EQ(Through("a\tb\x07\x7f\r"), "a\tb\\x07\\x7f\\x0d");
  EXPECT_EQ(Through("csi \xc2\x9b"
                    "2J"),
            "csi \\u{009b}2J");
}

TEST(TerminalSafeTest, TextAndUtf8PassAsTheyAre) {
  EXPECT_EQ(Through("Zürich ¢ ノード\n"), "Zürich ¢ ノード\n");
  EXPECT_EQ(Through("ends in a lone \xc2"), "ends in a lone \\xc2");
}

}  // namespace
}  // namespace smsupd::smctl
