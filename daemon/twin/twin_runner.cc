#include "daemon/twin/twin_runner.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "common/atomic_file.h"
#include "daemon/twin/fabric_state.h"
#include "daemon/twin/opensm_findings.h"
#include "daemon/twin/twin_child.h"
#include "daemon/twin/twin_report.h"

extern char** environ;

namespace smsupd::twin {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Step limits. A walk plus the tables of a 2,592-HCA fabric take a few
// seconds; ibsim parses such a net file in well under one.
constexpr milliseconds kProbeLimit(90000);
constexpr milliseconds kIbsimListenLimit(15000);
constexpr milliseconds kSaDumpLimit(3000);
constexpr milliseconds kStopGrace(2000);
// Files the runner reads back.
constexpr std::size_t kMaxStateBytes = 64u << 20;
constexpr std::size_t kMaxLogBytes = 32u << 20;
constexpr std::size_t kMaxSmallFile = 1u << 20;

struct RunFailure {
  std::string kind, message;
};

int64_t Ms(SteadyClock::time_point from) {
  return std::chrono::duration_cast<milliseconds>(SteadyClock::now() - from).count();
}

// The first `max` bytes of a file ("" when it is missing).
std::string ReadHead(const std::string& path, std::size_t max) {
  std::ifstream in(path, std::ios::binary);
  std::string text(max, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max));
  text.resize(static_cast<std::size_t>(std::max<std::streamsize>(0, in.gcount())));
  return text;
}

std::string Tail(const std::string& path) {
  std::string text = ReadHead(path, kMaxSmallFile);
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  return text;
}

// The environment without the variables that attach a program to a
// simulator (and, for ibsim itself, without any preload).
std::vector<std::string> BaseEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    for (const char* drop : {"LD_PRELOAD=", "SIM_HOST=", "IBSIM_SOCKNAME=", "OSM_TMP_DIR=", "OSM_CACHE_DIR=",
                             "NOTIFY_SOCKET=", "WATCHDOG_"})
      if (entry.rfind(drop, 0) == 0) entry.clear();
    if (!entry.empty()) env.push_back(entry);
  }
  return env;
}

std::vector<std::string> OwnEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.push_back(*e);
  return env;
}

std::string SelfPath() {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? "/proc/self/exe" : path.string();
}

class TwinRun {
 public:
  TwinRun(std::string dir, TwinRequest request) : dir_(std::move(dir)), request_(std::move(request)) {}

  // The whole run; result.json's content.
  nlohmann::json Run();

 private:
  Result<FabricState> Probe(const std::vector<std::string>& env, const std::string& out, bool net,
                            const char* kind);
  Status StartIbsim(const nlohmann::json& sim);
  Status StartOpenSm(const std::string& sim_host);
  Status WaitForSubnetUp();
  std::vector<std::string> TwinEnvironment(const std::string& sim_host) const;

  RunFailure failure_;
  std::string dir_;
  TwinRequest request_;
  std::string socket_name_ = "smsupd-twin-" + std::to_string(::getpid());
  std::optional<TwinChild> ibsim_, opensm_;
  TwinTimings timings_;
};

Result<FabricState> TwinRun::Probe(const std::vector<std::string>& env, const std::string& out, bool net,
                                   const char* kind) {
  ChildSpec spec;
  spec.argv = {SelfPath(), "--twin-probe", "--port-guid", FormatGuid(request_.port_guid), "--out", dir_ + "/" + out};
  if (net) spec.argv.insert(spec.argv.end(), {"--net", dir_});
  spec.env = env;
  spec.cwd = dir_;  // umad2sim writes ./sys-<pid> here
  spec.output_path = dir_ + "/" + out + ".log";
  Result<TwinChild> child = TwinChild::Start(spec);
  if (!child) return Error{child.error().message};
  std::optional<int> status = child->Wait(kProbeLimit);
  if (!status) return Error{std::string(kind) + " did not finish in " + std::to_string(kProbeLimit.count() / 1000) + " s"};
  if (*status != 0)
    return Error{std::string(kind) + " failed (" + DescribeWaitStatus(*status) + "): " + Tail(spec.output_path)};
  std::string text = ReadHead(dir_ + "/" + out, kMaxStateBytes);
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return Error{std::string(kind) + ": unreadable result"};
  return FabricStateFromJson(json);
}

