// The plain data model of smsupd.yaml, schema version 1 (docs/config-reference.md).
// A Config only ever exists after LoadAndValidate() accepted it: every value
// here is in range, every host and group a member names exists, and no group
// cycle remains. Nothing in this header touches the file system.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/cabling_csv.h"

namespace smsupd::config {

inline constexpr int kSchemaVersion = 1;
inline constexpr int kDefaultMasterPriority = 15;
inline constexpr int kDefaultStandbyPriority = 5;
inline constexpr std::uint16_t kDefaultPKey = 0x7fff;
// Bit 15 of a P_Key table entry: full membership.
inline constexpr std::uint16_t kPKeyFullBit = 0x8000;
// Priorities the failover policy uses itself (docs/failover.md), refused in
// sm.priority: a master yielding mastership drops to 0, a standby claiming
// it back announces 14.
inline constexpr int kYieldingPriority = 0;
inline constexpr int kClaimPriority = 14;

enum class Role { kMaster, kStandby };

// Strength order matters: the product rule picks the stronger membership
// between selectors of the same rank (both > full > limited).
enum class Membership { kLimited = 0, kFull = 1, kBoth = 2 };

// The port keywords OpenSM knows in partitions.conf.
enum class PortsKeyword { kAll, kAllCas, kAllSwitches, kAllRouters, kSelf };

// One entry of a partition's `members` list. Exactly one selector is set,
// named by `kind`.
struct Member {
  enum class Kind { kPorts, kGroup, kHost, kGuid };
  Kind kind = Kind::kPorts;
  PortsKeyword ports = PortsKeyword::kAll;  // kind == kPorts
  std::string name;                         // kind == kGroup or kHost
  Guid guid = 0;                            // kind == kGuid
  Membership membership = Membership::kFull;
  int line = 0;  // 1-based position in the YAML, for later diagnostics
  int column = 0;
};

struct Partition {
  std::string name;
  std::uint16_t pkey = 0;  // 15 bits, 0x0001..0x7fff
  bool ipoib = false;
  std::optional<int> mtu;           // bytes: 256, 512, 1024, 2048, 4096
  std::optional<double> rate_gbps;  // one of the rates OpenSM knows
  std::optional<int> sl;            // 0..15
  std::optional<int> scope;         // 1..15
  std::optional<std::uint32_t> qkey;
  std::optional<int> tclass;  // 0..255
  bool indx0 = false;
  std::optional<Membership> defmember;  // also the default of its members
  std::vector<Member> members;
  int line = 0;
};

struct OpenSmSettings {
  std::string binary = "/usr/sbin/opensm";
  std::string log_file;  // empty: the daemon picks one under state_dir
  // Any other opensm.conf option by its OpenSM name. Values are normalised
  // to what OpenSM reads (booleans as TRUE/FALSE).
  std::map<std::string, std::string> options;
};

// The longest sm.failover.handover_timeout_ms. A stop of the MASTER waits
// for its handover first, so the packaged units' TimeoutStopSec is sized
// from it (systemd/smsupd.service; tests/systemd/unit_files_test.cc).
inline constexpr int kMaxHandoverTimeoutMs = 60000;

// sm.failover: the failover policy's timing (docs/failover.md). None of
// these is an OpenSM option; smsupd polls and decides itself.
struct FailoverSettings {
  int poll_interval_ms = 150;        // master liveness SMInfo poll, 50..1000
  int miss_threshold = 3;            // missed polls before the master counts as gone, 1..20
  int inventory_interval_ms = 2000;  // SA SMInfoRecords + direct SMInfo of known SMs, 500..60000
  int hold_time_s = 60;              // a returning master's healthy time before preempting, 0..3600
  int handover_timeout_ms = 5000;    // a handover not seen on the fabric by then failed, 1000..60000
  // A MASTER whose OpenSM has not ended its first sweep (SUBNET UP) by then,
  // and has stopped sending at a sweep's rate, is treated as failed, 5000..600000.
  int master_sweep_timeout_ms = 30000;
};

struct SmSettings {
  std::optional<Guid> port_guid;
  Role role = Role::kMaster;
  int priority = kDefaultMasterPriority;
  bool preempt = true;
  // The keys come only from root-only files (config/key_file.h), never
  // from the YAML: OpenSM's sm_key, m_key and sa_key.
  std::string sm_key_file;
  std::optional<std::uint64_t> sm_key;  // read from sm_key_file
  std::string m_key_file;
  std::optional<std::uint64_t> m_key;  // read from m_key_file
  std::string sa_key_file;
  std::optional<std::uint64_t> sa_key;  // read from sa_key_file
  OpenSmSettings opensm;
  FailoverSettings failover;
};

struct ControlSettings {
  std::string socket = "/run/smsupd/smsupd.sock";
  std::string group;  // empty: only root may use smctl
};

struct Limits {
  int pkeys_per_port = 128;
};

// generations: how many applied configs state_dir/generations keeps.
struct GenerationSettings {
  int keep = 20;  // 2..1000; the current generation is never pruned
};

// verify: the P_Key check on the fabric after each apply.
struct VerifySettings {
  int sample_ports = 32;  // ALL-member ports read besides the ones the config names, 0..100000
  int timeout_s = 20;     // default wait for the heavy sweep + verification, 1..600
};

// apply.twin: whether a reload is first run on the twin (docs/twin.md
// "The twin as a gate"): never unless asked (`smctl reload --twin`), on
// every reload with the verdict reported, or on every reload as a gate.
enum class TwinGate { kOff, kAdvisory, kRequired };

// apply.twin_readiness_interval_s: 0 (off) or at least this many seconds;
// a twin run takes seconds of CPU and starts an OpenSM, so not more often.
inline constexpr int kMinTwinReadinessIntervalS = 60;
inline constexpr int kMaxTwinReadinessIntervalS = 86400;

// apply: how a config change is let through (docs/twin.md).
struct ApplySettings {
  TwinGate twin = TwinGate::kOff;
  // On a STANDBY: how often the twin checks what a takeover would change
  // (TAKEOVER_WOULD_CHANGE); 0: never.
  int twin_readiness_interval_s = 0;
};

// metrics: the Prometheus HTTP listener (docs/metrics.md). `smctl metrics`
// works whatever this says.
struct MetricsSettings {
  std::string listen;         // "HOST:PORT"; empty: no listener (the default)
  bool allow_remote = false;  // a non-loopback HOST is refused unless true
  // The fabric's name in smsupd_subnet_info{subnet}, the same on both
  // daemons of a pair; empty: the subnet prefix names it.
  std::string subnet;
};

// metrics.subnet: at most this many characters of [A-Za-z0-9._-].
inline constexpr std::size_t kMaxSubnetNameLength = 63;

// hooks: executables run for each event (docs/hooks.md).
struct HookSettings {
  std::string directory;   // empty: no hooks (the default)
  int timeout_ms = 10000;  // per hook run, 100..600000; then SIGTERM, SIGKILL
};

// The optional `cabling` section: the port map, from a CSV file it names
// or inline rows (docs/cabling.md). `declared` is false when the section
// is absent: nothing is compared then. The file is read when the config is
// validated: its rows are part of the config, and a change of only the
// file is a change of the config (file_sha256).
struct CablingSettings {
  bool declared = false;
  std::string file;                   // the CSV file, if that form is used
  std::string file_sha256;            // hex SHA-256 of the file as read; empty without a file
  std::vector<DeclaredCable> cables;  // parsed and checked rows; lines point into the file or the YAML
};

struct Config {
  int version = kSchemaVersion;
  std::string node;  // empty in the file: the host name
  SmSettings sm;
  std::string state_dir = "/var/lib/smsupd";
  ControlSettings control;
  std::map<std::string, std::vector<Guid>> hosts;
  std::map<std::string, std::vector<std::string>> groups;  // host or group names
  Limits limits;
  GenerationSettings generations;
  VerifySettings verify;
  ApplySettings apply;
  MetricsSettings metrics;
  HookSettings hooks;
  CablingSettings cabling;
  std::vector<Partition> partitions;
  std::string source_path;
  std::string source_text;  // the YAML as read; config_hash is taken over it
};

const char* RoleName(Role role);
const char* MembershipName(Membership membership);  // "full", "limited", "both"
const char* PortsKeywordName(PortsKeyword keyword);  // "ALL", "ALL_CAS", ...
const char* TwinGateName(TwinGate gate);             // "off", "advisory", "required"

}  // namespace smsupd::config
