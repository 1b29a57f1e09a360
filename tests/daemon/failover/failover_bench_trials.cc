#include "tests/daemon/failover/failover_bench_trials.h"

#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <ctime>
#include <thread>

#include "tests/daemon/failover/failover_bed.h"
#include "tests/testbed/fabric_conditions.h"
#include "tests/testbed/child_process.h"
#include "tests/testbed/opensm_process.h"
#include "tests/testbed/temporary_group.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using SystemClock = std::chrono::system_clock;

constexpr int kPortActive = 4;
// The far HCA is read every 10 ms: the resolution of every time printed.
constexpr milliseconds kFarInterval(10);
constexpr milliseconds kCallDeadline(5000);

TrialResult Failed(TrialResult result, const std::string& error) {
  result.error = error;
  return result;
}

long Since(Clock::time_point start) {
  return static_cast<long>(std::chrono::duration_cast<milliseconds>(Clock::now() - start).count());
}

// "2026-12-02T17:33:04.123Z" (control_protocol.h) -> a time point.
std::optional<SystemClock::time_point> ParseEventTime(const std::string& text) {
  std::tm tm{};
  int millis = 0;
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &millis) != 7)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return SystemClock::from_time_t(timegm(&tm)) + milliseconds(millis);
}

// Fault -> the far HCA's port is Active, its SM LID is not `old_lid` and
// that SM answers SMInfo as MASTER.
Result<long> WaitFarSeesNewMaster(FabricProbe& probe, uint16_t old_lid, Clock::time_point fault,
                                  milliseconds deadline) {
  long seen_ms = -1;
  std::string last;
  Status s = WaitFor(
      "the far HCA to point at a new MASTER",
      [&](std::string& why) {
        Result<json> port = probe.Call("portinfo dr:0 1", kCallDeadline);
        if (!port) {
          why = port.error().message;
          return false;
        }
        int sm_lid = port->value("sm_lid", 0);
        why = "port state " + std::to_string(port->value("state", 0)) + ", SM LID " + std::to_string(sm_lid);
        if (port->value("state", 0) != kPortActive || sm_lid == 0 || sm_lid == old_lid) return false;
        Result<json> sm = probe.Call("sminfo " + std::to_string(sm_lid), kCallDeadline);
        if (!sm || sm->value("state", 0) != static_cast<int>(SmStateValue::kMaster)) return false;
        seen_ms = Since(fault);
        return true;
      },
      deadline, kFarInterval);
  if (!s) return Error{s.message()};
  return seen_ms;
}

// The first event on `node` at or after `fault` that reports the loss of
// the master `old_guid`: MASTER_LOST, or the master changing away from it.
void FindLossEvent(ManagementNode& node, Guid old_guid, SystemClock::time_point fault, TrialResult& result) {
  (void)WaitFor("the standby's events to show the master loss", [&] {
    Result<std::vector<json>> events = node.Events();
    if (!events) return false;
    for (const json& event : *events) {
      std::string kind = event.value("kind", std::string());
      auto at = ParseEventTime(event.value("time", std::string()));
      if (!at || *at + milliseconds(1) < fault) continue;
      json details = event.value("details", json::object());
      bool lost = SameEventKind(kind, "master-lost") ||
                  (SameEventKind(kind, "master-changed") && details.value("from", std::string()) == FormatGuid(old_guid));
      if (!lost) continue;
      result.event_ms = static_cast<long>(std::chrono::duration_cast<milliseconds>(*at - fault).count());
      result.event_kind = kind;
      return true;
    }
    return false;
  }, milliseconds(10000), milliseconds(200));
}

// `master-lost` events of both nodes before (`after` false) or after the
// fault, wall clock.
int CountTakeovers(FailoverBed& bed, SystemClock::time_point fault, bool after) {
  int count = 0;
  for (const std::string& node : {bed.master_name(), bed.standby_name()})
    for (const json& event : bed.EventsOfKind(node, "master-lost")) {
      auto at = ParseEventTime(event.value("time", std::string()));
      if (at && (*at >= fault) == after) ++count;
    }
  return count;
}

