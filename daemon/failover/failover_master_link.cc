// FailoverController: the watched master's cable (docs/failover.md "Node
// loss: the switch port at the other end of the cable").
//
// A walk of the subnet gives the directed route to every SM port; the last
// hop of the route to the master's port is its cable, and the port that hop
// leaves by is the switch port at the cable's other end. When the master's
// node dies or its cable is pulled, that switch port goes Down at once and
// the switch's own SMA says so, however busy any OpenSM is: one read tells a
// lost node from a busy one without waiting out three missed polls.
//
// A Down read decides a take-over only for a route known to end at the
// master: the route is confirmed by NodeInfo along it (the port GUID it
// ends at is the master's, and the switch its last hop leaves) while the
// master answers and the link reads up, and again every inventory interval;
// a Down read counts only while NodeInfo by the route to that switch still
// names the same switch (so a recabled link between switches on the way
// cannot point the read at another switch's port). A route that ends
// elsewhere, reaches another switch, or whose link reads Down while the
// master answers, is forgotten, and a later round with a healthy master
// walks for a new one; until then the missed-poll rule alone decides. What
// is left: the master's own cable moved to another port within the last
// inventory interval. The master is cut off while it is moved, and a take-
// over then is what a lost master gets; the dual-master rule settles its
// return.
//
// Between two rounds (150 ms apart by default) a STANDBY glances at that
// switch port every FailoverTiming::link_glance (50 ms) after the last
// round's end (two glances per round by default): one SMP, and a
// Down read only runs the next round at once, which reads the port again
// and decides as above. A node's loss is then seen ~25 ms after it on
// average, not ~75 ms (half a poll interval). A glance that reads Down or
// gets no answer is the last until that round has come back, so a switch
// that does not answer holds the MAD thread at most once per round.
#include <spdlog/spdlog.h>

#include "daemon/fabric/subnet_walk.h"
#include "daemon/failover/failover_controller.h"

