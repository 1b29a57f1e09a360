// sm_key, m_key and sa_key never leave in plain text. A master/standby pair
// runs with all three set, each from its key file; the scenario plans and
// applies a change of m_key and sa_key, hands mastership over, kills the
// master's OpenSM and reloads an invalid key, one in a file another uid
// owns and one behind a symbolic link. Then every output smctl gave,
// both smsupds' whole logs (the journal's text), every event, and every file
// under the nodes' directories that anyone but root may read -- smsupd.yaml
// included: it holds no key -- are searched for each key in every form (hex
// with and without 0x, either case, decimal).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <filesystem>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "tests/daemon/faults/fault_fixture.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed::faults {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

constexpr std::uint64_t kSmKey = 0x5ec2e7000000a001;
constexpr std::uint64_t kMKey = 0x5ec2e7000000a002;
constexpr std::uint64_t kSaKey = 0x5ec2e7000000a003;
constexpr std::uint64_t kNewMKey = 0x5ec2e7000000a004;
constexpr std::uint64_t kNewSaKey = 0x5ec2e7000000a005;

std::string Hex(std::uint64_t key) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64, key);
  return text;
}

// Every way a key could be printed.
std::vector<std::string> Forms(std::uint64_t key) {
  std::string hex = Hex(key).substr(2);
  std::string upper = hex;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  std::string short_hex = hex.substr(hex.find_first_not_of('0'));
  return {hex, upper, short_hex, std::to_string(key)};
}

constexpr int kAnyExit = -1;

class SecretsTest : public FaultTest {
 protected:
  SmsupdConfig KeyedConfig(const std::string& node, const std::string& role) {
    SmsupdConfig config = TenantConfig(node, role);
    config.sm_key_file = KeyFile("sm_key");
    config.m_key_file = KeyFile("m_key");
    config.sa_key_file = KeyFile("sa_key");
    return config;
  }
  std::string KeyFile(const std::string& name) { return fabric().dir() + "/" + name; }
  void WriteKey(const std::string& name, std::uint64_t key) {
    ASSERT_TRUE(WriteFileAtomically(KeyFile(name), Hex(key) + "\n", 0600).ok());
  }

  // Records what smctl printed, for the search at the end (kAnyExit: any
  // exit code).
  SmctlResult Run(ManagementNode& node, const std::vector<std::string>& args, int want_exit) {
    SmctlResult result = node.Smctl(args, kSmctlDeadline);
    if (want_exit >= 0) {
      EXPECT_EQ(result.exit_code, want_exit) << json(args).dump() << ": " << result.Describe();
    }
    outputs_.push_back({"smctl " + json(args).dump() + " on " + node.node(), result.out + result.err});
    return result;
  }

  struct Text {
    std::string where;
    std::string text;
  };
  std::vector<Text> outputs_;
};