// (a) and (c): waits until `watch_after` after the fault, then counts.
void CountTakeoversAfter(FailoverBed& bed, Clock::time_point t0, SystemClock::time_point fault,
                         const TrialOptions& options, TrialResult& result) {
  const Clock::time_point until = t0 + options.watch_after;
  if (Clock::now() < until) std::this_thread::sleep_until(until);
  result.takeovers_after = CountTakeovers(bed, fault, /*after=*/true);
}

// The failover-timeline event `node` reported for the fault at `fault`
// (wall clock), its stages as ms after the fault, named "<role>: <stage>".
void CollectTimeline(FailoverBed& bed, const std::string& node, const std::string& role,
                     SystemClock::time_point fault, milliseconds wait, TrialResult& result) {
  static const char* const kStageKeys[] = {"fault_seen_ms",  "handover_sent_ms", "local_master_ms",
                                           "subnet_up_ms",   "far_port_ms",      "remote_master_ms"};
  json details = json::object();  // stays empty when no timeline came in time
  (void)WaitFor("the failover timeline of " + node, [&] {
    for (const json& event : bed.EventsOfKind(node, "failover-timeline")) {
      json found = event.value("details", json::object());
      auto started = ParseEventTime(found.value("started", std::string()));
      if (!started || *started + milliseconds(1000) < fault) continue;
      details = found;
      return true;
    }
    return false;
  }, wait, milliseconds(200));
  auto started = ParseEventTime(details.value("started", std::string()));
  if (!started) return;
  const long offset = static_cast<long>(std::chrono::duration_cast<milliseconds>(*started - fault).count());
  for (const char* key : kStageKeys) {
    auto stage = details.find(key);
    if (stage == details.end() || !stage->is_number()) continue;
    std::string name(key);
    name.resize(name.size() - 3);  // "_ms"
    result.stages.emplace_back(role + ": " + name, offset + stage->get<long>());
  }
}

// The stages of an OpenSM's first sweep as master, in the order it logs
// them (osm_state_mgr.c): the message boxes it writes at log_flags 0x04, the
// routing engine's INFO line, and "Entering MASTER state" and "SUBNET UP",
// which it always writes.
constexpr std::pair<const char*, const char*> kOpenSmStages[] = {
    {"Entering MASTER state", "MASTER"},
    {"HEAVY SWEEP COMPLETE", "discovery done"},
    {"PKEY setup completed - STARTING SM LID CONFIG", "P_Keys set"},
    {"SM LID ASSIGNMENT COMPLETE - STARTING SUBNET LID CONFIG", "own LID set"},
    {"LID ASSIGNMENT COMPLETE - STARTING SWITCH TABLE CONFIG", "LIDs set"},
    // osm_ucast_mgr.c at log_flags 0x02, once the routing engine has
    // computed every switch's table and queued the LFT blocks it sends.
    {"tables configured on all switches", "routes computed"},
    {"SWITCHES CONFIGURED FOR UNICAST", "routing and LFTs set"},
    {"SWITCHES CONFIGURED FOR MULTICAST", "multicast set"},
    {"LINKS PORTS CONFIGURED - SET LINKS TO ARMED STATE", "links configured"},
    {"LINKS ARMED - SET LINKS TO ACTIVE STATE", "links armed"},
    {"SUBNET UP", "SUBNET UP"},
};

// Each stage's first log line at or after `fault`, as ms after it, named
// "new master OpenSM: <stage>", in order; `complete` once SUBNET UP is in.
// OpenSM stamps a line "Dec 06 11:16:52 454895 [tid] ..." in local time; the
// lines of a message box after its first carry no stamp of their own.
struct OpenSmStages {
  std::vector<std::pair<std::string, long>> stages;
  bool complete = false;
};

