#include "tests/testbed/simulated_fabric.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/atomic_file.h"
#include "tests/testbed/wait_for.h"

namespace smsupd::testbed {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// Errors inside umad2sim itself (see NodeEnvironment).
constexpr char kAsanSuppressions[] = "interceptor_via_lib:libumad2sim.so\n";

// The reaper scans /proc once or a few times: well under a second.
constexpr milliseconds kReaperDeadline(5000);

// Parsing the 648-HCA net file and binding sockets takes well under a second.
constexpr milliseconds kIbsimReadyDeadline(15000);

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Paths under the fabric directory must stay short: a Unix socket path
// (smsupd's control socket, <dir>/smsupd-H1_1/run/smsupd.sock) holds at most
// 107 bytes, and long test names used whole overflowed it.
constexpr size_t kMaxNameInDir = 32;

Result<std::string> MakeTempDir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/smsupd-tb-" +
                        name.substr(0, kMaxNameInDir) + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return Error{"cannot create " + pattern};
  return pattern;
}

// ibsim binds "<name>:ctl" and then "<name>:out0".."out9" in the abstract
// namespace (ibsim.c sim_init_conn); the last one means it is listening.
bool IbsimListening(const std::string& socket_name) {
  return ReadFileOrEmpty("/proc/net/unix").find("@" + socket_name + ":out9") != std::string::npos;
}

}  // namespace

std::string ProbeExecutable() {
  const char* env = std::getenv("SMSUPD_TESTBED_PROBE");
  return env && *env ? env : SMSUPD_TESTBED_PROBE_PATH;
}

bool TestBedDebug() {
  const char* env = std::getenv("SMSUPD_TB_DEBUG");
  return env && *env && std::string(env) != "0";
}

std::string ReaperExecutable() {
  const char* env = std::getenv("SMSUPD_TESTBED_REAPER");
  return env && *env ? env : SMSUPD_TESTBED_REAPER_PATH;
}

SimulatedFabric::SimulatedFabric(Topology topology, FabricOptions options)
    : topology_(std::move(topology)), options_(std::move(options)), probe_([this] { return LaunchProbe(); }) {}

Result<std::unique_ptr<SimulatedFabric>> SimulatedFabric::Start(Topology topology, FabricOptions options) {
  if (Status s = topology.Validate(); !s) return Error{s.message()};
  if (options.probe_node.empty()) options.probe_node = topology.FarCa().name;
  std::unique_ptr<SimulatedFabric> fabric(new SimulatedFabric(std::move(topology), std::move(options)));
  if (Status s = fabric->Launch(); !s) return Error{s.message()};
  return fabric;
}

Status SimulatedFabric::Launch() {
  Result<std::string> dir = MakeTempDir(options_.name);
  if (!dir) return Error{dir.error().message};
  dir_ = *dir;
  socket_name_ = fs::path(dir_).filename();
  const std::string net_file = dir_ + "/net";
  if (Status s = topology_.WriteNetFile(net_file); !s) return s;
  if (Status s = WriteFileAtomically(dir_ + "/asan.supp", kAsanSuppressions); !s) return s;
  if (Status s = StartReaper(); !s) return s;
  ChildSpec spec;
  // ibsim's own limits hold 2,048 nodes: raise them to what the topology needs.
  const IbsimLimits limits = topology_.Limits();
  spec.argv = {"ibsim", "-N", std::to_string(limits.nodes), "-S", std::to_string(limits.switches),
               "-P", std::to_string(limits.ports), "-s", net_file};
  if (TestBedDebug()) spec.argv.insert(spec.argv.begin() + 1, "-v");
  spec.env = {{"IBSIM_SOCKNAME", socket_name_}};
  spec.unset_env = {"LD_PRELOAD"};
  spec.cwd = dir_;
  spec.output_path = dir_ + "/ibsim.log";
  spec.pipe_stdin = true;  // ibsim spins on a console at end-of-file
  Result<std::unique_ptr<ChildProcess>> ibsim = ChildProcess::Start(spec);
  if (!ibsim) return Error{"cannot start ibsim: " + ibsim.error().message};
  ibsim_ = std::move(*ibsim);
  Status ready = WaitFor(
      "ibsim to listen on " + socket_name_,
      [this](std::string& why) {
        if (!ibsim_->Running()) {
          why = "ibsim " + ibsim_->exit_status()->Describe() + ": " + ReadFileOrEmpty(dir_ + "/ibsim.log");
          return true;
        }
        return IbsimListening(socket_name_);
      },
      kIbsimReadyDeadline);
  if (!ready) return ready;
  if (!ibsim_->Running()) return Error{"ibsim exited: " + ReadFileOrEmpty(dir_ + "/ibsim.log")};
  return Status::Ok();
}

Status SimulatedFabric::StartReaper() {
  ChildSpec spec;
  spec.argv = {ReaperExecutable(), socket_name_};
  spec.unset_env = {"LD_PRELOAD", "IBSIM_SOCKNAME"};
  spec.output_path = dir_ + "/reaper.log";
  spec.pipe_stdin = true;
  spec.outlive_parent = true;
  Result<std::unique_ptr<ChildProcess>> reaper = ChildProcess::Start(spec);
  if (!reaper) return Error{"cannot start testbed-reaper: " + reaper.error().message};
  reaper_ = std::move(*reaper);
  return Status::Ok();
}