TEST_F(SecretsTest, NoKeyInAnyOutputLogEventOrReadableFile) {
  ASSERT_NO_FATAL_FAILURE(StartSmallFabric());
  ASSERT_NO_FATAL_FAILURE(WriteKey("sm_key", kSmKey));
  ASSERT_NO_FATAL_FAILURE(WriteKey("m_key", kMKey));
  ASSERT_NO_FATAL_FAILURE(WriteKey("sa_key", kSaKey));
  const auto& names = fabric().topology().management_nodes();
  ManagementNode* master = AddNode(KeyedConfig(names[0], "master"));
  ManagementNode* standby = AddNode(KeyedConfig(names[1], "standby"));
  ASSERT_TRUE(master != nullptr && standby != nullptr);
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*master, "MASTER"));
  ASSERT_NO_FATAL_FAILURE(StartAndWait(*standby, "STANDBY"));

  for (ManagementNode* node : {master, standby}) {
    Run(*node, {"status"}, 0);
    Run(*node, {"--json", "status"}, 0);
  }
  // A change of both keys (their files' content) and a partition: planned,
  // applied, verified.
  ASSERT_NO_FATAL_FAILURE(WriteKey("m_key", kNewMKey));
  ASSERT_NO_FATAL_FAILURE(WriteKey("sa_key", kNewSaKey));
  for (ManagementNode* node : {master, standby}) {
    AddTenantC(node->config());
    ASSERT_TRUE(node->WriteConfig().ok());
  }
  SmctlResult plan = Run(*master, {"plan"}, 0);
  EXPECT_NE(plan.out.find("m_key"), std::string::npos) << "the plan does not show the m_key change: " << plan.out;
  Run(*master, {"--json", "plan"}, 0);
  Run(*master, {"reload", "--wait"}, 0);
  Run(*standby, {"reload", "--wait"}, 0);
  // Mastership moves, then the new master's OpenSM is killed (its last
  // words go to smsupd's log) and restarted.
  Run(*master, {"failover", "--wait"}, 0);
  ASSERT_TRUE(master->WaitForSmState("STANDBY", kFabricDeadline).ok());
  ASSERT_TRUE(standby->WaitForSmState("MASTER", kFabricDeadline).ok());
  const std::optional<pid_t> killed = standby->OpenSmPid();
  ASSERT_TRUE(standby->KillOpenSm().ok());
  Status settled = WaitFor(
      "a new OpenSM on the killed node and one MASTER, one STANDBY",
      [&](std::string& why) {
        Result<json> a = master->StatusJson(), b = standby->StatusJson();
        if (!a || !b) return false;
        std::string states = a->value("local_sm", json::object()).value("state", std::string()) + "/" +
                             b->value("local_sm", json::object()).value("state", std::string());
        why = "states " + states;
        return standby->OpenSmPid() != killed && (states == "MASTER/STANDBY" || states == "STANDBY/MASTER");
      },
      kFabricDeadline, milliseconds(200));
  ASSERT_TRUE(settled.ok()) << settled.message();
  // An invalid key file: refused, its content not echoed.
  ASSERT_TRUE(WriteFileAtomically(KeyFile("sm_key"), Hex(kSmKey) + "zz\n", 0600).ok());
  Run(*master, {"reload", "--wait"}, 4);  // 4: the config is invalid
  Run(*master, {"plan"}, kAnyExit);
  // A valid key in a file someone else owns, or behind a symbolic link:
  // refused as well, whatever the path's own checks would have said.
  ASSERT_NO_FATAL_FAILURE(WriteKey("sm_key", kSmKey));
  ASSERT_EQ(::chown(KeyFile("sm_key").c_str(), 65534, 65534), 0);
  SmctlResult foreign = Run(*master, {"reload", "--wait"}, 4);
  EXPECT_NE((foreign.out + foreign.err).find("is owned by uid 65534, not root"), std::string::npos)
      << foreign.Describe();
  ASSERT_NO_FATAL_FAILURE(WriteKey("sm_key.real", kSmKey));
  ASSERT_TRUE(std::filesystem::remove(KeyFile("sm_key")));
  std::filesystem::create_symlink(KeyFile("sm_key.real"), KeyFile("sm_key"));
  SmctlResult linked = Run(*master, {"reload", "--wait"}, 4);
  EXPECT_NE((linked.out + linked.err).find("is a symbolic link"), std::string::npos) << linked.Describe();
  ASSERT_TRUE(std::filesystem::remove(KeyFile("sm_key")));
  ASSERT_NO_FATAL_FAILURE(WriteKey("sm_key", kSmKey));
  for (ManagementNode* node : {master, standby}) {
    Run(*node, {"--json", "events"}, 0);
    Run(*node, {"events"}, 0);
    Run(*node, {"--json", "history"}, 0);
    Run(*node, {"--json", "status"}, 0);
  }

  std::vector<Text> texts = outputs_;
  for (ManagementNode* node : {master, standby}) {
    Result<std::string> log = ReadWholeFile(node->smsupd_log());
    ASSERT_TRUE(log.ok());
    texts.push_back({node->node() + "'s smsupd log", *log});
    // Every file anyone but root may read, the node's smsupd.yaml among
    // them (the key files are outside the node's directory).
    bool config_searched = false;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(node->dir())) {
      if (!entry.is_regular_file()) continue;
      struct stat info {};
      if (::stat(entry.path().c_str(), &info) != 0) continue;
      Result<std::string> content = ReadWholeFile(entry.path());
      if (!content.ok()) continue;
      if ((info.st_mode & 0044) == 0) continue;
      texts.push_back({entry.path().string(), *content});
      config_searched |= entry.path() == node->config_path();
    }
    EXPECT_TRUE(config_searched) << node->config_path() << " is not readable by others: the search proves less";
  }
  // The search finds the keys where they belong (or it proves nothing).
  Result<std::string> conf = ReadWholeFile(master->StatePath("opensm.conf"));
  ASSERT_TRUE(conf.ok());
  EXPECT_NE(conf->find(Hex(kNewMKey).substr(2)), std::string::npos) << "opensm.conf holds no m_key";
  struct stat conf_info {};
  ASSERT_EQ(::stat(master->StatePath("opensm.conf").c_str(), &conf_info), 0);
  EXPECT_EQ(conf_info.st_mode & 0077, 0u) << "opensm.conf is readable by others";

  std::size_t searched = 0;
  for (const Text& text : texts) {
    searched += text.text.size();
    for (std::uint64_t key : {kSmKey, kMKey, kSaKey, kNewMKey, kNewSaKey})
      for (const std::string& form : Forms(key)) {
        std::size_t at = text.text.find(form);
        EXPECT_EQ(at, std::string::npos)
            << "key " << form << " in " << text.where << ": ..."
            << text.text.substr(at == std::string::npos ? 0 : (at > 80 ? at - 80 : 0), 200) << "...";
      }
  }
  std::cout << "searched " << texts.size() << " outputs, logs and readable files (" << searched
            << " bytes) for 5 keys in 4 forms each\n";
}

}  // namespace
}  // namespace smsupd::testbed::faults
