// One failover as this daemon saw it, stage by stage, so that the time to a
// new master has names (`smctl events`: failover-timeline):
//
//   fault-seen         the detection (with the signal that decided it):
//                      master lost, no master, dual master,
//                      the local MASTER's OpenSM exited, an operator's
//                      failover or restart, a preempt claim
//   handover-sent      smsupd's SubnSet(SMInfo HANDOVER) left (to the local
//                      OpenSM on a take-over, to the standby after the local
//                      MASTER's OpenSM died)
//   local-master       the local OpenSM answered SMInfo as MASTER
//   subnet-up          OpenSM's first "SUBNET UP" after that (OpenSM's own
//                      time stamp: the end of its first heavy sweep)
//   far-port           the first read of the far port (the end port the last
//                      subnet walk found deepest) whose SM LID is the new
//                      master's: from then on the fabric knows its master
//   remote-master      on a node that did not become master: the subnet's
//                      new MASTER as this node's watch first saw it
//
// Each stage is a wall-clock time; the event gives every stage as ms after
// the first one seen (the node that takes over after a HANDOVER from a dying
// master sees no fault: its timeline starts at local-master). A stage never
// seen is null. A timeline ends when its last stage arrives or after
// kTimelineLimit, and is reported once. Pure: the caller passes the times.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/guid.h"

namespace smsupd {

inline constexpr std::chrono::seconds kTimelineLimit{30};

class FailoverTimeline {
 public:
  using WallTime = std::chrono::system_clock::time_point;

  // A detection. Starts a timeline unless one runs. `signal`: what decided
  // it, where a cause has several ("neighbour_port_down" for master_lost:
  // the switch port at the other end of the master's cable read Down;
  // "missed_polls_port_silent", "missed_polls_port_answers"); empty: none.
  void FaultSeen(const std::string& cause, WallTime at, const std::string& signal = "");
  void HandoverSent(WallTime at);
  // The local SM became MASTER: starts a timeline ("handover_received") if
  // none runs; from now on the far port is watched.
  void LocalMaster(WallTime at, std::uint16_t local_lid);
  void SubnetUp(WallTime at);
  // The far port named the new master (`sm_lid`): the last stage.
  void FarPortSeen(WallTime at, Guid guid, std::uint16_t lid);
  // The far port being watched (shown in the event even if never seen).
  void FarPortWatched(Guid guid, std::uint16_t lid) {
    far_guid_ = guid;
    far_lid_ = lid;
  }
  // No far port is known (no walk yet): the timeline ends at subnet-up.
  void FarPortUnknown() { far_unknown_ = true; }
  // Another SM became MASTER while this one is not: ends a timeline that
  // never reached local-master.
  void RemoteMaster(WallTime at, Guid guid);

  bool active() const { return started_.has_value(); }
  // A local-master timeline whose far port has not answered yet.
  bool wants_far_port() const { return active() && local_master_ && !far_port_ && !far_unknown_; }
  std::uint16_t local_lid() const { return local_lid_; }

  // The finished timeline (and a fresh start) when its last stage arrived or
  // kTimelineLimit passed since its start; nullopt otherwise.
  std::optional<nlohmann::json> TakeFinished(WallTime now);

  // "fault seen +0 ms, HANDOVER sent +2 ms, ..." for the journal line.
  static std::string Describe(const nlohmann::json& details);

 private:
  void Start(const std::string& cause, WallTime at);
  nlohmann::json Details(bool complete) const;
  void Reset();

  std::optional<WallTime> started_;
  std::string cause_;
  std::string signal_;
  std::optional<WallTime> fault_seen_;
  std::optional<WallTime> handover_sent_;
  std::optional<WallTime> local_master_;
  std::optional<WallTime> subnet_up_;
  std::optional<WallTime> far_port_;
  std::optional<WallTime> remote_master_;
  std::uint16_t local_lid_ = 0;
  Guid far_guid_ = 0;
  std::uint16_t far_lid_ = 0;
  Guid remote_guid_ = 0;
  bool far_unknown_ = false;
};

// OpenSM's own time stamp of a log line ("Dec 03 19:25:11 622645 [...]"),
// read in the local time zone of the year of `now` (OpenSM writes no year;
// a stamp in the future belongs to the year before). nullopt if the line
// does not start with one.
std::optional<std::chrono::system_clock::time_point> OpenSmLogTime(
    const std::string& line, std::chrono::system_clock::time_point now);

}  // namespace smsupd
