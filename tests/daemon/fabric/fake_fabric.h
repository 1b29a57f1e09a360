// An in-memory Fabric for unit tests: scriptable SMs, ports and P_Key
// tables, dropped replies, simulated delays (reported to a hook that advances
// the test's clock -- the fake never sleeps) and a gate that holds calls to
// imitate a wedged MAD (for MadWorker's watchdog). Thread-safe: a test may
// script it while a MadWorker thread calls it.
//
// Model (close to OpenSM on a healthy fabric):
// - a LID with an SM answers GetSmInfo; each answer raises its act_count by
//   one (OpenSM counts the MADs it sends, our polls included);
// - KillSm(lid): the SM process is gone, the node still answers PortInfo;
// - RemoveNode(lid): nothing answers at that LID;
// - SendHandover to a STANDBY makes it MASTER (OpenSM does so at once);
//   GUID 0 is refused as by every Fabric (CheckSmInfoPayload);
// - GetSmInfoRecords lists every live SM, if some SM is MASTER and the SA at
//   the local port's SM LID is not silent (SetSaSilent); ProbeSa(lid)
//   answers when the SM at lid is MASTER and its SA not silent;
// - LID 0 in a query is the local port (SetLocalPort's lid);
// - directed-route reads answer from what SetRoutePort / SetRouteNode set
//   (a route nothing was set for gets no answer);
// - DiscoverPorts returns the list SetDiscoveredPorts set (empty by
//   default), or an error after FailDiscovery(). The walk itself is tested
//   on a model subnet (subnet_walk_test.cc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/fabric/fabric.h"

namespace smsupd {

class FakeFabric : public Fabric {
 public:
  struct Handover {
    uint16_t target_lid;
    SmInfo sent;
  };

  // --- scripting ---
  void SetLocalPort(const LocalPort& port) {
    std::lock_guard lock(mutex_);
    local_ = port;
  }
  // The next `looks` LocalPortGuid() calls find no port (a port not there
  // yet); -1: never found.
  void HideLocalPort(int looks) {
    std::lock_guard lock(mutex_);
    hidden_looks_ = looks;
  }
  void AddSm(uint16_t lid, SmInfo info) {
    std::lock_guard lock(mutex_);
    nodes_[lid].sm = info;
    nodes_[lid].has_sm = true;
    nodes_[lid].port.lid = lid;
    nodes_[lid].port.capability_mask |= kCapabilityIsSm;
  }
  void SetSmState(uint16_t lid, SmState state) {
    std::lock_guard lock(mutex_);
    nodes_[lid].sm.state = state;
  }
  void KillSm(uint16_t lid) {
    std::lock_guard lock(mutex_);
    nodes_[lid].has_sm = false;
  }
  void SetPortInfo(uint16_t lid, PortInfo info) {
    std::lock_guard lock(mutex_);
    nodes_[lid].port = info;
  }
  void RemoveNode(uint16_t lid) {
    std::lock_guard lock(mutex_);
    nodes_.erase(lid);
  }
  void SetPKeyTable(uint16_t lid, int port, std::vector<uint16_t> table) {
    std::lock_guard lock(mutex_);
    nodes_[lid].pkeys[port] = std::move(table);
  }
  // What GetPortInfoByRoute(route, port) / GetNodeInfoByRoute(route) answer.
  void SetRoutePort(const DirectedRoute& route, int port, PortInfo info) {
    std::lock_guard lock(mutex_);
    route_ports_[{route, port}] = info;
  }
  void SetRouteNode(const DirectedRoute& route, NodeInfo info) {
    std::lock_guard lock(mutex_);
    route_nodes_[route] = info;
  }
  int route_reads() const {  // GetPortInfoByRoute + GetNodeInfoByRoute calls
    std::lock_guard lock(mutex_);
    return route_reads_;
  }
  void SetDiscoveredPorts(std::vector<DiscoveredPort> ports) {
    std::lock_guard lock(mutex_);
    discovered_ = std::move(ports);
    discovery_error_.clear();
  }
  void FailDiscovery(std::string message) {
    std::lock_guard lock(mutex_);
    discovery_error_ = std::move(message);
  }
  // DiscoverTopology returns this topology (an error until one is set).
  void SetTopology(FabricTopology topology) {
    std::lock_guard lock(mutex_);
    topology_ = std::move(topology);
  }
  int topology_walks() const {  // DiscoverTopology calls
    std::lock_guard lock(mutex_);
    return topology_walks_;
  }
  // A HANDOVER to a STANDBY is answered at once, but the target reads
  // STANDBY for its next `reads` SMInfo reads before it reads MASTER (OpenSM
  // changes state on another thread after its answer).
  void MasterAfterReads(int reads) {
    std::lock_guard lock(mutex_);
    handover_lag_reads_ = reads;
  }
  // The SA at `lid` ignores every request (ProbeSa, GetSmInfoRecords), as
  // OpenSM's does until its first sweep as master is over; false: it
  // answers again.
  void SetSaSilent(uint16_t lid, bool silent) {
    std::lock_guard lock(mutex_);
    nodes_[lid].sa_silent = silent;
  }
  // Every HANDOVER is answered with an error status and changes nothing.
  void RefuseHandovers() {
    std::lock_guard lock(mutex_);
    refuse_handovers_ = true;
  }
  // The next `count` calls fail as if their MADs were dropped.
  void DropNext(int count) {
    std::lock_guard lock(mutex_);
    drop_next_ = count;
  }
  // Every call "takes" `delay`: reported to the hook (which must not call
  // the fake), never slept.
  void SetDelay(std::chrono::milliseconds delay, std::function<void(std::chrono::milliseconds)> hook) {
    std::lock_guard lock(mutex_);
    delay_ = delay;
    delay_hook_ = std::move(hook);
  }
  // Calls wait at the gate until ReleaseCalls() (a wedged MAD).
  void BlockCalls() {
    std::lock_guard lock(mutex_);
    blocked_ = true;
  }
  void ReleaseCalls() {
    {
      std::lock_guard lock(mutex_);
      blocked_ = false;
    }
    gate_.notify_all();
  }