namespace smsupd {
namespace {

// A forgotten route is walked for again after this long at the soonest:
// a walk holds the MAD thread (~0.3 s at 648 HCAs), and a route that keeps
// going stale must not turn into a walk every inventory interval.
constexpr std::chrono::seconds kRouteWalkRetry{30};

}  // namespace

bool FailoverController::MasterRouteMissing() const {
  return watch_ && watch_->guid != 0 && !sm_routes_.contains(watch_->guid) &&
         route_walked_for_ != watch_->guid;
}

std::optional<MasterLinkWatch> FailoverController::MasterLinkRequest(std::chrono::steady_clock::time_point now) {
  if (!watch_ || watch_->guid == 0 || watch_->lid == 0) {
    master_link_.reset();
    return std::nullopt;
  }
  if (!master_link_ || master_link_->guid != watch_->guid || master_link_->lid != watch_->lid) {
    master_link_.reset();
    auto route = sm_routes_.find(watch_->guid);
    if (route == sm_routes_.end() || route->second.empty()) return std::nullopt;
    master_link_ = MasterLink{watch_->guid, watch_->lid, route->second, false, 0, {}};
  }
  MasterLinkWatch request;
  request.master_guid = master_link_->guid;
  request.master_lid = master_link_->lid;
  request.route = master_link_->route;
  request.trusted = master_link_->trusted;
  request.switch_guid = master_link_->switch_guid;
  request.verify = !master_link_->trusted || now >= master_link_->verify_due;
  return request;
}

void FailoverController::UpdateMasterLink(const WatchRound& round) {
  if (round.sm_routes) {
    // The last walk's routes replace older ones; a walk never returns more
    // than kMaxSmRoutes, so neither does the map.
    sm_routes_.clear();
    for (const SmRoute& r : *round.sm_routes) sm_routes_[r.port_guid] = r.route;
    if (watch_) route_walked_for_ = watch_->guid;
    if (master_link_) {
      auto route = sm_routes_.find(master_link_->guid);
      if (route == sm_routes_.end() || route->second != master_link_->route) master_link_.reset();
    }
  }
  if (!master_link_) return;
  if (!round.master && master_link_->trusted && round.master_link_switch &&
      *round.master_link_switch != 0 && *round.master_link_switch != master_link_->switch_guid) {
    ForgetMasterLink("its route reaches switch " + FormatGuid(*round.master_link_switch) + ", not " +
                     FormatGuid(master_link_->switch_guid));
    return;
  }
  if (!round.master || round.master->guid != master_link_->guid) return;
  // The master answered this round.
  const std::optional<PortInfo>& far_end = round.master_link_port;
  if (far_end && LinkReadsDown(*far_end)) {
    ForgetMasterLink("its cable's far end reads Down while the master answers");
    return;
  }
  if (!round.master_link_end) return;
  const Guid switch_guid = round.master_link_switch.value_or(0);
  if (*round.master_link_end == master_link_->guid && far_end && switch_guid != 0) {
    if (!master_link_->trusted)
      spdlog::info("MASTER_LINK_WATCHED master {}: its cable ends at port {} of the node at DR path {}",
                   FormatGuid(master_link_->guid), LinkPeerOf(master_link_->route).port,
                   FormatDirectedRoute(LinkPeerOf(master_link_->route).node_route));
    master_link_->trusted = true;
    master_link_->switch_guid = switch_guid;
    master_link_->verify_due = clock_.Now() + timing_.inventory_interval;
  } else if (*round.master_link_end != 0) {
    ForgetMasterLink("the route ends at port " + FormatGuid(*round.master_link_end));
  } else {
    // No answer along the route: not known to end at the master now.
    master_link_->trusted = false;
  }
}

void FailoverController::ForgetMasterLink(const std::string& why) {
  if (!master_link_) return;
  spdlog::info("MASTER_LINK_FORGOTTEN master {}: {}; the next walk looks for its route again",
               FormatGuid(master_link_->guid), why);
  sm_routes_.erase(master_link_->guid);
  route_walked_for_ = 0;
  far_walk_due_ = clock_.Now() + kRouteWalkRetry;
  master_link_.reset();
}

void FailoverController::ScheduleGlance() {
  if (!running_ || timing_.link_glance.count() <= 0 || timing_.link_glance >= timing_.poll_interval) return;
  // Counted again from now: after a round, the first glance comes one
  // link_glance after it, never right behind it (the round read the port).
  glance_timer_.expires_after(timing_.link_glance);
  glance_timer_.async_wait([this](boost::system::error_code error) {
    if (!error && running_) GlanceAtMasterLink();
  });
}

void FailoverController::GlanceAtMasterLink() {
  // Only a trusted cable of the master being watched, and never beside a
  // round (it reads the same port) or another glance. Each round's end arms
  // the timer again.
  const bool watched = master_link_ && master_link_->trusted && watch_ && watch_->guid == master_link_->guid &&
                       policy_.state() == policy::SupervisorState::kStandby;
  if (!watched || in_round_ || glance_in_flight_) return;
  glance_in_flight_ = true;
  const LinkPeerPort peer = LinkPeerOf(master_link_->route);
  worker_.Submit(
      [peer](Fabric& fabric) { return fabric.GetPortInfoByRoute(peer.node_route, peer.port); },
      [this](Result<PortInfo> info) {
        glance_in_flight_ = false;
        if (!running_) return;
        if (!info) return;  // the next round reads it, and glances again after it
        if (LinkReadsDown(*info)) {
          PollSoon();
          return;
        }
        ScheduleGlance();
      },
      timing_.round_deadline);
}

std::string FailoverController::MasterLostSignal() const {
  if (!watch_) return "";
  if (watch_->link_down) return "neighbour_port_down";
  return watch_->port_answers == false ? "missed_polls_port_silent" : "missed_polls_port_answers";
}

}  // namespace smsupd