// ibsim binds "<name>:ctl" and then "<name>:out0".."out9" in the abstract
// namespace (ibsim.c sim_init_conn); the last one means it listens.
bool IbsimListening(const std::string& name) {
  return ReadHead("/proc/net/unix", 16u << 20).find("@" + name + ":out9") != std::string::npos;
}

Status TwinRun::StartIbsim(const nlohmann::json& sim) {
  auto number = [&](const char* key) { return std::to_string(sim.value(key, 0)); };
  ChildSpec spec;
  spec.argv = {request_.ibsim, "-N", number("nodes"), "-S", number("switches"), "-P", number("ports"),
               "-s", dir_ + "/net"};
  spec.env = BaseEnvironment();
  spec.env.push_back("IBSIM_SOCKNAME=" + socket_name_);
  spec.cwd = dir_;
  spec.output_path = dir_ + "/ibsim.log";
  spec.stdin_pipe = true;
  Result<TwinChild> child = TwinChild::Start(spec);
  if (!child) return Error{child.error().message};
  ibsim_.emplace(std::move(*child));
  const auto end = SteadyClock::now() + kIbsimListenLimit;
  while (SteadyClock::now() < end) {
    if (auto status = ibsim_->Poll())
      return Error{"ibsim could not load the topology (" + DescribeWaitStatus(*status) + "): " + Tail(spec.output_path)};
    if (IbsimListening(socket_name_)) return Status::Ok();
    std::this_thread::sleep_for(milliseconds(10));
  }
  return Error{"ibsim did not listen within " + std::to_string(kIbsimListenLimit.count() / 1000) + " s: " +
               Tail(spec.output_path)};
}

std::vector<std::string> TwinRun::TwinEnvironment(const std::string& sim_host) const {
  std::vector<std::string> env = BaseEnvironment();
  env.push_back("LD_PRELOAD=" + request_.umad2sim);
  env.push_back("SIM_HOST=" + sim_host);
  env.push_back("IBSIM_SOCKNAME=" + socket_name_);
  env.push_back("OSM_TMP_DIR=" + dir_ + "/tmp");
  env.push_back("OSM_CACHE_DIR=" + dir_ + "/cache");
  return env;
}

Status TwinRun::StartOpenSm(const std::string& sim_host) {
  std::error_code error;
  std::filesystem::create_directories(dir_ + "/tmp", error);
  std::filesystem::create_directories(dir_ + "/cache", error);
  std::filesystem::copy_file(dir_ + "/guid2lid", dir_ + "/cache/guid2lid",
                             std::filesystem::copy_options::overwrite_existing, error);
  if (error) return Error{"cannot prepare OpenSM's cache: " + error.message()};
  ChildSpec spec;
  spec.argv = {request_.opensm, "-F", dir_ + "/opensm.conf"};
  spec.env = TwinEnvironment(sim_host);
  spec.cwd = dir_;
  spec.output_path = dir_ + "/opensm.out";
  Result<TwinChild> child = TwinChild::Start(spec);
  if (!child) return Error{child.error().message};
  opensm_.emplace(std::move(*child));
  return Status::Ok();
}