OpenSmStages ReadOpenSmStages(const std::string& log_path, SystemClock::time_point fault) {
  OpenSmStages found;
  const std::time_t fault_seconds = SystemClock::to_time_t(fault);
  std::tm local{};
  localtime_r(&fault_seconds, &local);
  const long long fault_us =
      (local.tm_hour * 3600LL + local.tm_min * 60LL + local.tm_sec) * 1000000LL +
      std::chrono::duration_cast<std::chrono::microseconds>(fault - SystemClock::from_time_t(fault_seconds)).count();
  std::ifstream log(log_path);
  std::string line;
  long long stamp_us = -1;
  size_t next = 0;  // stages are searched for in order
  while (next < std::size(kOpenSmStages) && std::getline(log, line)) {
    char month[4] = {};
    int day = 0, hour = 0, minute = 0, second = 0;
    long micros = 0;
    if (std::sscanf(line.c_str(), "%3s %d %d:%d:%d %ld", month, &day, &hour, &minute, &second, &micros) == 6)
      stamp_us = (hour * 3600LL + minute * 60LL + second) * 1000000LL + micros;
    if (stamp_us < 0) continue;
    long long after_us = stamp_us - fault_us;
    if (after_us < -43200LL * 1000000) after_us += 86400LL * 1000000;  // past midnight
    if (after_us < 0) continue;
    for (size_t i = next; i < std::size(kOpenSmStages); ++i) {
      if (line.find(kOpenSmStages[i].first) == std::string::npos) continue;
      found.stages.emplace_back(std::string("new master OpenSM: ") + kOpenSmStages[i].second,
                                static_cast<long>(after_us / 1000));
      next = i + 1;
      break;
    }
  }
  found.complete = next == std::size(kOpenSmStages);
  return found;
}

// The new master's OpenSM stages (ReadOpenSmStages) added to `result`; the
// log is read again (every 100 ms, 3 s at most) until it has SUBNET UP.
void AddOpenSmStages(const std::string& log_path, SystemClock::time_point fault, TrialResult& result) {
  OpenSmStages staged = ReadOpenSmStages(log_path, fault);
  for (int read = 1; read < 30 && !staged.complete; ++read) {
    std::this_thread::sleep_for(milliseconds(100));
    staged = ReadOpenSmStages(log_path, fault);
  }
  result.stages.insert(result.stages.end(), staged.stages.begin(), staged.stages.end());
}

// After the far HCA sees the new master (`sa_lid`, the SM LID its PortInfo
// names): its first PathRecord (to `dest`) answered by that master's SA,
// asked every 10 ms.
Result<long> WaitFirstPathRecord(FabricProbe& probe, uint16_t sa_lid, Guid own, Guid dest, Clock::time_point fault,
                                 milliseconds deadline) {
  long answered_ms = -1;
  const std::string query =
      "pathrecord " + std::to_string(sa_lid) + " " + FormatGuid(own) + " " + FormatGuid(dest);
  Status s = WaitFor(
      "the far HCA's first PathRecord from the new master",
      [&](std::string& why) {
        Result<json> path = probe.Call(query, kCallDeadline);
        if (!path) {
          why = path.error().message;
          return false;
        }
        answered_ms = Since(fault);
        return true;
      },
      deadline, kFarInterval);
  if (!s) return Error{s.message()};
  return answered_ms;
}

Status StartOpenSmPair(SimulatedFabric& fabric, Contender contender, const TrialOptions& trial,
                       bool verbose_standby, NodeProcess*& master, NodeProcess*& standby, uint16_t& master_lid,
                       uint16_t& standby_lid) {
  const milliseconds deadline = trial.deadline;
  std::map<std::string, std::string> options;
  if (contender == Contender::kOpenSmTuned) options = FastFailoverOptions();
  std::map<std::string, std::string> master_options = options;
  if (contender == Contender::kFloor)
    for (const auto& [key, value] : trial.master_opensm) master_options[key] = value;
  const auto& names = fabric.topology().management_nodes();
  Result<NodeProcess*> first = StartOpenSm(fabric, OpenSmOn(names[0], 15, master_options));
  if (!first) return Error{first.error().message};
  master = *first;
  Result<uint16_t> lid = WaitForCaLid(fabric.probe(), fabric.topology(), names[0], deadline);
  if (!lid) return Error{lid.error().message};
  master_lid = *lid;
  if (auto sm = WaitForSmState(fabric.probe(), master_lid, SmStateValue::kMaster, deadline); !sm) return sm.error();
  if (verbose_standby) {
    options["log_flags"] = "0x07";
    options["force_log_flush"] = "TRUE";  // every line on disk when the trial reads the log
  }
  if (contender == Contender::kFloor)
    for (const auto& [key, value] : trial.standby_opensm) options[key] = value;
  Result<NodeProcess*> second = StartOpenSm(fabric, OpenSmOn(names[1], 5, options));
  if (!second) return Error{second.error().message};
  standby = *second;
  Result<uint16_t> second_lid = WaitForCaLid(fabric.probe(), fabric.topology(), names[1], deadline);
  if (!second_lid) return Error{second_lid.error().message};
  standby_lid = *second_lid;
  if (auto sm = WaitForSmState(fabric.probe(), standby_lid, SmStateValue::kStandby, deadline); !sm)
    return sm.error();
  return WaitForEveryCaSmLid(fabric.probe(), fabric.topology(), master_lid, deadline);
}