  // --- inspection ---
  std::vector<Handover> handovers() const {
    std::lock_guard lock(mutex_);
    return handovers_;
  }
  int calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  int sa_probes() const {  // ProbeSa calls
    std::lock_guard lock(mutex_);
    return sa_probes_;
  }
  int walks() const {  // DiscoverPorts calls
    std::lock_guard lock(mutex_);
    return walks_;
  }
  int blocked_calls() const {
    std::lock_guard lock(mutex_);
    return waiting_at_gate_;
  }
  SmInfo sm(uint16_t lid) const {
    std::lock_guard lock(mutex_);
    auto it = nodes_.find(lid);
    return it == nodes_.end() ? SmInfo{} : it->second.sm;
  }

  // --- Fabric ---
  Result<PortInfo> LocalPortInfo() override {
    std::unique_lock lock = Enter();
    if (Dropped()) return Timeout("PortInfo of the local port");
    auto it = nodes_.find(local_.lid);
    PortInfo info = it == nodes_.end() ? PortInfo{} : it->second.port;
    info.lid = local_.lid;
    info.port_state = local_.port_state;
    info.sm_lid = local_.sm_lid;
    info.port_guid = local_.port_guid;
    return info;
  }
  Result<Guid> LocalPortGuid() override {
    std::unique_lock lock = Enter();
    if (hidden_looks_ != 0) {
      if (hidden_looks_ > 0) --hidden_looks_;
      return Error{"no InfiniBand port with that GUID"};
    }
    return local_.port_guid;
  }
  Result<std::vector<LocalPort>> ActivePorts() override {
    std::unique_lock lock = Enter();
    if (local_.port_state != kPortStateActive) return std::vector<LocalPort>{};
    return std::vector<LocalPort>{local_};
  }
  Result<SmInfo> GetSmInfo(uint16_t lid) override {
    std::unique_lock lock = Enter();
    lid = Resolve(lid);
    auto it = nodes_.find(lid);
    if (Dropped() || it == nodes_.end() || !it->second.has_sm) return Timeout("SMInfo", lid);
    it->second.sm.act_count += 1;
    SmInfo seen = it->second.sm;
    if (it->second.reads_until_master > 0 && --it->second.reads_until_master == 0)
      it->second.sm.state = SmState::kMaster;
    return seen;
  }
  Result<PortInfo> GetPortInfo(uint16_t lid, int /*port*/) override {
    std::unique_lock lock = Enter();
    lid = Resolve(lid);
    auto it = nodes_.find(lid);
    if (Dropped() || it == nodes_.end()) return Timeout("PortInfo", lid);
    return it->second.port;
  }
  Result<NodeInfo> GetNodeInfo(uint16_t lid) override {
    std::unique_lock lock = Enter();
    lid = Resolve(lid);
    auto it = nodes_.find(lid);
    if (Dropped() || it == nodes_.end()) return Timeout("NodeInfo", lid);
    NodeInfo info;
    info.type = NodeType::kCa;
    info.num_ports = 1;
    info.local_port = 1;
    info.partition_cap = 128;
    return info;
  }
  Result<PortInfo> GetPortInfoByRoute(const DirectedRoute& route, int port) override {
    std::unique_lock lock = Enter();
    ++route_reads_;
    auto it = route_ports_.find({route, port});
    if (Dropped() || it == route_ports_.end()) return Timeout("PortInfo by directed route");
    return it->second;
  }
  Result<NodeInfo> GetNodeInfoByRoute(const DirectedRoute& route) override {
    std::unique_lock lock = Enter();
    ++route_reads_;
    auto it = route_nodes_.find(route);
    if (Dropped() || it == route_nodes_.end()) return Timeout("NodeInfo by directed route");
    return it->second;
  }
  Status ProbeSa(uint16_t sm_lid) override {
    std::unique_lock lock = Enter();
    ++sa_probes_;
    auto it = nodes_.find(sm_lid);
    if (Dropped() || it == nodes_.end() || !it->second.has_sm || it->second.sa_silent ||
        it->second.sm.state != SmState::kMaster)
      return Timeout("SA ClassPortInfo", sm_lid);
    return Status::Ok();
  }
  Result<std::vector<SmRecord>> GetSmInfoRecords() override {
    std::unique_lock lock = Enter();
    if (Dropped()) return Timeout("SA SMInfoRecord table");
    if (auto sa = nodes_.find(local_.sm_lid); sa != nodes_.end() && sa->second.sa_silent)
      return Timeout("SA SMInfoRecord table", local_.sm_lid);
    std::vector<SmRecord> records;
    bool master = false;
    for (const auto& [lid, node] : nodes_) {
      if (!node.has_sm) continue;
      records.push_back(SmRecord{lid, node.sm});
      master = master || node.sm.state == SmState::kMaster;
    }
    if (!master) return Error{"SA SMInfoRecord table: no master SM"};
    return records;
  }
  Result<std::vector<uint16_t>> GetPKeyTable(uint16_t lid, int port) override {
    std::unique_lock lock = Enter();
    lid = Resolve(lid);
    auto it = nodes_.find(lid);
    if (Dropped() || it == nodes_.end()) return Timeout("P_Key table", lid);
    auto table = it->second.pkeys.find(port);
    if (table == it->second.pkeys.end()) return std::vector<uint16_t>{0xffff};
    return table->second;
  }
  Result<std::vector<DiscoveredPort>> DiscoverPorts() override {
    std::unique_lock lock = Enter();
    ++walks_;
    if (Dropped()) return Timeout("NodeInfo of the local node");
    if (!discovery_error_.empty()) return Error{discovery_error_};
    return discovered_;
  }
  Result<FabricTopology> DiscoverTopology() override {
    std::unique_lock lock = Enter();
    ++topology_walks_;
    if (Dropped()) return Timeout("NodeInfo of the local node");
    if (!topology_) return Error{"no topology set"};
    return *topology_;
  }
  Status SendHandover(uint16_t target_lid, const SmInfo& local) override {
    std::unique_lock lock = Enter();
    if (Status payload = CheckSmInfoPayload(local); !payload) return payload;
    if (target_lid == 0) return Error{"refusing to send a HANDOVER to LID 0 (the local port)"};
    auto it = nodes_.find(target_lid);
    if (Dropped() || it == nodes_.end() || !it->second.has_sm) {
      return Timeout("SMInfo HANDOVER", target_lid);
    }
    if (refuse_handovers_) return Error{"SMInfo HANDOVER at LID " + std::to_string(target_lid) + ": MAD status 0x1c"};
    handovers_.push_back(Handover{target_lid, local});
    if (it->second.sm.state == SmState::kStandby) {
      if (handover_lag_reads_ > 0)
        it->second.reads_until_master = handover_lag_reads_;
      else
        it->second.sm.state = SmState::kMaster;
    }
    return Status::Ok();
  }

