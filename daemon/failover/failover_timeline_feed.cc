// The failover timeline's stages from the controller's own records: the
// detections it announces, the HANDOVER it sends, the local SM's state in
// each round, OpenSM's SUBNET UP, and reads of the far port.
#include <spdlog/spdlog.h>

#include <map>

#include "daemon/failover/failover_controller.h"

namespace smsupd {
namespace {

// How often the far port is read while the new master's sweep runs: the
// resolution of the far-port stage. One SMP each, for kTimelineLimit at most.
constexpr std::chrono::milliseconds kFarPortPoll{20};
constexpr std::chrono::milliseconds kFarPortDeadline{1000};

// The announced events that start a timeline, and its cause.
const std::map<std::string, std::string, std::less<>>& TimelineCauses() {
  static const std::map<std::string, std::string, std::less<>> causes = {
      {"MASTER_LOST", "master_lost"},
      {"NO_MASTER", "no_master"},
      {"DUAL_MASTER", "dual_master"},
      {"HANDOVER_SENT", "opensm_exit"},
      {"OPENSM_EXIT_WAITS_FOR_SM_LIST", "opensm_exit"},
      {"FAILOVER_REQUESTED", "operator"},
      {"OPENSM_RESTART_REQUESTED", "restart"},
      {"PREEMPT", "preempt"},
      {"ISOLATED_MASTER_STOPPED", "local_port_down"},
      {"MASTER_NOT_SWEEPING", "master_not_sweeping"},
  };
  return causes;
}

FailoverTimeline::WallTime WallNow() { return std::chrono::system_clock::now(); }

bool IsMaster(const std::optional<SmInfo>& sm) { return sm && sm->state == SmState::kMaster; }

}  // namespace

void FailoverController::Report(const std::string& kind, const std::string& text) {
  if (auto cause = TimelineCauses().find(kind); cause != TimelineCauses().end() && !timeline_.active()) {
    timeline_.FaultSeen(cause->second, WallNow(), kind == "MASTER_LOST" ? MasterLostSignal() : "");
    master_before_fault_ = latest_.master ? latest_.master->info.guid : 0;
  }
  if (kind == "OPENSM_ADOPTED") return;  // the supervisor reports the adoption itself
  reporter_.Announce(kind, text);
}

void FailoverController::TimelineFromRound(const WatchRound& round) {
  const std::uint16_t local_lid = round.local_port ? round.local_port->lid : 0;
  const bool was_master = IsMaster(last_round_.local_sm);
  const bool other_master_before =
      last_round_.master_lid != 0 && (!last_round_.local_port || last_round_.master_lid != last_round_.local_port->lid);
  if (IsMaster(round.local_sm) && !was_master && (timeline_.active() || other_master_before)) {
    if (!timeline_.active()) master_before_fault_ = latest_.master ? latest_.master->info.guid : 0;
    timeline_.LocalMaster(WallNow(), local_lid);
    // The own walk's port, else the last verification's.
    far_target_ = far_port_ ? far_port_ : far_port_source_ ? far_port_source_() : std::nullopt;
    if (!far_target_ || far_target_->lid == local_lid) {
      far_target_.reset();
      timeline_.FarPortUnknown();
    } else {
      timeline_.FarPortWatched(far_target_->port_guid, far_target_->lid);
    }
    PollFarPort();
  }
  if (timeline_.active() && round.master && IsMaster(round.master) && round.master->guid != master_before_fault_ &&
      !IsMaster(round.local_sm))
    timeline_.RemoteMaster(WallNow(), round.master->guid);
  FinishTimeline();
}

void FailoverController::SubnetUpLogged(const std::string& line) {
  first_sweep_running_ = false;
  const auto now = WallNow();
  timeline_.SubnetUp(OpenSmLogTime(line, now).value_or(now));
  FinishTimeline();
}

void FailoverController::PollFarPort() {
  if (!running_ || far_poll_in_flight_ || !timeline_.wants_far_port() || !far_target_) return;
  far_poll_in_flight_ = true;
  const DiscoveredPort target = *far_target_;
  worker_.Submit(
      [lid = target.lid](Fabric& fabric) { return fabric.GetPortInfo(lid, 0); },
      [this, target](Result<PortInfo> info) {
        far_poll_in_flight_ = false;
        if (!running_) return;
        if (info && info->sm_lid != 0 && info->sm_lid == timeline_.local_lid())
          timeline_.FarPortSeen(WallNow(), target.port_guid, target.lid);
        FinishTimeline();
        if (!timeline_.wants_far_port()) return;
        far_timer_.expires_after(kFarPortPoll);
        far_timer_.async_wait([this](boost::system::error_code error) {
          if (!error) PollFarPort();
        });
      },
      kFarPortDeadline);
}

void FailoverController::FinishTimeline() {
  std::optional<nlohmann::json> details = timeline_.TakeFinished(WallNow());
  if (!details) return;
  far_timer_.cancel();
  if (!details->value("local_master_ms", nlohmann::json()).is_null())
    walk_hold_until_ = clock_.Now() + kWalkHoldAfterTakeover;
  const std::string text = FailoverTimeline::Describe(*details);
  spdlog::info("FAILOVER_TIMELINE {}", text);
  (*details)["text"] = text;
  reporter_.AddEvent(control::kEventFailoverTimeline, std::move(*details));
}

}  // namespace smsupd
