// The offline commands: output forms, exit codes, files written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "config/commands.h"
#include "tests/config/test_support.h"

namespace smsupd::config {
namespace {

using testing::BaseYaml;
using testing::TempDir;

class CommandsTest : public ::testing::Test {
 protected:
  TempDir dir_;
  std::ostringstream out_;
  std::ostringstream err_;
};

TEST_F(CommandsTest, ValidFileExitsZeroWithSummary) {
  std::string file = dir_.Write("ok.yaml", BaseYaml());
  EXPECT_EQ(RunValidateCommand(file, false, out_, err_), kExitValid);
  EXPECT_EQ(out_.str(), file + ": valid (0 errors, 0 warnings)\n");
  EXPECT_EQ(err_.str(), "");
}

TEST_F(CommandsTest, InvalidFileExitsOneWithEveryDiagnostic) {
  std::string file = dir_.Write("bad.yaml", "version: 1\nsm:\n  role: boss\n  priority: 99\n");
  EXPECT_EQ(RunValidateCommand(file, false, out_, err_), kExitInvalid);
  EXPECT_EQ(err_.str(),
            file + ":3:9: error: sm.role: 'boss' is not valid; valid: master, standby\n" + file +
                ":4:13: error: sm.priority: 99 is out of range; expected an integer 0..15\n" + file +
                ": warning: partitions: no partitions: rendering 'Default=0x7fff, ipoib : ALL=full "
                ";'; what OpenSM does without a partitions file; declare partitions to isolate ports\n");
  EXPECT_EQ(out_.str(), file + ": invalid (2 errors, 1 warning)\n");
}

// smctl validate and smsupd --check run this command: a bad row of the
// cabling CSV the YAML names is reported at the CSV's line.
TEST_F(CommandsTest, ABadCablingCsvRowIsReportedAtItsLine) {
  std::string csv = dir_.Write("cabling.csv", "switch,switch_port,peer,peer_port\nleaf01,1,gpu01,1\nleaf01,999,gpu02,1\n");
  std::string file = dir_.Write("ok.yaml", BaseYaml() + "cabling:\n  file: " + csv + "\n");
  EXPECT_EQ(RunValidateCommand(file, false, out_, err_), kExitInvalid);
  EXPECT_EQ(err_.str(), csv + ":3:8: error: switch_port '999' is not a port; a port number 1..254\n");
  EXPECT_EQ(out_.str(), file + ": invalid (1 error, 0 warnings)\n");
  std::ostringstream json;
  EXPECT_EQ(RunValidateCommand(file, true, json, err_), kExitInvalid);
  nlohmann::json error = nlohmann::json::parse(json.str())["errors"][0];
  EXPECT_EQ(error["file"], csv);
  EXPECT_EQ(error["line"], 3);
}

TEST_F(CommandsTest, UnreadableFileExitsTwo) {
  EXPECT_EQ(RunValidateCommand(dir_.path() + "/absent.yaml", false, out_, err_), kExitUnreadable);
  EXPECT_NE(err_.str().find("No such file"), std::string::npos);
  std::ostringstream json;
  EXPECT_EQ(RunValidateCommand(dir_.path() + "/absent.yaml", true, json, err_), kExitUnreadable);
  EXPECT_FALSE(nlohmann::json::parse(json.str())["valid"].get<bool>());
}

TEST_F(CommandsTest, JsonFormListsErrorsAndWarnings) {
  std::string file = dir_.Write("bad.yaml", BaseYaml("  priority: 3\n  prority: 3\n"));
  EXPECT_EQ(RunValidateCommand(file, true, out_, err_), kExitInvalid);
  nlohmann::json document = nlohmann::json::parse(out_.str());
  EXPECT_FALSE(document["valid"].get<bool>());
  ASSERT_EQ(document["errors"].size(), 1u);
  ASSERT_EQ(document["warnings"].size(), 1u);
  const nlohmann::json& error = document["errors"][0];
  EXPECT_EQ(error["file"], file);
  EXPECT_EQ(error["line"], 5);
  EXPECT_EQ(error["column"], 3);
  EXPECT_EQ(error["path"], "sm.prority");
  EXPECT_EQ(error["message"], "unknown key 'prority'");
  EXPECT_EQ(error["hint"], "did you mean 'priority'?");
  EXPECT_EQ(document["warnings"][0]["path"], "sm.priority");
  EXPECT_EQ(err_.str(), "");
}

TEST_F(CommandsTest, RenderWritesBothFiles) {
  std::string file = dir_.Write("ok.yaml", BaseYaml());
  std::string out_dir = dir_.path() + "/out";
  mkdir(out_dir.c_str(), 0755);
  EXPECT_EQ(RunRenderCommand(file, out_dir, out_, err_), kExitValid) << err_.str();
  struct stat info;
  ASSERT_EQ(stat((out_dir + "/partitions.conf").c_str(), &info), 0);
  ASSERT_EQ(stat((out_dir + "/opensm.conf").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << "it may hold keys: always 0600";
}

TEST_F(CommandsTest, RenderWithKeyWritesMode0600) {
  std::string key = dir_.Write("sm_key", "0x00000000deadbeef\n", 0600);
  std::string file = dir_.Write("ok.yaml", BaseYaml("  sm_key_file: " + key + "\n"));
  EXPECT_EQ(RunRenderCommand(file, dir_.path(), out_, err_), kExitValid) << err_.str();
  struct stat info;
  ASSERT_EQ(stat((dir_.path() + "/opensm.conf").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(CommandsTest, RenderRefusesInvalidConfigAndMissingDirectory) {
  std::string bad = dir_.Write("bad.yaml", "version: 3\n");
  EXPECT_EQ(RunRenderCommand(bad, dir_.path(), out_, err_), kExitInvalid);
  struct stat info;
  EXPECT_NE(stat((dir_.path() + "/partitions.conf").c_str(), &info), 0);
  std::string ok = dir_.Write("ok.yaml", BaseYaml());
  EXPECT_EQ(RunRenderCommand(ok, dir_.path() + "/nope", out_, err_), kExitInvalid);
}

}  // namespace
}  // namespace smsupd::config
