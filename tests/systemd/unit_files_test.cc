// The shipped units against what the daemon does: the stop timeout covers
// the longest stop, the instance template is smsupd.service with its own
// paths, the control group reaches the socket directory, and every
// capability kept is explained in docs/systemd.md.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/listen_address.h"
#include "daemon/opensm/opensm_supervisor.h"

namespace smsupd {
namespace {

// "Section.Key" -> every value given, in order (a key may repeat).
using UnitFile = std::map<std::string, std::vector<std::string>>;

std::string ReadSource(const std::string& relative) {
  std::ifstream in(std::string(SMSUPD_SOURCE_DIR) + "/" + relative);
  EXPECT_TRUE(in) << "cannot read " << relative;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

UnitFile ParseUnit(const std::string& relative) {
  UnitFile unit;
  std::istringstream lines(ReadSource(relative));
  std::string line, section;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    unit[section + "." + line.substr(0, equals)].push_back(line.substr(equals + 1));
  }
  return unit;
}

std::string One(const UnitFile& unit, const std::string& key) {
  auto found = unit.find(key);
  if (found == unit.end() || found->second.size() != 1) {
    ADD_FAILURE() << key << " must be given exactly once";
    return "";
  }
  return found->second.front();
}

// systemd time spans as the units write them: "90s", "1min 30s", "90".
std::chrono::seconds Seconds(const std::string& span) {
  std::chrono::seconds total{0};
  std::smatch part;
  std::string rest = span;
  std::regex unit_re(R"(\s*(\d+)\s*(min|s)?)");
  while (std::regex_search(rest, part, unit_re, std::regex_constants::match_continuous)) {
    long value = std::stol(part[1]);
    total += std::chrono::seconds(part[2] == "min" ? 60 * value : value);
    rest = part.suffix();
  }
  EXPECT_TRUE(rest.empty()) << "cannot read the time span '" << span << "'";
  return total;
}

TEST(UnitFiles, StopTimeoutCoversTheLongestStop) {
  // A MASTER hands over first (at most kMaxHandoverTimeoutMs), then OpenSM
  // gets SIGTERM and SIGKILL after stop_deadline; the daemon forces the stop
  // 5 s after both, and that forced stop may wait stop_deadline once more.
  const auto stop_deadline =
      std::chrono::duration_cast<std::chrono::seconds>(SupervisorTuning{}.stop_deadline);
  const auto longest = std::chrono::seconds(config::kMaxHandoverTimeoutMs / 1000) + stop_deadline +
                       std::chrono::seconds(5) + stop_deadline;
  for (const char* file : {"systemd/smsupd.service", "systemd/smsupd@.service"}) {
    UnitFile unit = ParseUnit(file);
    EXPECT_GE(Seconds(One(unit, "Service.TimeoutStopSec")), longest) << file;
    EXPECT_EQ(One(unit, "Service.KillMode"), "process") << file << ": OpenSM must outlive smsupd";
    EXPECT_EQ(One(unit, "Service.Type"), "notify") << file;
  }
}

// smsupd@NAME.service is smsupd.service with NAME's config and directories.
TEST(UnitFiles, InstanceTemplateIsTheMainUnitWithItsOwnPaths) {
  UnitFile main = ParseUnit("systemd/smsupd.service");
  UnitFile instance = ParseUnit("systemd/smsupd@.service");
  const std::map<std::string, std::string> own = {
      {"Service.ExecStart", "/usr/sbin/smsupd --config /etc/smsupd/%i.yaml"},
      {"Service.ExecStartPre",
       "+/bin/sh -c 'guid=$$(/usr/sbin/smsupd --port-guid /etc/smsupd/%i.yaml) || exit 0; "
       "systemctl stop \"opensm@$$guid.service\"'"},
      {"Service.ExecReload", "/usr/bin/smctl -i %i reload"},
      {"Service.RuntimeDirectory", "smsupd-%i"},
      {"Service.StateDirectory", "smsupd-%i"},
      {"Service.LogsDirectory", "smsupd-%i"},
      {"Unit.Description", ""},
      {"Unit.Conflicts", "opensm.service opensm@%i.service"},
  };
  std::set<std::string> keys;
  for (const auto& [key, values] : main) keys.insert(key);
  for (const auto& [key, values] : instance) keys.insert(key);
  for (const std::string& key : keys) {
    auto expected = own.find(key);
    if (expected == own.end()) {
      EXPECT_EQ(main[key], instance[key])
          << key << " differs between smsupd.service and smsupd@.service";
    } else if (!expected->second.empty()) {
      EXPECT_EQ(One(instance, key), expected->second) << key;
    }
  }
}

// Boot order and restart policy: the SM before the network (ports become
// ACTIVE only after its sweep), only where the umad driver is, an invalid
// config not restarted, a reload that reports a rejected config, and a stop
// that leaves no OpenSM behind (docs/systemd.md).
TEST(UnitFiles, BootOrderAndRestartPolicy) {
  for (const char* file : {"systemd/smsupd.service", "systemd/smsupd@.service"}) {
    UnitFile unit = ParseUnit(file);
    EXPECT_EQ(One(unit, "Unit.Before"), "network.target remote-fs-pre.target") << file;
    EXPECT_EQ(One(unit, "Unit.After"), "rdma-hw.target") << file << ": never after the network";
    EXPECT_EQ(One(unit, "Unit.ConditionPathExists"), "/sys/class/infiniband_mad/abi_version") << file;
    EXPECT_EQ(One(unit, "Service.Restart"), "on-failure") << file;
    EXPECT_EQ(One(unit, "Service.RestartPreventExitStatus"), "78") << file << ": kExitConfigInvalid";
    EXPECT_EQ(One(unit, "Service.ExecStopPost"), "/usr/sbin/smsupd --stop-post") << file;
    EXPECT_NE(One(unit, "Service.ExecReload").find("/usr/bin/smctl -i "), std::string::npos) << file;
    const std::string pre = One(unit, "Service.ExecStartPre");
    EXPECT_EQ(pre.find("opensm@*"), std::string::npos) << file << ": only the own port's instance";
    EXPECT_NE(pre.find("--port-guid"), std::string::npos) << file;
  }
}

// systemd makes the runtime directory root 0750 and smsupd gives it and the
// socket control.group (needs CAP_CHOWN); the shipped config names the
// group the package creates.
TEST(UnitFiles, ControlGroupReachesTheSocketDirectory) {
  UnitFile unit = ParseUnit("systemd/smsupd.service");
  EXPECT_EQ(One(unit, "Service.RuntimeDirectoryMode"), "0750");
  EXPECT_EQ(One(unit, "Service.StateDirectoryMode"), "0700") << "the state holds the SM_Key";
  EXPECT_NE(One(unit, "Service.CapabilityBoundingSet").find("CAP_CHOWN"), std::string::npos);
  EXPECT_NE(ReadSource("systemd/smsupd.sysusers").find("\ng smsupd "), std::string::npos);
  std::string example = ReadSource("docs/example-smsupd.yaml");
  EXPECT_TRUE(std::regex_search(example, std::regex(R"(\n  group: smsupd\b)")))
      << "the shipped config's control.group must be the packaged group";
}

TEST(UnitFiles, EveryCapabilityKeptIsExplained) {
  std::string doc = ReadSource("docs/systemd.md");
  UnitFile unit = ParseUnit("systemd/smsupd.service");
  std::istringstream capabilities(One(unit, "Service.CapabilityBoundingSet"));
  std::string capability;
  int kept = 0;
  while (capabilities >> capability) {
    ++kept;
    EXPECT_NE(doc.find("| `" + capability + "` |"), std::string::npos)
        << capability << " is kept but docs/systemd.md has no row saying why";
  }
  EXPECT_GT(kept, 0) << "an empty CapabilityBoundingSet= would mean every capability";
}

// Devices: none but those the kernel's umad driver registers as
// "infiniband_mad" (umadN and issmN, the fixed major 231 and the one it
// allocates past the first ports); DevicePolicy=closed keeps /dev/null,
// /dev/urandom and the like.
TEST(UnitFiles, OnlyTheUmadAndIssmDevicesAreOpen) {
  for (const char* file : {"systemd/smsupd.service", "systemd/smsupd@.service"}) {
    UnitFile unit = ParseUnit(file);
    EXPECT_EQ(One(unit, "Service.DevicePolicy"), "closed") << file;
    EXPECT_EQ(One(unit, "Service.DeviceAllow"), "char-infiniband_mad rw") << file;
  }
}

// IP to and from localhost only; a remote metrics listener needs the
// drop-in that the validator's warning and docs/systemd.md name.
TEST(UnitFiles, IpIsForLocalhostOnlyAndTheDropInIsDocumented) {
  for (const char* file : {"systemd/smsupd.service", "systemd/smsupd@.service"}) {
    UnitFile unit = ParseUnit(file);
    EXPECT_EQ(One(unit, "Service.IPAddressDeny"), "any") << file;
    EXPECT_EQ(One(unit, "Service.IPAddressAllow"), "localhost") << file;
  }
  const std::string doc = ReadSource("docs/systemd.md");
  EXPECT_NE(doc.find(config::kMetricsDropInPath), std::string::npos)
      << "docs/systemd.md must show the drop-in " << config::kMetricsDropInPath;
  EXPECT_NE(doc.find("IPAddressAllow="), std::string::npos);
}

// systemd sizes: "4G", "512M", "1024" (bytes).
std::uint64_t Bytes(const std::string& size) {
  std::size_t end = 0;
  const std::uint64_t value = std::stoull(size, &end);
  const std::string unit = size.substr(end);
  if (unit == "G") return value << 30;
  if (unit == "M") return value << 20;
  EXPECT_EQ(unit, "") << "cannot read the size '" << size << "'";
  return value;
}

// The bounds of docs/systemd.md "Memory and tasks": what smsupd and OpenSM
// need at the limits of smsupd's own bounds, with the margin stated there.
// OOMPolicy=continue: an OOM kill ends one process, never the whole unit
// (a stop would hand mastership over).
TEST(UnitFiles, MemoryAndTasksAreBoundedAboveWhatTheNodeNeeds) {
  constexpr std::uint64_t kMiB = 1 << 20;
  // smsupd at rest (60 MB), two member/root jobs and a reload at the config
  // bounds (400 MB each), OpenSM on a 10,000-HCA fabric (estimated 400 MB).
  constexpr std::uint64_t kNeededBytes = (60 + 3 * 400 + 400) * kMiB;
  // smsupd's 12 threads, OpenSM's 9 and one per CPU for 512 CPUs, a hook
  // and what it runs, systemctl/kill of ExecStartPre=/ExecReload=.
  constexpr std::uint64_t kNeededTasks = 12 + 9 + 512 + 64 + 2;
  for (const char* file : {"systemd/smsupd.service", "systemd/smsupd@.service"}) {
    UnitFile unit = ParseUnit(file);
    EXPECT_GE(Bytes(One(unit, "Service.MemoryMax")), 2 * kNeededBytes) << file << ": a margin of 2x";
    EXPECT_GE(std::stoull(One(unit, "Service.TasksMax")), kNeededTasks + kNeededTasks / 2) << file;
    EXPECT_EQ(One(unit, "Service.OOMPolicy"), "continue") << file;
  }
}

}  // namespace
}  // namespace smsupd