TrialResult OpenSmTrial(SimulatedFabric& fabric, Contender contender, Fault fault, const TrialOptions& options) {
  TrialResult result;
  NodeProcess* master = nullptr;
  NodeProcess* standby = nullptr;
  uint16_t master_lid = 0;
  uint16_t standby_lid = 0;
  const bool stages = options.stages && contender == Contender::kFloor;
  if (Status s = StartOpenSmPair(fabric, contender, options, stages, master, standby, master_lid, standby_lid);
      !s)
    return Failed(result, "setup: " + s.message());
  Result<json> master_sm = fabric.probe().Call("sminfo " + std::to_string(master_lid), kCallDeadline);
  if (!master_sm) return Failed(result, "setup: " + master_sm.error().message);
  const Clock::time_point t0 = Clock::now();
  const SystemClock::time_point wall_t0 = SystemClock::now();
  Status faulted = fault == Fault::kKillOpenSm ? master->process->Signal(SIGKILL)
                                               : fabric.UnlinkPort(master->node, 1);
  if (!faulted) return Failed(result, faulted.message());
  if (contender == Contender::kFloor) {
    // The dead master's HANDOVER, sent the instant it died.
    Result<json> sent = fabric.probe().Call("handover " + std::to_string(standby_lid) + " " +
                                                master_sm->value("guid", std::string()) + " 15",
                                            kCallDeadline);
    if (!sent) return Failed(result, "HANDOVER to the standby: " + sent.error().message);
  }
  Result<long> far = WaitFarSeesNewMaster(fabric.probe(), master_lid, t0, options.deadline);
  if (!far) return Failed(result, far.error().message);
  result.far_ms = *far;
  if (stages) {
    const Topology& topology = fabric.topology();
    const TopoNode* new_master = topology.Find(topology.management_nodes()[1]);
    // WaitFarSeesNewMaster saw the far HCA name the standby's LID.
    Result<long> path = WaitFirstPathRecord(fabric.probe(), standby_lid, topology.FarCa().PortGuid(1),
                                            new_master->PortGuid(1), t0, options.deadline);
    if (!path) return Failed(result, path.error().message);
    result.path_record_ms = *path;
    // The SA may answer a moment before OpenSM writes SUBNET UP.
    AddOpenSmStages(standby->dir + "/opensm.log", wall_t0, result);
    result.stages.emplace_back("far HCA: first PathRecord", result.path_record_ms);
  }
  result.ok = true;
  return result;
}

// (a) and (c), smsupd: the old master's OpenSM STANDBY again, timed from
// the fault, and the samples of `monitor` (running) that showed it MASTER
// until then (a flip back).
Status WaitStandbyAgain(FailoverBed& bed, MasterMonitor& monitor, Clock::time_point t0, milliseconds deadline,
                        TrialResult& result) {
  if (Status s = bed.WaitForProbeState(bed.master_name(), SmStateValue::kStandby, deadline); !s)
    return Error{"the old master never became STANDBY again: " + s.message()};
  result.standby_again_ms = Since(t0);
  const MonitorReport after = monitor.Stop();
  auto flipped = after.master_samples.find(bed.master_name());
  result.flip_back_samples = flipped == after.master_samples.end() ? 0 : flipped->second;
  return Status::Ok();
}

