// One simulated fabric per test: an ibsim on its own IBSIM_SOCKNAME and
// private directory, its console kept open for link and packet-drop
// commands, processes run "on" its nodes through the umad2sim preload, and
// a probe for ground-truth MAD queries. The destructor kills everything it
// started (probe, node processes, then ibsim), whether the test passed or not.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "tests/testbed/child_process.h"
#include "tests/testbed/fabric_probe.h"
#include "tests/testbed/topology.h"

namespace smsupd::testbed {

inline constexpr char kUmad2SimLibrary[] = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

struct FabricOptions {
  std::string name = "fabric";  // part of the socket and directory names
  std::string probe_node;       // node the probe runs on; empty: topology.FarCa()
  bool keep_dir = false;        // keep the directory (logs) after teardown
};

// A process running on a simulated node, with its own directory (its cwd,
// OSM_TMP_DIR and OSM_CACHE_DIR live there) and output file.
struct NodeProcess {
  std::string node;
  std::string label;
  std::string dir;
  std::string output_path;
  std::unique_ptr<ChildProcess> process;
};

class SimulatedFabric {
 public:
  // Writes the net file, starts ibsim and waits until its sockets listen.
  static Result<std::unique_ptr<SimulatedFabric>> Start(Topology topology, FabricOptions options = {});
  ~SimulatedFabric();
  SimulatedFabric(const SimulatedFabric&) = delete;
  SimulatedFabric& operator=(const SimulatedFabric&) = delete;

  const Topology& topology() const { return topology_; }
  const std::string& socket_name() const { return socket_name_; }
  const std::string& dir() const { return dir_; }
  pid_t ibsim_pid() const { return ibsim_->pid(); }
  void set_keep_dir(bool keep) { options_.keep_dir = keep; }

  // ibsim console (ibsim/sim_cmd.c). Commands take effect asynchronously:
  // wait for their effect on the fabric.
  Status Command(const std::string& line);
  Status UnlinkPort(const std::string& node, int port);  // link down
  Status RelinkPort(const std::string& node, int port);  // restore it
  // Drops `percent` of the MADs through a port (0 stops dropping).
  Status SetErrorRate(const std::string& node, int port, int percent);

  // The next heavy sweep of an OpenSM on `node` (the first SubnGet(NodeInfo)
  // it sends) waits for ever: that request is never sent and never times
  // out (tests/testbed/mad_timeout/). One request, in one OpenSM.
  Status HangNextSweep(const std::string& node);
  // Environment that attaches a libibumad program to `node`.
  std::map<std::string, std::string> NodeEnvironment(const std::string& node, const std::string& dir) const;
  // Runs argv on `node` in a fresh directory <fabric dir>/<label>. The
  // fabric owns the process; the pointer stays valid until teardown.
  Result<NodeProcess*> RunOnNode(const std::string& node, const std::vector<std::string>& argv,
                                 const std::string& label, bool pipe_stdio = false);
  // The two halves of RunOnNode, for callers that write files (a config)
  // into the process directory before the start. `environment` is added
  // to the node's.
  Result<std::string> NewProcessDir(const std::string& label);
  Result<NodeProcess*> RunOnNodeIn(const std::string& node, const std::vector<std::string>& argv,
                                   const std::string& dir, const std::string& label, bool pipe_stdio = false,
                                   const std::map<std::string, std::string>& environment = {});

  // The fabric's probe (started on first use on options.probe_node).
  FabricProbe& probe() { return probe_; }

  // Pids of every process this fabric started that is still running.
  std::vector<pid_t> LivePids();
  // Kills every process, ibsim last. Also done by the destructor, which
  // then lets testbed-reaper kill whatever else still runs on the fabric
  // (an OpenSM that an smsupd started). The reaper also does that when the
  // test process dies without a teardown.
  void StopAll();

 private:
  SimulatedFabric(Topology topology, FabricOptions options);
  Status Launch();
  std::string HangSweepFile(const std::string& node) const;
  Status StartReaper();
  Result<std::unique_ptr<ChildProcess>> LaunchProbe();

  Topology topology_;
  FabricOptions options_;
  std::string dir_;
  std::string socket_name_;
  std::unique_ptr<ChildProcess> reaper_;  // testbed-reaper: its stdin closes with us
  std::unique_ptr<ChildProcess> ibsim_;
  std::vector<std::unique_ptr<NodeProcess>> processes_;
  FabricProbe probe_;
  int probe_starts_ = 0;
};

// Path of the testbed-probe executable (env SMSUPD_TESTBED_PROBE overrides
// the one built next to the library).
std::string ProbeExecutable();
// SMSUPD_TB_DEBUG=1: ibsim runs with -v (client attach/detach, IsSM
// changes, every packet) and smsupd's OpenSMs log everything (log_flags 0xff).
bool TestBedDebug();
// Path of testbed-reaper (env SMSUPD_TESTBED_REAPER overrides).
std::string ReaperExecutable();

}  // namespace smsupd::testbed
