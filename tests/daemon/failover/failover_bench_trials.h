// One timed failover trial on a fresh simulated fabric, for failover-bench
// (bench/failover_bench.sh). Every time is measured from the fault (the
// kill, the unlink, the smctl start) to what the fabric shows, read by the
// test bed's probe on the far HCA: its port Active with an SM LID that is
// not the lost master's, and that SM answering SMInfo as MASTER.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/testbed/topology.h"

namespace smsupd::testbed {

enum class Contender {
  kOpenSmDefaults,  // two plain OpenSMs, 15 + 5, OpenSM's polling defaults (10000 ms x 4)
  kOpenSmTuned,     // the same tuned to sminfo_polling_timeout 1000 x polling_retry_number 2
  kSmsupd,          // two smsupd (role master, role standby), each running its OpenSM
  kFloor,           // two plain OpenSMs; at the fault a HANDOVER goes to the standby at once:
                    // the fastest any supervisor could be (its only cost is OpenSM's sweep)
};

enum class Fault {
  kKillOpenSm,  // (a) kill -9 of the master's OpenSM
  kNodeLoss,    // (b) the master's HCA port unlinked in ibsim
  kCommand,     // (c) smctl failover --wait on the master (smsupd only)
};

const char* ContenderName(Contender contender);
const char* FaultName(Fault fault);

struct TrialResult {
  bool ok = false;
  std::string error;
  long far_ms = -1;      // fault -> the far HCA points at a (new) MASTER
  long command_ms = -1;  // (c): smctl failover --wait returned (exit 0)
  // (c): the longest stretch in which neither SM answered MASTER (a monitor
  // reading both every 100 ms, a "none" confirmed by a reversed pass).
  long no_master_ms = -1;
  // (a) and (c), smsupd: the old master's OpenSM STANDBY again (restarted
  // after the new master's first sweep), and the 100 ms samples until then
  // that showed it MASTER (a flip back: its restarted OpenSM made itself
  // MASTER). (a) watches from the moment the far HCA saw the new master.
  long standby_again_ms = -1;
  int flip_back_samples = -1;
  // smsupd: MASTER_LOST takeovers (`master-lost` events, either node) in
  // the set-up before the fault, and in (a) and (c) after it until the end
  // of the trial (TrialOptions::watch_after): none is asked for, so each is
  // a master taken for a dead one. -1: not counted.
  int setup_takeovers = -1;
  int takeovers_after = -1;
  long event_ms = -1;    // smsupd (a)/(b): fault -> the loss's event time on the standby's smctl events
  std::string event_kind;
  // smsupd: the stages of the nodes' failover-timeline events as ms after
  // the fault ("new master: local_master", "old master: handover_sent", ...).
  std::vector<std::pair<std::string, long>> stages;
  // TrialOptions::stages, floor trials: the far HCA's first PathRecord
  // answered by the new master's SA (ms after the fault).
  long path_record_ms = -1;
};

struct TrialOptions {
  std::chrono::milliseconds deadline{180000};  // per wait; OpenSM defaults need ~60 s
  bool keep_dir = false;                       // keep the fabric directory (logs)
  // smsupd trials: the control-flood program; when set, both nodes get
  // 10,000 more hosts in their config (a validation costs ~0.2 s) and, from
  // before the fault to the end of the trial, 128 connections of group
  // members each asking `validate` back to back.
  std::string validate_flood;
  // The new master's OpenSM logs at log_flags 0x07 (smsupd's through its
  // config), and its first sweep's stages (OpenSM's own log boxes, "new
  // master OpenSM: SUBNET UP", ...) go into the result; for the floor also
  // the far HCA's first PathRecord.
  bool stages = false;
  // smsupd (a) and (c): the trial ends no sooner than this long after the
  // fault, so that takeovers_after covers the new master's sweep for its
  // raise (on 10,000 HCAs a master taken for a dead one 24-26 s after
  // `smctl failover`).
  std::chrono::milliseconds watch_after{0};
  // Floor trials: more opensm.conf options for the first master's OpenSM and
  // for the standby's (the one that takes over), e.g. a routing engine.
  std::map<std::string, std::string> master_opensm, standby_opensm;
};

TrialResult RunTrial(const Topology& topology, Contender contender, Fault fault, const TrialOptions& options);

// What smsupd adds to the fabric in the steady state (master + standby, each
// with its OpenSM), from each node's smsupd_mad_sent_total over `window`,
// and one `smctl reload --wait` on the master adding a partition of every
// port (P_Key verification of the whole fabric).
struct LoadResult {
  bool ok = false;
  std::string error;
  double master_mads_per_s = -1;   // every MAD the master's smsupd sent
  double standby_mads_per_s = -1;
  double master_requests_per_s = -1;  // of which single requests (polls, SA queries)
  double standby_requests_per_s = -1;
  long reload_ms = -1;             // smctl reload --wait, exit 0
  std::string reload_verification;  // its verification.state and summary
  long reload_mads = -1;           // MADs the master sent during the reload
};

LoadResult MeasureLoad(const Topology& topology, std::chrono::seconds window, const TrialOptions& options);

}  // namespace smsupd::testbed
