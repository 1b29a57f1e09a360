// Watches, in the background, which SMs the fabric says are MASTER: every
// ~100 ms it reads SMInfo of each watched SM with a probe of its own (a
// second umad client, so the test's probe stays free). It records the
// longest stretch with two or more MASTERs and the longest with none.
//
// A "no master" sample is confirmed by reading the SMs again in reverse
// order: during a handover the new master turns MASTER before the old one
// turns STANDBY, so one ordered pass can see neither as MASTER although the
// fabric always had one. Only a stretch of confirmed samples counts.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "tests/testbed/simulated_fabric.h"

namespace smsupd::testbed {

struct WatchedSm {
  std::string name;  // for messages: the node it runs on
  uint16_t lid = 0;
};

struct MonitorReport {
  int samples = 0;
  // Since Start()/Reset(): when a MASTER was first seen (-1: never). No-master
  // stretches count only after it (a cold start has none before).
  long first_master_ms = -1;
  std::chrono::milliseconds longest_dual_master{0};
  std::chrono::milliseconds longest_no_master{0};  // confirmed samples only
  int dual_master_samples = 0;
  int no_master_samples = 0;
  std::map<std::string, int> master_samples;  // per SM: samples that showed it MASTER
  std::vector<std::string> timeline;          // "+1234 ms: MASTER H1_2" on every change
  std::string Describe() const;
};

class MasterMonitor {
 public:
  MasterMonitor(SimulatedFabric& fabric, std::vector<WatchedSm> sms,
                std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  ~MasterMonitor();  // Stop()
  MasterMonitor(const MasterMonitor&) = delete;
  MasterMonitor& operator=(const MasterMonitor&) = delete;

  // Starts the thread (which starts its probe on the fabric's far HCA).
  void Start();
  // Stops the thread and its probe; returns the final report.
  MonitorReport Stop();
  MonitorReport Snapshot() const;
  // Forgets what was seen so far (e.g. after the setup's own election).
  void Reset();

 private:
  void Run();
  std::vector<std::string> ReadMasters(class FabricProbe& probe, bool reverse);
  void Record(const std::vector<std::string>& masters, bool confirmed_none);

  SimulatedFabric& fabric_;
  std::vector<WatchedSm> sms_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> running_{false};
  std::thread thread_;

  mutable std::mutex mutex_;
  MonitorReport report_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point dual_since_{};
  std::chrono::steady_clock::time_point none_since_{};
  bool in_dual_ = false;
  bool in_none_ = false;
  bool ever_master_ = false;
  std::string last_masters_ = "?";
};

}  // namespace smsupd::testbed