SimulatedFabric::~SimulatedFabric() {
  StopAll();
  if (reaper_) {
    reaper_->CloseStdin();
    (void)reaper_->Wait(kReaperDeadline);
  }
  if (!options_.keep_dir && !dir_.empty()) {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
}

void SimulatedFabric::StopAll() {
  probe_.Stop();
  for (auto it = processes_.rbegin(); it != processes_.rend(); ++it) (*it)->process->Kill();
  if (ibsim_) ibsim_->Kill();
}

std::vector<pid_t> SimulatedFabric::LivePids() {
  std::vector<pid_t> pids;
  if (ibsim_ && ibsim_->Running()) pids.push_back(ibsim_->pid());
  for (auto& p : processes_) {
    if (p->process->Running()) pids.push_back(p->process->pid());
  }
  if (probe_.pid() > 0) pids.push_back(probe_.pid());
  return pids;
}

Status SimulatedFabric::Command(const std::string& line) {
  if (!ibsim_ || !ibsim_->Running()) return Error{"ibsim is not running"};
  return ibsim_->WriteStdin(line + "\n");
}

Status SimulatedFabric::UnlinkPort(const std::string& node, int port) {
  return Command("Unlink \"" + node + "\"[" + std::to_string(port) + "]");
}

Status SimulatedFabric::RelinkPort(const std::string& node, int port) {
  return Command("ReLink \"" + node + "\"[" + std::to_string(port) + "]");
}

Status SimulatedFabric::SetErrorRate(const std::string& node, int port, int percent) {
  return Command("Error \"" + node + "\"[" + std::to_string(port) + "] " + std::to_string(percent));
}

std::map<std::string, std::string> SimulatedFabric::NodeEnvironment(const std::string& node,
                                                                     const std::string& dir) const {
  // For sanitizer builds of node programs (the probe, smsupd): ASan insists
  // on being first in the library list, but umad2sim is preloaded ahead of
  // it; and umad2sim's read() copies more than libibumad's buffer holds,
  // which ASan reports in its memcpy interceptor (kAsanSuppressions). Leaks
  // of the preloaded shim are not ours to fix either.
  const char* asan = std::getenv("ASAN_OPTIONS");
  std::string asan_options = std::string(asan ? asan : "") +
                             ":verify_asan_link_order=0:detect_leaks=0:suppressions=" + dir_ + "/asan.supp";
  const std::string preload = std::string(SMSUPD_TESTBED_MAD_TIMEOUT_PATH) + ":" + kUmad2SimLibrary;
  return {{"LD_PRELOAD", preload}, {"SIM_HOST", node},
          {"IBSIM_SOCKNAME", socket_name_}, {"OSM_TMP_DIR", dir + "/tmp"},
          {"OSM_CACHE_DIR", dir + "/cache"}, {"ASAN_OPTIONS", asan_options},
          {"SMSUPD_TESTBED_HANG_SWEEP_FILE", HangSweepFile(node)}};
}

std::string SimulatedFabric::HangSweepFile(const std::string& node) const { return dir_ + "/hang-sweep-" + node; }

Status SimulatedFabric::HangNextSweep(const std::string& node) {
  const std::string path = HangSweepFile(node);
  std::ofstream out(path);
  if (!out) return Error{"cannot create " + path};
  return Status::Ok();
}

Result<std::string> SimulatedFabric::NewProcessDir(const std::string& label) {
  std::string dir = dir_ + "/" + label;
  for (int n = 2; fs::exists(dir); ++n) dir = dir_ + "/" + label + "-" + std::to_string(n);
  std::error_code error;
  fs::create_directories(dir + "/tmp", error);
  fs::create_directories(dir + "/cache", error);
  if (error) return Error{"cannot create " + dir + ": " + error.message()};
  return dir;
}

Result<NodeProcess*> SimulatedFabric::RunOnNode(const std::string& node, const std::vector<std::string>& argv,
                                                const std::string& label, bool pipe_stdio) {
  Result<std::string> dir = NewProcessDir(label.empty() ? node : label);
  if (!dir) return dir.error();
  return RunOnNodeIn(node, argv, *dir, label, pipe_stdio);
}

Result<NodeProcess*> SimulatedFabric::RunOnNodeIn(const std::string& node, const std::vector<std::string>& argv,
                                                  const std::string& dir, const std::string& label,
                                                  bool pipe_stdio,
                                                  const std::map<std::string, std::string>& environment) {
  if (topology_.Find(node) == nullptr) return Error{"no node " + node + " in the topology"};
  ChildSpec spec;
  spec.argv = argv;
  spec.env = NodeEnvironment(node, dir);
  for (const auto& [name, value] : environment) spec.env[name] = value;
  spec.cwd = dir;  // umad2sim writes ./sys-<pid> here
  spec.output_path = dir + "/output.log";
  spec.pipe_stdin = pipe_stdio;
  spec.pipe_stdout = pipe_stdio;
  Result<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(spec);
  if (!child) return child.error();
  auto process = std::make_unique<NodeProcess>(NodeProcess{node, label, dir, spec.output_path, std::move(*child)});
  processes_.push_back(std::move(process));
  return processes_.back().get();
}

Result<std::unique_ptr<ChildProcess>> SimulatedFabric::LaunchProbe() {
  Result<std::string> dir = NewProcessDir("probe-" + std::to_string(++probe_starts_));
  if (!dir) return dir.error();
  ChildSpec spec;
  spec.argv = {ProbeExecutable()};
  spec.env = NodeEnvironment(options_.probe_node, *dir);
  spec.cwd = *dir;
  spec.output_path = *dir + "/stderr.log";
  spec.pipe_stdin = true;
  spec.pipe_stdout = true;
  return ChildProcess::Start(spec);
}

}  // namespace smsupd::testbed
