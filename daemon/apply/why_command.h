// The `why` command of the control socket (read-only): can two end ports
// talk over RDMA, and in which partitions (daemon/pkey/why_decision.h has
// the rule). Per request, at most:
//   - one directed-route walk of the subnet, shared by every request within
//     kWalkMaxAge of it (names resolve against it: host GUIDs, NodeDescriptions,
//     LIDs) -- never one walk per request;
//   - the P_Key tables of the ports the two names stand for (at most
//     kMaxWhyPortsPerName each), read over SMPs at request time, within
//     kReadBudget: a port not read by then is reported unread, never healthy;
//   - a scan of at most kMaxWhyGenerationsScanned stored generations, off
//     the event loop (on a lane of RequestJobs, like plan and validate).
// At most kMaxInFlight requests run at once, and one per uid for members of
// control.group; more are refused, not queued.
#pragma once

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "common/control_arguments.h"
#include "daemon/apply/generation_store.h"
#include "daemon/apply/request_jobs.h"
#include "daemon/apply/running_config.h"
#include "daemon/control/command_router.h"
#include "daemon/fabric/mad_worker.h"
#include "daemon/pkey/why_names.h"

namespace smsupd {

class WhyCommand {
 public:
  using Reply = control::CommandHandler::Reply;
  using Ports = std::shared_ptr<const std::vector<DiscoveredPort>>;

  static constexpr std::chrono::seconds kWalkMaxAge{30};
  static constexpr std::chrono::milliseconds kWalkDeadline{20000};
  static constexpr std::chrono::milliseconds kReadBudget{5000};
  static constexpr int kMaxInFlight = 4;

  // Every reference must outlive the command.
  WhyCommand(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker);
  ~WhyCommand();

  void RegisterCommands(control::CommandRouter& router);

 private:
  // One request in flight.
  struct Request {
    control::WhyArguments args;
    control::Caller caller;
    Reply reply;  // frees the request's slot, then answers
    NamedPorts a, b;
    std::map<Guid, std::string> unread;  // port -> why its table was not read
    std::map<Guid, std::vector<std::uint16_t>> tables;
  };
  using RequestPtr = std::shared_ptr<Request>;

  void Handle(const control::Request& request, const control::Caller& caller, Reply reply);
  // Calls `then` on the loop with the walk's ports (a fresh walk only when
  // the last is older than kWalkMaxAge; concurrent callers share it).
  void WithPorts(std::function<void(Result<Ports>)> then);
  void Resolve(const RequestPtr& request, const Ports& ports);
  void ReadTables(const RequestPtr& request);
  void Decide(const RequestPtr& request);
  void Release(const control::Caller& caller);

  boost::asio::io_context& io_;
  const RunningConfig& running_;
  MadWorker& worker_;

  Ports ports_;
  std::chrono::steady_clock::time_point walked_at_;
  bool walking_ = false;
  std::vector<std::function<void(Result<Ports>)>> waiting_;

  int in_flight_ = 0;
  std::map<uid_t, int> per_uid_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  RequestJobs jobs_;  // last: its destructor waits for the running jobs
};

}  // namespace smsupd
