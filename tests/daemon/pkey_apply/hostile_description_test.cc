// A NodeDescription is 64 bytes any switch or HCA chooses. One HCA here
// says bytes that are not UTF-8 and terminal escape sequences, and its port
// fails verification (OpenSM reads a corrupt partitions.conf), so what it
// says reaches every place a failed apply writes to: the reply, meta.json,
// the event, a hook's environment, the journal and `smctl events`. The
// apply must finish, the daemon must stay up, and each of them must carry
// the description as printable, escaped text.
//
// ibsim reads its net file line by line, so a description holding a newline
// cannot be simulated; PrintableTextTest and the mad_decoders fuzzer cover
// that byte, which goes through the same decoding.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/daemon/pkey_apply/pkey_apply_fixture.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::pkey {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// Not in the config's hosts (nor in any partition but ALL), so smsupd can
// only name it by what it says.
constexpr const char* kHostileHca = "H2_4";
// 0xff is no UTF-8 (a strict JSON writer throws on it); ESC ]0;...BEL sets
// a terminal's title, ESC [31m colours what follows, ESC [2J clears it.
const std::string kHostileDescription = "evil\xff \x1b]0;owned\x07 \x1b[31mred\x1b[2J";
// The same as smsupd shows it (common/printable_text.h).
const std::string kEscapedDescription = R"(evil\xff \x1b]0;owned\x07 \x1b[31mred\x1b[2J)";

// `text` as it appears inside a JSON string.
std::string InJson(const std::string& text) {
  const std::string quoted = json(text).dump();
  return quoted.substr(1, quoted.size() - 2);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "" when `text` holds no byte a terminal would obey and is valid UTF-8
// (a strict JSON dump of it checks that); else what is wrong.
std::string Unprintable(const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f)
      return "control byte " + std::to_string(c) + " at " + std::to_string(i);
  }
  try {
    if (json(text).dump().empty()) return "no JSON";
  } catch (const json::exception& error) {
    return std::string("not UTF-8: ") + error.what();
  }
  return "";
}

class HostileDescriptionTest : public PKeyApplyTest {
 protected:
  void ShapeTopology(Topology& topology) override {
    ASSERT_TRUE(topology.SetDescription(kHostileHca, kHostileDescription).ok());
  }
  // Unnamed in the config, and a hook that records what a failed
  // verification tells it.
  void ConfigureNode(SmsupdConfig& config) override {
    config.hosts.erase(kHostileHca);
    const std::string hooks = fabric().dir() + "/hooks";
    std::filesystem::create_directories(hooks);
    ::chmod(hooks.c_str(), 0755);
    const std::string hook = hooks + "/50-record";
    std::ofstream(hook)
        << "#!/bin/sh\n[ \"$1\" = pkey-verify-failed ] || exit 0\n"
        << "printf 'TEXT %s\\nDETAILS %s\\n' \"$SMSUPD_TEXT\" \"$SMSUPD_DETAILS\" >> " << Record()
        << "\n";
    ::chmod(hook.c_str(), 0755);
    config.extra += "hooks:\n  directory: " + hooks + "\n  timeout_ms: 5000\n";
  }
  std::string Record() { return fabric().dir() + "/hook-record"; }
};

TEST_F(HostileDescriptionTest, AFailedApplyCarriesTheDescriptionAsEscapedText) {
  const std::uint64_t generation = Generation(master());
  master().config().partitions.push_back(
      {"tenant-c", 0x0030, false, std::nullopt, {HostMember("H2_3", "full")}});
  SmctlResult reply = ReloadThatOpenSmReadsCorrupted();
  ASSERT_FALSE(HasFailure());

  // The apply finished (failed and rolled back) and the daemon answers.
  EXPECT_EQ(reply.exit_code, 1) << reply.Describe();
  EXPECT_EQ(reply.VerificationState(), "failed") << reply.Describe();
  EXPECT_EQ(Unprintable(reply.out), "") << reply.out;
  EXPECT_NE(reply.out.find(InJson(kEscapedDescription)), std::string::npos)
      << "the reply does not name the port by its escaped description: " << reply.out;
  EXPECT_TRUE(master().Running()) << master().LogTail();
  SmctlResult status = master().Smctl({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.Describe();

  // meta.json of the failed generation is valid JSON naming the port.
  const std::string meta =
      ReadFile(master().StatePath("generations/" + std::to_string(generation + 1) + "/meta.json"));
  json parsed = json::parse(meta, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << meta;
  EXPECT_NE(parsed.dump().find(InJson(kEscapedDescription)), std::string::npos) << meta;

  // The hook saw it escaped, in the event's text or details.
  Status recorded = WaitFor(
      "the hook to record pkey-verify-failed",
      [&] { return ReadFile(Record()).find("\nDETAILS ") != std::string::npos; },
      milliseconds(30000), milliseconds(100));
  ASSERT_TRUE(recorded.ok()) << recorded.message() << "\n" << master().LogTail();
  const std::string record = ReadFile(Record());
  EXPECT_EQ(Unprintable(record), "") << record;
  EXPECT_NE(record.find(InJson(kEscapedDescription)), std::string::npos) << record;

  // Neither `smctl events` nor the daemon's log carries a raw byte of it.
  SmctlResult events = master().Smctl({"events"});
  EXPECT_EQ(events.exit_code, 0) << events.Describe();
  EXPECT_EQ(Unprintable(events.out), "") << events.out;
  EXPECT_NE(events.out.find("pkey-verify-failed"), std::string::npos) << events.out;
  const std::string log = ReadFile(master().smsupd_log());
  EXPECT_EQ(log.find('\x1b'), std::string::npos) << master().LogTail();
  EXPECT_EQ(log.find('\xff'), std::string::npos) << master().LogTail();
  EXPECT_NE(log.find(kEscapedDescription), std::string::npos) << master().LogTail();
}

}  // namespace
}  // namespace smsupd::testbed::pkey
