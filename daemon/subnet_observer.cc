#include "daemon/subnet_observer.h"

#include <algorithm>

namespace smsupd {
namespace {

// A poll answers well within this on a healthy fabric; the SA table may take
// longer in a heavy sweep (UmadFabricOptions::sa).
constexpr std::chrono::milliseconds kPollDeadline{5000};

std::string Describe(const std::optional<SmRecord>& master) {
  if (!master) return "none";
  return FormatGuid(master->info.guid) + " (LID " + std::to_string(master->lid) + ", priority " +
         std::to_string(master->info.priority) + ")";
}

}  // namespace

SubnetObservation ObserveSubnet(Fabric& fabric) {
  SubnetObservation seen;
  seen.valid = true;
  auto port = fabric.LocalPortInfo();
  if (!port) {
    seen.port_error = port.error().message;
    return seen;
  }
  seen.local_port = *port;
  if (port->lid != 0) {
    if (auto sm = fabric.GetSmInfo(port->lid)) seen.local_sm = *sm;
  }
  if (port->sm_lid != 0) {
    if (port->sm_lid == port->lid && seen.local_sm) {
      seen.master = SmRecord{port->lid, *seen.local_sm};
    } else if (auto sm = fabric.GetSmInfo(port->sm_lid)) {
      seen.master = SmRecord{port->sm_lid, *sm};
    }
    if (auto records = fabric.GetSmInfoRecords()) seen.sms = *records;
  }
  // The SA lists the SMs the master has heard of; the local SM's own answer
  // is first-hand, so it is always in the list.
  if (seen.local_sm) {
    bool listed = std::any_of(seen.sms.begin(), seen.sms.end(), [&](const SmRecord& r) {
      return r.info.guid == seen.local_sm->guid;
    });
    if (!listed) seen.sms.push_back({port->lid, *seen.local_sm});
  }
  return seen;
}

std::vector<ObservedChange> CompareObservations(const SubnetObservation& before,
                                                const SubnetObservation& after) {
  std::vector<ObservedChange> changes;
  auto state_of = [](const SubnetObservation& o) {
    return o.local_sm ? std::string(SmStateName(o.local_sm->state)) : std::string("NOTACTIVE");
  };
  std::string old_state = before.valid ? state_of(before) : "NOTACTIVE";
  std::string new_state = state_of(after);
  if (old_state != new_state) {
    changes.push_back({"sm-state-changed", "SM_STATE_CHANGED",
                       "local SM " + old_state + " -> " + new_state,
                       {{"from", old_state}, {"to", new_state}}});
  }
  Guid old_master = before.master ? before.master->info.guid : 0;
  Guid new_master = after.master ? after.master->info.guid : 0;
  if (old_master != new_master) {
    nlohmann::json details = {{"from", old_master ? FormatGuid(old_master) : ""},
                              {"to", new_master ? FormatGuid(new_master) : ""}};
    if (after.master) details["lid"] = after.master->lid;
    changes.push_back({"master-changed", "MASTER_CHANGED",
                       "master " + Describe(before.master) + " -> " + Describe(after.master),
                       details});
  }
  return changes;
}

SubnetObserver::SubnetObserver(boost::asio::io_context& io, MadWorker& worker,
                               std::chrono::milliseconds interval, ChangeSink on_poll)
    : worker_(worker), interval_(interval), on_poll_(std::move(on_poll)), timer_(io) {}

void SubnetObserver::Start() {
  running_ = true;
  Poll();
}

void SubnetObserver::Stop() {
  running_ = false;
  timer_.cancel();
}

void SubnetObserver::PollSoon() {
  if (polling_) {
    poll_again_ = true;
  } else if (running_) {
    timer_.cancel();
    Poll();
  }
}

void SubnetObserver::Poll() {
  polling_ = true;
  worker_.Submit(
      [](Fabric& fabric) -> Result<SubnetObservation> { return ObserveSubnet(fabric); },
      [this](Result<SubnetObservation> seen) {
        polling_ = false;
        if (!running_) return;
        SubnetObservation after;
        if (seen) {
          after = std::move(*seen);
        } else {  // nothing new is known: keep the last picture, say why
          after = latest_;
          after.valid = true;
          after.port_error = seen.error().message;
        }
        auto changes = CompareObservations(latest_, after);
        latest_ = std::move(after);
        if (on_poll_) on_poll_(latest_, changes);
        ScheduleNext(poll_again_ ? std::chrono::milliseconds(0) : interval_);
        poll_again_ = false;
      },
      kPollDeadline);
}

void SubnetObserver::ScheduleNext(std::chrono::milliseconds delay) {
  timer_.expires_after(delay);
  timer_.async_wait([this](boost::system::error_code error) {
    if (!error && running_) Poll();
  });
}

}  // namespace smsupd
