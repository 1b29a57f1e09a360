#include "daemon/cabling/cabling_command.h"

#include <spdlog/spdlog.h>

#include <boost/asio/post.hpp>

#include "common/control_arguments.h"
#include "common/problems.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

CablingCommand::CablingCommand(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker,
                               Reporter& reporter, std::chrono::milliseconds check_interval)
    : io_(io), running_(running), worker_(worker), reporter_(reporter), check_interval_(check_interval),
      timer_(io) {}

CablingCommand::~CablingCommand() { *alive_ = false; }

void CablingCommand::RegisterCommands(control::CommandRouter& router) {
  router.Register("cabling", [this](const control::Request& request, const control::Caller& caller, Reply reply) {
    Handle(request, caller, std::move(reply));
  });
}

void CablingCommand::Start() { ArmTimer(); }

void CablingCommand::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void CablingCommand::ArmTimer() {
  timer_.expires_after(check_interval_);
  timer_.async_wait([this, alive = alive_](const boost::system::error_code& error) {
    if (error || !*alive || stopped_) return;
    if (!running_.config.cabling.declared) {
      reporter_.ClearProblem(kProblemMiscabled);
      last_differences_.clear();
      return ArmTimer();
    }
    // The comparison itself happens in WithTopology, as for every walk.
    WithTopology([this](Result<Topology> topology) {
      if (!topology) spdlog::warn("CABLING_CHECK_FAILED the subnet walk failed: {}", topology.error().message);
      if (!stopped_) ArmTimer();
    });
  });
}

void CablingCommand::Handle(const control::Request& request, const control::Caller& caller, Reply reply) {
  auto args = control::ParseCablingArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  const bool member = caller.access == control::AccessLevel::kReadOnly;
  if (in_flight_ >= kMaxInFlight || (member && per_uid_.count(caller.uid) > 0))
    return reply(MakeResponse(ResultCode::kError,
                              "refused: too many `cabling` requests in progress; try again when they are answered"));
  ++in_flight_;
  ++per_uid_[caller.uid];
  // Every answer frees the request's slot on the loop, before the caller
  // reads it: a client that asks again as soon as it has its answer finds
  // its slot free.
  Reply answer = [this, alive = alive_, caller, reply = std::move(reply)](control::Response response) {
    boost::asio::post(io_, [this, alive, caller, reply, response = std::move(response)]() mutable {
      if (*alive) Release(caller);
      reply(std::move(response));
    });
  };
  WithTopology([this, export_csv = args->export_csv, answer](Result<Topology> topology) {
    if (!topology)
      return answer(MakeResponse(ResultCode::kError, "the subnet walk failed: " + topology.error().message));
    Answer(export_csv, *topology, answer);
  });
}

void CablingCommand::Release(const control::Caller& caller) {
  --in_flight_;
  if (--per_uid_[caller.uid] <= 0) per_uid_.erase(caller.uid);
}

void CablingCommand::WithTopology(std::function<void(Result<Topology>)> then) {
  waiting_.push_back(std::move(then));
  if (walking_) return;
  walking_ = true;
  worker_.Submit([](Fabric& fabric) { return fabric.DiscoverTopology(); },
                 [this, alive = alive_](Result<FabricTopology> walked) {
                   if (!*alive) return;
                   walking_ = false;
                   Result<Topology> result = Error{"no walk"};
                   if (walked) {
                     auto topology = std::make_shared<const FabricTopology>(std::move(*walked));
                     if (running_.config.cabling.declared) Observe(CompareWithDeclared(running_.config, *topology));
                     result = topology;
                   } else {
                     result = walked.error();
                   }
                   for (auto& waiter : std::exchange(waiting_, {})) waiter(result);
                 },
                 kWalkDeadline);
}

void CablingCommand::Answer(bool export_csv, const Topology& topology, const Reply& reply) {
  if (export_csv) {
    std::size_t links = 0;
    std::string csv = ExportCsv(running_.config, *topology, &links);
    // What the cabling reader would refuse is not offered as a start.
    if (links > config::kMaxCables)
      return reply(MakeResponse(ResultCode::kError, "the fabric has " + std::to_string(links) +
                                                        " links; a cabling file holds at most " +
                                                        std::to_string(config::kMaxCables)));
    std::string text = std::to_string(links) + " links exported";
    if (topology->unread_total > 0)
      text += "; " + std::to_string(topology->unread_total) + " ports were not read: their cables are not in it";
    return reply(MakeResponse(ResultCode::kSuccess, text,
                              {{"csv", std::move(csv)},
                               {"links", links},
                               {"unread", topology->unread},
                               {"unread_total", topology->unread_total}}));
  }
  CablingReport report = CompareWithDeclared(running_.config, *topology);
  reply(MakeResponse(ResultCode::kSuccess, ReportText(report), ToJson(report)));
}

void CablingCommand::Observe(const CablingReport& report) {
  // "not read" is what the walk could not see, not a cabling fault: it is
  // in the reply and in the walk's unread list, not in the problem.
  CablingReport faults = report;
  std::erase_if(faults.differences, [](const ReportedDifference& d) { return d.kind == "not-read"; });
  std::set<std::string> now;
  for (const ReportedDifference& d : faults.differences) now.insert(d.text);
  if (faults.differences.empty()) reporter_.ClearProblem(kProblemMiscabled);
  else reporter_.RaiseProblem(kProblemMiscabled, ProblemSummary(faults));
  if (now == last_differences_) return;
  last_differences_ = std::move(now);
  reporter_.Announce("CABLING_DIFFERENCES", faults.differences.empty()
                                                ? "cabling matches: " + std::to_string(report.cables) + " cables"
                                                : ProblemSummary(faults));
}

}  // namespace smsupd