// Polls OpenSM's log for its first "SUBNET UP" (the twin's opensm.conf sets
// force_log_flush, so the line is in the file at once).
Status TwinRun::WaitForSubnetUp() {
  const auto end = SteadyClock::now() + milliseconds(request_.up_timeout_ms);
  std::ifstream log;
  std::string pending;
  std::size_t read = 0;
  while (SteadyClock::now() < end) {
    if (auto status = opensm_->Poll())
      return Error{"OpenSM exited before SUBNET UP (" + DescribeWaitStatus(*status) + "): " + Tail(dir_ + "/opensm.out")};
    if (!log.is_open()) log.open(dir_ + "/opensm.log", std::ios::binary);
    if (log.is_open()) {
      log.clear();
      char chunk[65536];
      while (read < kMaxLogBytes && log.read(chunk, sizeof chunk).gcount() > 0) {
        pending.append(chunk, static_cast<std::size_t>(log.gcount()));
        read += static_cast<std::size_t>(log.gcount());
        if (pending.find("SUBNET UP") != std::string::npos) return Status::Ok();
        if (pending.size() > 64) pending.erase(0, pending.size() - 64);
      }
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  return Error{"OpenSM did not reach SUBNET UP within " + std::to_string(request_.up_timeout_ms / 1000) + " s"};
}

nlohmann::json Failed(const std::string& kind, const std::string& message) {
  const bool full = message.find(std::strerror(ENOSPC)) != std::string::npos;
  return {{"ok", false}, {"kind", full ? "no-space" : kind}, {"error", message}};
}

nlohmann::json TwinRun::Run() {
  const auto start = SteadyClock::now();
  auto live = Probe(OwnEnvironment(), "live.json", true, "the live fabric's read");
  timings_.read_topology_ms = Ms(start);
  if (!live) {
    bool topology = live.error().message.find("simulator cannot load") != std::string::npos;
    return Failed(topology ? "topology" : "live-read", live.error().message);
  }
  auto sim = nlohmann::json::parse(ReadHead(dir_ + "/sim.json", kMaxSmallFile), nullptr, false);
  if (!sim.is_object() || !sim.contains("sim_host") || !sim["sim_host"].is_string())
    return Failed("internal", "the live read left no simulator description");
  const std::string sim_host = sim["sim_host"].get<std::string>();
  auto step = SteadyClock::now();
  if (Status s = StartIbsim(sim); !s) return Failed("topology", s.message());
  timings_.twin_start_ms = Ms(step);
  step = SteadyClock::now();
  if (Status s = StartOpenSm(sim_host); !s) return Failed("internal", s.message());
  Status up = WaitForSubnetUp();
  timings_.opensm_up_ms = Ms(step);
  const std::string opensm_conf = ReadHead(dir_ + "/opensm.conf", kMaxSmallFile);
  if (!up) {
    OpenSmFindings findings = ReadOpenSmFindings(ReadHead(dir_ + "/opensm.log", kMaxLogBytes), ReadHead(dir_ + "/opensm.out", kMaxSmallFile));
    nlohmann::json failed = Failed("not-up", up.message());
    failed["opensm"] = ToJson(findings);
    return failed;
  }
  const auto dump_end = SteadyClock::now() + kSaDumpLimit;
  while (!std::filesystem::exists(dir_ + "/opensm-sa.dump") && SteadyClock::now() < dump_end)
    std::this_thread::sleep_for(milliseconds(10));
  step = SteadyClock::now();
  auto twin = Probe(TwinEnvironment(sim_host), "twin.json", false, "the twin's read-back");
  timings_.read_back_ms = Ms(step);
  opensm_->Stop(kStopGrace);
  ibsim_->Stop(kStopGrace);
  if (!twin) return Failed("read-back", twin.error().message);

  TwinReport report;
  report.tables = CompareFabricStates(*live, *twin);
  report.opensm = ReadOpenSmFindings(ReadHead(dir_ + "/opensm.log", kMaxLogBytes), ReadHead(dir_ + "/opensm.out", kMaxSmallFile));
  report.engine_asked = AskedEngine(RoutingEngineOption(opensm_conf));
  report.multicast_groups = ReadMulticastGroups(ReadHead(dir_ + "/opensm-sa.dump", kMaxLogBytes));
  if (int mismatches = sim.value("guid_mismatches", 0); mismatches > 0)
    report.notes.push_back(std::to_string(mismatches) + " CA port(s) have GUIDs the simulator cannot copy (not node GUID + port number); they have other GUIDs in the twin");
  if (int unread = sim.value("unread_total", 0); unread > 0)
    report.notes.push_back(std::to_string(unread) + " node(s) or port(s) did not answer the live walk: the twin lacks them and what lies behind them");
  if (live->errors_total > 0)
    report.notes.push_back(std::to_string(live->errors_total) + " live table(s) unread, e.g. " + live->errors.front());
  if (twin->errors_total > 0)
    report.notes.push_back(std::to_string(twin->errors_total) + " twin table(s) unread, e.g. " + twin->errors.front());
  report.live_unread = live->errors_total;
  report.twin_unread = twin->errors_total;
  timings_.total_ms = Ms(start);
  report.timings = timings_;
  return {{"ok", true}, {"report", ToJson(report)}, {"text", FormatTwinReport(report)}};
}

std::optional<RunFailure> CheckSpace(const std::string& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return RunFailure{"internal", "cannot inspect " + dir + ": " + std::strerror(errno)};
  const uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < kTwinMinFreeBytes)
    return RunFailure{"no-space", "no disk space for the twin: " + std::to_string(free_bytes >> 20) + " MB free in " +
                                      dir + ", it needs " + std::to_string(kTwinMinFreeBytes >> 20) + " MB"};
  return std::nullopt;
}

}  // namespace