 private:
  struct Node {
    bool has_sm = false;
    SmInfo sm;
    PortInfo port;
    std::map<int, std::vector<uint16_t>> pkeys;
    int reads_until_master = 0;  // a HANDOVER taken, not yet MASTER (MasterAfterReads)
    bool sa_silent = false;      // SetSaSilent
  };

  // Counts the call, waits at the gate, reports the delay; returns the lock.
  std::unique_lock<std::mutex> Enter() {
    std::unique_lock lock(mutex_);
    ++calls_;
    ++waiting_at_gate_;
    gate_.wait(lock, [this] { return !blocked_; });
    --waiting_at_gate_;
    if (delay_hook_ && delay_.count() > 0) delay_hook_(delay_);
    return lock;
  }
  uint16_t Resolve(uint16_t lid) const { return lid == 0 ? local_.lid : lid; }
  bool Dropped() {
    if (drop_next_ <= 0) return false;
    --drop_next_;
    return true;
  }
  static Error Timeout(const std::string& what, uint16_t lid = 0) {
    return Error{what + (lid ? " at LID " + std::to_string(lid) : "") + ": no response"};
  }

  mutable std::mutex mutex_;
  std::condition_variable gate_;
  bool blocked_ = false;
  int waiting_at_gate_ = 0;
  int drop_next_ = 0;
  int calls_ = 0;
  int walks_ = 0;
  int sa_probes_ = 0;
  int topology_walks_ = 0;
  std::optional<FabricTopology> topology_;
  std::chrono::milliseconds delay_{0};
  std::function<void(std::chrono::milliseconds)> delay_hook_;
  LocalPort local_;
  int hidden_looks_ = 0;
  std::map<uint16_t, Node> nodes_;
  std::vector<Handover> handovers_;
  bool refuse_handovers_ = false;
  int handover_lag_reads_ = 0;
  std::vector<DiscoveredPort> discovered_;
  std::string discovery_error_;
  std::map<std::pair<DirectedRoute, int>, PortInfo> route_ports_;
  std::map<DirectedRoute, NodeInfo> route_nodes_;
  int route_reads_ = 0;
};

}  // namespace smsupd
