#include "tests/daemon/failover/master_monitor.h"

#include <algorithm>

#include "tests/testbed/fabric_probe.h"

namespace smsupd::testbed {
namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// Per MAD: 200 ms x 2 retries in the probe; a dead SM costs ~0.6 s a read.
constexpr milliseconds kCallDeadline(3000);

milliseconds Since(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration_cast<milliseconds>(to - from);
}

std::string Join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : " ") + n;
  return text.empty() ? "none" : text;
}

}  // namespace

std::string MonitorReport::Describe() const {
  std::string text = std::to_string(samples) + " samples; longest dual master " +
                     std::to_string(longest_dual_master.count()) + " ms (" + std::to_string(dual_master_samples) +
                     " samples); longest confirmed no master " + std::to_string(longest_no_master.count()) +
                     " ms (" + std::to_string(no_master_samples) + " samples); MASTER samples:";
  for (const auto& [name, count] : master_samples) text += " " + name + "=" + std::to_string(count);
  text += "\ntimeline:";
  for (const std::string& line : timeline) text += "\n  " + line;
  return text;
}

MasterMonitor::MasterMonitor(SimulatedFabric& fabric, std::vector<WatchedSm> sms, milliseconds interval)
    : fabric_(fabric), sms_(std::move(sms)), interval_(interval) {}

MasterMonitor::~MasterMonitor() { Stop(); }

void MasterMonitor::Start() {
  if (running_.exchange(true)) return;
  Reset();
  thread_ = std::thread([this] { Run(); });
}

MonitorReport MasterMonitor::Stop() {
  running_ = false;
  if (thread_.joinable()) thread_.join();
  return Snapshot();
}

MonitorReport MasterMonitor::Snapshot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  MonitorReport report = report_;
  const SteadyClock::time_point now = SteadyClock::now();
  if (in_dual_) report.longest_dual_master = std::max(report.longest_dual_master, Since(dual_since_, now));
  if (in_none_) report.longest_no_master = std::max(report.longest_no_master, Since(none_since_, now));
  return report;
}

void MasterMonitor::Reset() {
  std::lock_guard<std::mutex> lock(mutex_);
  report_ = MonitorReport{};
  started_ = SteadyClock::now();
  in_dual_ = in_none_ = false;
  ever_master_ = false;
  last_masters_ = "?";
}

// The probe lives on this thread: a child started here dies with it
// (PR_SET_PDEATHSIG), and a probe stuck on a dropped MAD is restarted by
// the next call.
void MasterMonitor::Run() {
  int starts = 0;
  FabricProbe probe([this, &starts]() -> Result<std::unique_ptr<ChildProcess>> {
    Result<std::string> dir = fabric_.NewProcessDir("monitor-probe-" + std::to_string(++starts));
    if (!dir) return dir.error();
    ChildSpec spec;
    spec.argv = {ProbeExecutable()};
    spec.env = fabric_.NodeEnvironment(fabric_.topology().FarCa().name, *dir);
    spec.cwd = *dir;
    spec.output_path = *dir + "/stderr.log";
    spec.pipe_stdin = true;
    spec.pipe_stdout = true;
    return ChildProcess::Start(spec);
  });
  while (running_) {
    const SteadyClock::time_point round = SteadyClock::now();
    std::vector<std::string> masters = ReadMasters(probe, false);
    bool confirmed_none = masters.empty() && ReadMasters(probe, true).empty();
    if (!running_) break;
    Record(masters, confirmed_none);
    SteadyClock::time_point next = round + interval_;
    while (running_ && SteadyClock::now() < next) std::this_thread::sleep_for(milliseconds(10));
  }
  probe.Stop();
}

std::vector<std::string> MasterMonitor::ReadMasters(FabricProbe& probe, bool reverse) {
  std::vector<std::string> masters;
  std::vector<WatchedSm> order = sms_;
  if (reverse) std::reverse(order.begin(), order.end());
  for (const WatchedSm& sm : order) {
    Result<nlohmann::json> reply = probe.Call("sminfo " + std::to_string(sm.lid), kCallDeadline);
    if (reply && reply->value("state", 0) == static_cast<int>(SmStateValue::kMaster)) masters.push_back(sm.name);
  }
  std::sort(masters.begin(), masters.end());
  return masters;
}

void MasterMonitor::Record(const std::vector<std::string>& masters, bool confirmed_none_read) {
  bool confirmed_none = confirmed_none_read;
  std::lock_guard<std::mutex> lock(mutex_);
  const SteadyClock::time_point now = SteadyClock::now();
  ++report_.samples;
  for (const std::string& name : masters) ++report_.master_samples[name];
  if (!masters.empty() && !ever_master_) {
    ever_master_ = true;
    report_.first_master_ms = Since(started_, now).count();
  }
  confirmed_none = confirmed_none && ever_master_;
  const bool dual = masters.size() >= 2;
  if (dual && !in_dual_) dual_since_ = now;
  if (!dual && in_dual_) report_.longest_dual_master = std::max(report_.longest_dual_master, Since(dual_since_, now));
  in_dual_ = dual;
  report_.dual_master_samples += dual ? 1 : 0;
  if (confirmed_none && !in_none_) none_since_ = now;
  if (!confirmed_none && in_none_) report_.longest_no_master = std::max(report_.longest_no_master, Since(none_since_, now));
  in_none_ = confirmed_none;
  report_.no_master_samples += confirmed_none ? 1 : 0;
  std::string seen = masters.empty() ? (confirmed_none ? "none" : "none (not confirmed)") : Join(masters);
  if (seen != last_masters_) {
    report_.timeline.push_back("+" + std::to_string(Since(started_, now).count()) + " ms: MASTER " + seen);
    last_masters_ = seen;
  }
}

}  // namespace smsupd::testbed