// (c): smctl failover --wait runs on its own thread while this one watches
// the far HCA; both are timed from the moment smctl starts. A monitor of its
// own (two SMInfo reads every 100 ms) looks for a moment without MASTER.
Status CommandFault(SimulatedFabric& fabric, FailoverBed& bed, Clock::time_point& t0, TrialResult& result,
                    milliseconds deadline) {
  SmctlResult command;
  MasterMonitor monitor(fabric, {{bed.master_name(), bed.LidOf(bed.master_name())},
                                       {bed.standby_name(), bed.LidOf(bed.standby_name())}});
  monitor.Start();
  t0 = Clock::now();
  std::thread smctl([&] { command = bed.master().Smctl({"failover", "--wait", "--timeout", "20"}); });
  Result<long> far = WaitFarSeesNewMaster(bed.probe(), bed.LidOf(bed.master_name()), t0, deadline);
  smctl.join();
  const MonitorReport seen = monitor.Snapshot();
  result.no_master_ms = seen.first_master_ms < 0 ? -1 : static_cast<long>(seen.longest_no_master.count());
  if (command.exit_code != 0) return Error{"smctl failover: " + command.Describe()};
  result.command_ms = static_cast<long>(command.elapsed.count());
  if (!far) return Error{far.error().message};
  result.far_ms = *far;
  // The old master's OpenSM starts again as a standby: from now on any
  // sample that shows it MASTER is a flip back.
  monitor.Reset();
  return WaitStandbyAgain(bed, monitor, t0, deadline, result);
}

// TrialOptions::validate_flood on both nodes, running once both answer it.
Result<std::vector<std::unique_ptr<ChildProcess>>> StartValidateFloods(
    SimulatedFabric& fabric, FailoverBed& bed, const std::string& program, gid_t group) {
  for (const std::string& dir : {fabric.dir(), bed.master().dir(), bed.master().dir() + "/run",
                                 bed.standby().dir(), bed.standby().dir() + "/run"})
    if (::chmod(dir.c_str(), 0755) != 0) return Error{"chmod " + dir + " failed"};
  std::vector<std::unique_ptr<ChildProcess>> floods;
  uid_t first_uid = 62001;
  for (ManagementNode* node : {&bed.master(), &bed.standby()}) {
    ChildSpec spec;
    spec.argv = {program, node->socket_path(), std::to_string(group), std::to_string(first_uid), "8", "16",
                 "validate"};
    spec.output_path = node->dir() + "/validate-flood.out";
    Result<std::unique_ptr<ChildProcess>> flood = ChildProcess::Start(spec);
    if (!flood) return flood.error();
    floods.push_back(std::move(*flood));
    first_uid += 100;
  }
  Status flowing = WaitFor("both nodes to answer the validate flood", [&] {
    return bed.master().ControlRequests("validate", "success") > 0 &&
           bed.standby().ControlRequests("validate", "success") > 0;
  }, milliseconds(60000), milliseconds(200));
  if (!flowing) return Error{flowing.message()};
  return floods;
}