nlohmann::json ToJson(const TwinRequest& r) {
  return {{"port_guid", FormatGuid(r.port_guid)}, {"opensm", r.opensm}, {"ibsim", r.ibsim},
          {"umad2sim", r.umad2sim}, {"up_timeout_ms", r.up_timeout_ms}, {"memory_mb", r.memory_mb}};
}

Result<TwinRequest> TwinRequestFromJson(const nlohmann::json& json) {
  if (!json.is_object()) return Error{"twin request: not an object"};
  TwinRequest r;
  auto text = [&](const char* key, std::string& out) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_string() || it->get<std::string>().empty() || it->get<std::string>().size() > 4096)
      return false;
    out = it->get<std::string>();
    return true;
  };
  std::string guid;
  if (!text("port_guid", guid) || !ParseGuid(guid) || !text("opensm", r.opensm) || !text("ibsim", r.ibsim) ||
      !text("umad2sim", r.umad2sim))
    return Error{"twin request: a field is missing"};
  r.port_guid = *ParseGuid(guid);
  auto number = [&](const char* key, int64_t low, int64_t high, int64_t& out) {
    auto it = json.find(key);
    if (it == json.end() || !it->is_number_integer()) return false;
    out = std::clamp<int64_t>(it->get<int64_t>(), low, high);
    return true;
  };
  if (!number("up_timeout_ms", 1000, 600000, r.up_timeout_ms) || !number("memory_mb", 256, 1 << 20, r.memory_mb))
    return Error{"twin request: a limit is missing"};
  return r;
}

int RunTwinRunner(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: smsupd --twin-run DIR\n";
    return 2;
  }
  const std::string dir = argv[2];
  // The daemon's deadline kills the runner; if the daemon itself dies, so
  // does the runner (and with it, through their own PDEATHSIG, its children).
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  nlohmann::json result;
  auto request_json = nlohmann::json::parse(ReadHead(dir + "/request.json", kMaxSmallFile), nullptr, false);
  Result<TwinRequest> request = TwinRequestFromJson(request_json);
  if (!request) {
    result = Failed("internal", request.error().message);
  } else if (auto no_space = CheckSpace(dir)) {
    result = Failed(no_space->kind, no_space->message);
  } else {
    // prlimit(2), not setrlimit(2): the units' SystemCallFilter=~@resources
    // refuses setrlimit (the process would be killed), prlimit64 is in
    // @default. The unit's MemoryMax bounds the whole cgroup besides.
    rlimit memory{};
    memory.rlim_cur = memory.rlim_max = static_cast<rlim_t>(request->memory_mb) << 20;
    ::prlimit(0, RLIMIT_AS, &memory, nullptr);
    result = TwinRun(dir, *request).Run();
  }
  Status written = WriteFileAtomically(dir + "/result.json", result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), 0600);
  if (!written) {
    std::cerr << written.message() << "\n";
    return 1;
  }
  return result.value("ok", false) ? 0 : 1;
}

}  // namespace smsupd::twin
