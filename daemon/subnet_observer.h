// What the fabric says about the SMs, polled through the MAD thread and kept
// as a snapshot so `smctl status` answers without sending a MAD.
//
// One poll (ObserveSubnet, on the MAD thread): PortInfo of the local port
// (LID, SM LID), SMInfo of the local SM (as OpenSM itself reports it), SMInfo
// of the master named by the local port's SM LID, and the SA's SMInfoRecords
// (every SM the master knows). Changes between two polls become events
// (CompareObservations); both are pure and unit-tested with a fake Fabric.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/fabric/fabric.h"
#include "daemon/fabric/mad_worker.h"

namespace smsupd {

struct SubnetObservation {
  bool valid = false;  // false until the first poll answered
  std::string port_error;  // the local port could not be read
  PortInfo local_port;
  std::optional<SmInfo> local_sm;     // absent: OpenSM does not answer (yet)
  std::optional<SmRecord> master;     // absent: the local port knows no master
  std::vector<SmRecord> sms;          // from the SA; empty without a master
};

// Blocking; call on the MAD thread. Never fails as a whole: what cannot be
// read is left absent.
SubnetObservation ObserveSubnet(Fabric& fabric);

// A change worth an event: `kind` is the event kind (sm-state-changed,
// master-changed), `log_id` the stable log ID, `details` for the event.
struct ObservedChange {
  std::string kind;
  std::string log_id;
  std::string text;
  nlohmann::json details;
};

std::vector<ObservedChange> CompareObservations(const SubnetObservation& before,
                                                const SubnetObservation& after);

class SubnetObserver {
 public:
  using ChangeSink = std::function<void(const SubnetObservation& latest,
                                        const std::vector<ObservedChange>& changes)>;

  SubnetObserver(boost::asio::io_context& io, MadWorker& worker, std::chrono::milliseconds interval,
                 ChangeSink on_poll);

  // Polls at once, then every interval (measured from the end of a poll, so
  // a slow fabric never piles up requests).
  void Start();
  void Stop();
  // Polls again as soon as the current poll ends (e.g. after a reload).
  void PollSoon();

  const SubnetObservation& latest() const { return latest_; }

 private:
  void Poll();
  void ScheduleNext(std::chrono::milliseconds delay);

  MadWorker& worker_;
  std::chrono::milliseconds interval_;
  ChangeSink on_poll_;
  boost::asio::steady_timer timer_;
  SubnetObservation latest_;
  bool running_ = false;
  bool polling_ = false;
  bool poll_again_ = false;
};

}  // namespace smsupd
