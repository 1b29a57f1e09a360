// Proof that the fabric holds the P_Key tables a config implies: reads the
// P_Key table of every end port the config names, plus a sample of the
// others, over SMPs and compares each with config::ExpectedPKeyEntries().
//
// What "matches" means: the set of (P_Key, full) entries in the port's
// table equals the expected set; empty slots (0x0000) and order are
// ignored. A `both` membership expects both entries.
//
// Which ports: every GUID of the hosts and guid members the partitions
// reference (through groups too) and the master SM's port (SELF and the
// SM-port base rule), then up to `sample_ports` other discovered end ports
// that only keyword selectors (ALL, ALL_CAS, ...) and the 0x7fff base rule
// reach: picked evenly over the port GUID order, deterministic, with at
// least one switch port 0 when the fabric has switches.
//
// OpenSM's fallback (docs/opensm-behaviour.md "partitions.conf errors: fallback to the default
// partition": any partitions.conf error puts every port in 0x7fff as a full member and drops every
// other partition) is reported as `default_fallback`, apart from ordinary mismatches.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/guid.h"
#include "config/config.h"
#include "config/pkey_tables.h"
#include "daemon/fabric/fabric.h"

namespace smsupd {

struct PKeyMismatch {
  Guid guid = 0;
  uint16_t lid = 0;
  std::string host;  // inventory host name, else the node description
  std::map<uint16_t, bool> expected, actual;  // 15-bit pkey -> full
  // The raw 16-bit entries (bit 15 = full) behind the two maps: a `both`
  // membership differs from `full` only here.
  std::set<uint16_t> expected_entries, actual_entries;
  // "h3 0x..: 0x8001 expected full, is limited; 0x0005 missing"
  std::string Describe() const;
};

struct PKeyVerification {
  int checked = 0;   // ports whose table was read
  int expected = 0;  // ports the verifier meant to read
  std::vector<PKeyMismatch> mismatches;
  std::vector<std::string> unreachable;  // ports that did not answer ("h3 0x..: reason")
  // Named ports the walk did not find (powered off, cabled elsewhere):
  // OpenSM skips a GUID that is not on the fabric, so they are reported,
  // not failed.
  std::vector<std::string> absent;
  bool default_fallback = false;  // looks like OpenSM dropped the partitions file

  // No mismatch, no unreachable port, no fallback, and at least one port read.
  bool ok() const;
  // "verified 40/40 ports" or "verification failed: 3 mismatches, 1 unreachable port"
  // (plus "; OpenSM fell back to the default partition" and absent ports).
  std::string Summary() const;
  // {ok, summary, checked, expected, default_fallback,
  //  mismatches[{guid, lid, host, expected{"0x0001":"full"|"limited"}, actual, text}],
  //  unreachable[], absent[]}
  nlohmann::json ToJson() const;
};

struct VerifyOptions {
  int sample_ports = 32;
  Guid local_sm_port = 0;  // the MASTER's port: SM-port base rule
  // Ports not read by then are reported unreachable ("out of time") instead
  // of read: a silent port costs a few MAD timeouts, and the caller's MAD
  // thread deadline must not cut the whole verification short.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// Blocking: call on the MAD thread (through MadWorker). Reads the P_Key table of every end
// port the config names (hosts, guid members) plus `sample_ports` other ports that ALL/ALL_CAS
// etc. select, compares with config::ExpectedPKeyTables. `ports` is the fabric as
// Fabric::DiscoverPorts() found it.
PKeyVerification VerifyPKeys(Fabric& fabric, const config::Config& config,
                             const std::vector<DiscoveredPort>& ports, const VerifyOptions& options);

// The ports VerifyPKeys reads, in that order: the named ones found in
// `ports`, then the sample. Named GUIDs missing from `ports` go to `absent`.
std::vector<DiscoveredPort> ChoosePortsToVerify(const config::Config& config,
                                                const std::vector<DiscoveredPort>& ports,
                                                const VerifyOptions& options,
                                                std::vector<Guid>* absent = nullptr);

// The P_Key model's kind of an end port of `type` (an unknown type counts as a CA).
config::PortKind PortKindOf(NodeType type);

}  // namespace smsupd
