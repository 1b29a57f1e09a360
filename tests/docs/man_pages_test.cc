// The man pages against the programs and the reference docs: every smctl
// command (the protocol's list and smctl's own offline ones) and every
// option smctl and smsupd accept is in the pages, every command is in README
// and docs/smctl.md, every key of docs/config-reference.md is in
// smsupd.yaml(5), and that page's example is a valid config.
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/control_protocol.h"

namespace smsupd {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Source(const std::string& relative) {
  return Read(std::string(SMSUPD_SOURCE_DIR) + "/" + relative);
}

// stdout of `command` (a shell command line); fails the test on a non-zero exit.
std::string Output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return out;
  }
  char buffer[4096];
  while (size_t n = ::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << " failed";
  return out;
}

// The names CLI11 lists under `heading` ("Options:", "Subcommands:") of a
// --help text: each line's first word(s), e.g. "-c,--config TEXT" -> -c, --config.
std::set<std::string> HelpEntries(const std::string& help, const std::string& heading) {
  std::set<std::string> names;
  std::istringstream lines(help);
  std::string line;
  bool inside = false;
  std::regex entry(R"(^  ([-a-z][-a-z,]*))");
  while (std::getline(lines, line)) {
    if (!line.empty() && line[0] != ' ') inside = line == heading;
    std::smatch match;
    if (!inside || !std::regex_search(line, match, entry)) continue;
    std::stringstream parts(match[1].str());
    std::string name;
    while (std::getline(parts, name, ','))
      if (!name.empty()) names.insert(name);
  }
  return names;
}

std::set<std::string> SmctlCommands() {
  std::set<std::string> names;
  for (const control::CommandInfo& command : control::kCommands)
    if (command.name != "twin-plan") names.insert(std::string(command.name));  // `smctl plan --twin`
  names.insert("validate");  // smctl's offline commands
  names.insert("render");
  std::set<std::string> listed = HelpEntries(Output(SMCTL_BINARY " --help"), "Subcommands:");
  EXPECT_FALSE(listed.empty());
  names.insert(listed.begin(), listed.end());
  return names;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ManPages, PlanTwinIsInTheManPageReadmeAndSmctlDoc) {
  EXPECT_TRUE(Has(Source("docs/man/smctl.8.md"), "**plan** [*FILE*] **--twin**"));
  EXPECT_TRUE(Has(Source("README.md"), "`smctl plan --twin"));
  EXPECT_TRUE(Has(Source("docs/smctl.md"), "### `smctl plan --twin"));
}

TEST(ManPages, EveryCommandIsInTheManPageReadmeAndSmctlDoc) {
  const std::string page = Source("docs/man/smctl.8.md");
  const std::string readme = Source("README.md");
  const std::string reference = Source("docs/smctl.md");
  for (const std::string& name : SmctlCommands()) {
    EXPECT_TRUE(std::regex_search(page, std::regex("\n\\*\\*" + name + "\\*\\*")))
        << "smctl(8) has no entry **" << name << "** under COMMANDS";
    EXPECT_TRUE(Has(readme, "`smctl " + name)) << "README's command table lacks smctl " << name;
    EXPECT_TRUE(Has(reference, "### `smctl " + name))
        << "docs/smctl.md has no section for " << name;
  }
}

TEST(ManPages, EveryOptionIsInTheManPages) {
  const std::string smctl_page = Source("docs/man/smctl.8.md");
  const std::string help = Output(SMCTL_BINARY " --help");
  std::set<std::string> options = HelpEntries(help, "Options:");
  for (const std::string& command : HelpEntries(help, "Subcommands:")) {
    std::set<std::string> more =
        HelpEntries(Output(SMCTL_BINARY " " + command + " --help"), "Options:");
    options.insert(more.begin(), more.end());
  }
  EXPECT_TRUE(options.count("--socket") && options.count("--instance"))
      << "cannot read smctl --help";
  for (const std::string& option : options)
    EXPECT_TRUE(Has(smctl_page, "**" + option + "**")) << "smctl(8) does not explain " << option;

  const std::string smsupd_page = Source("docs/man/smsupd.8.md");
  std::set<std::string> daemon = HelpEntries(Output(SMSUPD_BINARY " --help"), "Options:");
  EXPECT_TRUE(daemon.count("--check")) << "cannot read smsupd --help";
  for (const std::string& option : daemon)
    EXPECT_TRUE(Has(smsupd_page, "**" + option + "**")) << "smsupd(8) does not explain " << option;
}

// Keys are the first column of docs/config-reference.md's tables headed
// "key"; a table under "## `sm`" or "### `sm.failover`" holds keys of that
// section. The page names a key in bold, by its name or its dotted path.
TEST(ManPages, EveryConfigKeyIsInSmsupdYaml5) {
  const std::string page = Source("docs/man/smsupd.yaml.5.md");
  std::istringstream lines(Source("docs/config-reference.md"));
  std::string line, section;
  bool key_table = false;
  int keys = 0;
  std::regex heading(R"(^##+ (`([a-z_.]+)`|.*)$)"), row(R"(^\| `([a-z_.]+)` \|)");
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, heading)) {
      section = match[2].str();
      key_table = false;
    } else if (line.rfind("| key |", 0) == 0) {
      key_table = true;
    } else if (line.empty() || line[0] != '|') {
      key_table = false;
    } else if (key_table && std::regex_search(line, match, row)) {
      const std::string key = match[1].str();
      const std::string path =
          section.empty() || section == "partitions" ? key : section + "." + key;
      ++keys;
      EXPECT_TRUE(Has(page, "**" + key + "**") || Has(page, "**" + path + "**"))
          << "smsupd.yaml(5) does not describe " << path;
    }
  }
  EXPECT_GT(keys, 40) << "cannot read the key tables of docs/config-reference.md";
}

TEST(ManPages, TheConfigPagesExampleIsValid) {
  std::istringstream lines(Source("docs/man/smsupd.yaml.5.md"));
  std::string line, yaml;
  bool inside = false;
  while (std::getline(lines, line)) {
    if (line.rfind("# ", 0) == 0)
      inside = line == "# EXAMPLE";
    else if (inside && line.rfind("    ", 0) == 0)
      yaml += line.substr(4) + "\n";
    else if (inside && !yaml.empty() && !line.empty())
      break;
  }
  ASSERT_FALSE(yaml.empty()) << "smsupd.yaml(5) has no example";
  std::string path = ::testing::TempDir() + "/man-example.yaml";
  std::ofstream(path) << yaml;
  Output(SMCTL_BINARY " validate " + path);
}

}  // namespace
}  // namespace smsupd