TrialResult SmsupdTrial(SimulatedFabric& fabric, Fault fault, const TrialOptions& options) {
  TrialResult result;
  FailoverBedOptions bed_options;
  bed_options.monitor = false;  // the timed path carries no extra MAD traffic
  bed_options.hold_time_s = 60;
  bed_options.setup_deadline = options.deadline;
  std::unique_ptr<TemporaryGroup> group;
  if (!options.validate_flood.empty()) {
    Result<std::unique_ptr<TemporaryGroup>> made = TemporaryGroup::Create("smsupd-fb");
    if (!made) return Failed(result, "setup: " + made.error().message);
    group = std::move(*made);
  }
  bed_options.configure = [&group, &options](int, SmsupdConfig& config) {
    if (options.stages) config.opensm_options["log_flags"] = "0x07";  // the message boxes of every stage
    if (!group) return;
    config.control_group = group->name();
    for (int i = 0; i < 10000; ++i)
      config.hosts["spare" + std::to_string(i)] = 0x0002c90400000000ull + static_cast<Guid>(2 * i + 2);
  };
  FailoverBed bed(fabric, bed_options);
  if (Status s = bed.Start(); !s) return Failed(result, "setup: " + s.message());
  const uint16_t old_lid = bed.LidOf(bed.master_name());
  if (Status s = WaitForEveryCaSmLid(bed.probe(), fabric.topology(), old_lid, options.deadline); !s)
    return Failed(result, "setup: " + s.message());
  std::vector<std::unique_ptr<ChildProcess>> floods;  // stopped when the trial ends
  if (group) {
    auto started = StartValidateFloods(fabric, bed, options.validate_flood, group->gid());
    if (!started) return Failed(result, "setup: " + started.error().message);
    floods = std::move(*started);
  }
  const SystemClock::time_point wall0 = SystemClock::now();
  Clock::time_point t0 = Clock::now();
  result.setup_takeovers = CountTakeovers(bed, wall0, /*after=*/false);
  if (fault == Fault::kCommand) {
    if (Status s = CommandFault(fabric, bed, t0, result, options.deadline); !s)
      return Failed(result, s.message() + "\n" + bed.Diagnostics());
    CollectTimeline(bed, bed.standby_name(), "new master", wall0, milliseconds(35000), result);
    CollectTimeline(bed, bed.master_name(), "old master", wall0, milliseconds(5000), result);
    if (options.stages) AddOpenSmStages(bed.standby().opensm_log(), wall0, result);
    CountTakeoversAfter(bed, t0, wall0, options, result);
    result.ok = true;
    return result;
  }
  if (fault == Fault::kKillOpenSm) {
    if (Result<pid_t> killed = bed.master().KillOpenSm(); !killed) return Failed(result, killed.error().message);
  } else if (Status s = bed.UnlinkNode(bed.master_name()); !s) {
    return Failed(result, s.message());
  }
  Result<long> far = WaitFarSeesNewMaster(bed.probe(), old_lid, t0, options.deadline);
  if (!far) return Failed(result, far.error().message + "\n" + bed.Diagnostics());
  result.far_ms = *far;
  if (fault == Fault::kKillOpenSm) {
    // The old master's node lives on: its OpenSM starts again as a standby.
    // Watched from here on (the timed path above carried no monitor).
    MasterMonitor monitor(fabric, {{bed.master_name(), old_lid},
                                         {bed.standby_name(), bed.LidOf(bed.standby_name())}});
    monitor.Start();
    if (Status s = WaitStandbyAgain(bed, monitor, t0, options.deadline, result); !s)
      return Failed(result, s.message() + "\n" + bed.Diagnostics());
  }
  FindLossEvent(bed.standby(), bed.master().port_guid(), wall0, result);
  CollectTimeline(bed, bed.standby_name(), "new master", wall0, milliseconds(35000), result);
  if (options.stages) AddOpenSmStages(bed.standby().opensm_log(), wall0, result);
  if (fault == Fault::kKillOpenSm) {
    CollectTimeline(bed, bed.master_name(), "old master", wall0, milliseconds(5000), result);
    CountTakeoversAfter(bed, t0, wall0, options, result);
  }
  result.ok = true;
  return result;
}

// smsupd_mad_sent_total and smsupd_mad_requests_total from `smctl metrics`.
struct MadTotals {
  double sent = -1;
  double requests = -1;
};

Result<MadTotals> ReadMadTotals(ManagementNode& node) {
  SmctlResult metrics = node.Smctl({"metrics"});
  if (metrics.exit_code != 0) return Error{"smctl metrics: " + metrics.Describe()};
  MadTotals totals;
  std::istringstream lines(metrics.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("smsupd_mad_sent_total ", 0) == 0) totals.sent = std::stod(line.substr(line.find(' ') + 1));
    if (line.rfind("smsupd_mad_requests_total ", 0) == 0)
      totals.requests = std::stod(line.substr(line.find(' ') + 1));
  }
  if (totals.sent < 0 || totals.requests < 0) return Error{"smctl metrics: no MAD counters"};
  return totals;
}

}  // namespace

LoadResult MeasureLoad(const Topology& topology, std::chrono::seconds window, const TrialOptions& options) {
  LoadResult result;
  FabricOptions fabric_options;
  fabric_options.name = "failover-bench-load";
  fabric_options.keep_dir = options.keep_dir;
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(topology, fabric_options);
  if (!fabric) {
    result.error = fabric.error().message;
    return result;
  }
  FailoverBedOptions bed_options;
  bed_options.monitor = false;
  bed_options.setup_deadline = options.deadline;
  FailoverBed bed(**fabric, bed_options);
  auto fail = [&](const std::string& error) {
    (*fabric)->set_keep_dir(true);
    result.error = error + " (logs kept in " + (*fabric)->dir() + ")";
    return result;
  };
  if (Status s = bed.Start(); !s) return fail("setup: " + s.message());
  Result<MadTotals> master0 = ReadMadTotals(bed.master());
  Result<MadTotals> standby0 = ReadMadTotals(bed.standby());
  if (!master0 || !standby0) return fail(!master0 ? master0.error().message : standby0.error().message);
  const Clock::time_point start = Clock::now();
  std::this_thread::sleep_for(window);  // the measurement window itself, not a wait for a condition
  Result<MadTotals> master1 = ReadMadTotals(bed.master());
  Result<MadTotals> standby1 = ReadMadTotals(bed.standby());
  if (!master1 || !standby1) return fail(!master1 ? master1.error().message : standby1.error().message);
  const double seconds = static_cast<double>(Since(start)) / 1000.0;
  result.master_mads_per_s = (master1->sent - master0->sent) / seconds;
  result.standby_mads_per_s = (standby1->sent - standby0->sent) / seconds;
  result.master_requests_per_s = (master1->requests - master0->requests) / seconds;
  result.standby_requests_per_s = (standby1->requests - standby0->requests) / seconds;

  // A new partition of every port, applied and verified on the fabric.
  bed.master().config().partitions.push_back(
      {"bench", 0x0b0b, false, std::nullopt, {PortsMember("ALL", "limited")}});
  if (Status s = bed.master().WriteConfig(); !s) return fail(s.message());
  SmctlResult reloaded = bed.master().Smctl({"reload", "--wait", "--timeout", "300", "--json"},
                                            std::chrono::milliseconds(320000));
  Result<MadTotals> master2 = ReadMadTotals(bed.master());
  if (reloaded.exit_code != 0) return fail("smctl reload --wait: " + reloaded.Describe());
  result.reload_ms = static_cast<long>(reloaded.elapsed.count());
  json verification = reloaded.Arguments().value("verification", json::object());
  // The text leads with the state ("verified 33/33 ports"); the state alone if there is none.
  result.reload_verification = verification.value("text", std::string());
  if (result.reload_verification.empty()) result.reload_verification = verification.value("state", std::string());
  if (master2) result.reload_mads = static_cast<long>(master2->sent - master1->sent);
  result.ok = true;
  return result;
}

const char* ContenderName(Contender contender) {
  switch (contender) {
    case Contender::kOpenSmDefaults: return "OpenSM defaults (10000 ms x 4)";
    case Contender::kOpenSmTuned: return "OpenSM tuned (1000 ms x 2)";
    case Contender::kSmsupd: return "smsupd";
    case Contender::kFloor: return "floor (HANDOVER at the fault)";
  }
  return "?";
}

const char* FaultName(Fault fault) {
  switch (fault) {
    case Fault::kKillOpenSm: return "(a) kill -9 of the master OpenSM";
    case Fault::kNodeLoss: return "(b) loss of the master node";
    case Fault::kCommand: return "(c) smctl failover";
  }
  return "?";
}

TrialResult RunTrial(const Topology& topology, Contender contender, Fault fault, const TrialOptions& options) {
  FabricOptions fabric_options;
  fabric_options.name = "failover-bench";
  fabric_options.keep_dir = options.keep_dir;
  Result<std::unique_ptr<SimulatedFabric>> fabric = SimulatedFabric::Start(topology, fabric_options);
  if (!fabric) {
    TrialResult failed;
    failed.error = fabric.error().message;
    return failed;
  }
  TrialResult result = contender == Contender::kSmsupd ? SmsupdTrial(**fabric, fault, options)
                                                       : OpenSmTrial(**fabric, contender, fault, options);
  if (!result.ok) (*fabric)->set_keep_dir(true);
  if (!result.ok) result.error += " (logs kept in " + (*fabric)->dir() + ")";
  return result;
}

}  // namespace smsupd::testbed
