#include "daemon/ports/ports_monitor.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

#include "common/problems.h"
#include "config/edit_distance.h"
#include "daemon/apply/request_jobs.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;
using nlohmann::json;

struct PortsMonitor::Readout {
  PortsReadout data;
  std::vector<std::pair<PortKey, CounterTarget>> targets;
  SteadyTime started{};
};

namespace {

// The problem ID of each kind (common/problems.h).
const char* ProblemId(PortProblemKind kind) {
  switch (kind) {
    case PortProblemKind::kPortDown: return kProblemPortDown;
    case PortProblemKind::kWrongSm: return kProblemPortWrongSm;
    case PortProblemKind::kNotActive: return kProblemPortNotActive;
    case PortProblemKind::kErrors: return kProblemPortErrors;
    case PortProblemKind::kBelowRate: return kProblemLinkBelowRate;
  }
  return kProblemPortDown;
}

constexpr PortProblemKind kKinds[] = {PortProblemKind::kPortDown, PortProblemKind::kWrongSm,
                                      PortProblemKind::kNotActive, PortProblemKind::kErrors,
                                      PortProblemKind::kBelowRate};

// Events and journal lines name at most this many ports at once.
constexpr std::size_t kMaxAnnounced = 20;

struct PortsArguments {
  bool problems = false;
  std::vector<std::string> names;
};

Result<PortsArguments> ParseArguments(const json& arguments) {
  PortsArguments args;
  if (!arguments.is_object()) return Error{"arguments: expected an object"};
  for (const auto& [key, value] : arguments.items()) {
    if (key == "problems") {
      if (!value.is_boolean()) return Error{"arguments.problems: expected true or false"};
      args.problems = value.get<bool>();
    } else if (key == "names") {
      if (!value.is_array()) return Error{"arguments.names: expected a list of names"};
      if (value.size() > PortsMonitor::kMaxNames)
        return Error{"arguments.names: " + std::to_string(value.size()) + " names; the limit is " +
                     std::to_string(PortsMonitor::kMaxNames)};
      for (const json& name : value) {
        if (!name.is_string() || name.get<std::string>().empty() || name.get<std::string>().size() > 256)
          return Error{"arguments.names: each name is a string of 1..256 bytes"};
        args.names.push_back(name.get<std::string>());
      }
    } else {
      return Error{"arguments: unknown key '" + key + "'"};
    }
  }
  return args;
}

std::string JsonString(const json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool SameGuid(const std::string& text, const json& field) {
  if (!field.is_string()) return false;
  auto a = ParseGuid(text), b = ParseGuid(field.get<std::string>());
  return a && b && *a == *b;
}

// The rows a name stands for: a port's or node's name, a NodeDescription,
// a port or node GUID, a LID.
std::vector<PortKey> Match(const std::string& name, const json& ports) {
  std::vector<PortKey> keys;
  const bool number = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
  for (const json& row : ports) {
    const bool hit = JsonString(row, "name") == name || JsonString(row, "node") == name ||
                     (!JsonString(row, "node_description").empty() && JsonString(row, "node_description") == name) ||
                     SameGuid(name, row.value("node_guid", json())) || SameGuid(name, row.value("port_guid", json())) ||
                     (number && name.size() <= 5 && row.value("lid", 0) == std::stoi(name) && row.value("lid", 0) != 0);
    if (!hit) continue;
    if (auto guid = ParseGuid(JsonString(row, "node_guid"))) keys.emplace_back(*guid, row.value("port", 0));
  }
  return keys;
}

std::vector<std::string> Closest(const std::string& name, const json& ports) {
  std::set<std::string> candidates;  // a switch's name stands on each of its ports
  for (const json& row : ports)
    for (const char* key : {"name", "node"}) candidates.insert(JsonString(row, key));
  return config::ClosestNames(name, std::vector<std::string>(candidates.begin(), candidates.end()), 3);
}

std::string ReadoutText(const json& reply, bool problems_only) {
  std::string text;
  const auto problems = reply.value("problems_total", 0);
  if (problems == 0) text = "no port problems";
  else text = std::to_string(problems) + " port problem" + (problems == 1 ? "" : "s");
  text += " (" + std::to_string(reply.value("ports_total", 0)) + " ports read";
  if (reply.value("unread_total", 0) > 0) text += "; " + std::to_string(reply.value("unread_total", 0)) + " not read";
  text += ")";
  (void)problems_only;
  return text;
}

// The `ports` reply to `args` from `report`.
control::Response BuildReply(const PortsArguments& args, const PortsReport& report) {
  std::vector<PortKey> only;
  for (const std::string& name : args.names) {
    std::vector<PortKey> keys = Match(name, report.ports);
    if (keys.empty()) {
      std::vector<std::string> closest = Closest(name, report.ports);
      std::string text = "unknown name '" + name + "': not a port, node, NodeDescription, GUID or LID of the fabric";
      std::string list;
      for (const std::string& s : closest) list += (list.empty() ? "" : ", ") + s;
      if (!list.empty()) text += "; closest: " + list;
      return MakeResponse(ResultCode::kError, text,
                          {{"error_code", "unknown-name"}, {"name", name}, {"suggestions", closest}});
    }
    only.insert(only.end(), keys.begin(), keys.end());
  }
  json data = PortsReply(report, args.names.empty() ? nullptr : &only, args.problems);
  std::string text = ReadoutText(data, args.problems);
  return MakeResponse(ResultCode::kSuccess, text, std::move(data));
}

}  // namespace

PortsMonitor::PortsMonitor(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker,
                           Reporter& reporter, SummarySink summary)
    : io_(io), running_(running), worker_(worker), reporter_(reporter), summary_(std::move(summary)), period_(io),
      pause_(io) {
  // The evaluation runs only when no other thread of the machine wants the
  // CPU (OpenSM's sweep, the simulator, the failover watch).
  boost::asio::post(evaluator_, [] {
    if (std::string why = MoveThisThreadToIdle(); !why.empty())
      spdlog::warn("PORTS_EVALUATOR_PRIORITY the ports evaluation runs at the daemon's priority: {}", why);
  });
  offload_ = [this](std::function<void()> job) { boost::asio::post(evaluator_, std::move(job)); };
}

PortsMonitor::~PortsMonitor() {
  *alive_ = false;
  evaluator_.stop();  // a waiting evaluation is dropped, a running one ends
  evaluator_.join();
}

void PortsMonitor::RegisterCommands(control::CommandRouter& router) {
  router.Register("ports", [this](const control::Request& request, const control::Caller& caller, Reply reply) {
    Handle(request, caller, std::move(reply));
  });
}

void PortsMonitor::Start(std::chrono::steady_clock::duration first) { Schedule(first); }

void PortsMonitor::Schedule(std::chrono::steady_clock::duration after) {
  period_.expires_after(after);
  period_.async_wait([this, alive = alive_](const boost::system::error_code& ec) {
    if (ec || !*alive) return;
    if (gate_ && !gate_()) {
      for (PortProblemKind kind : kKinds) reporter_.ClearProblem(ProblemId(kind));
      return Schedule(kInterval);
    }
    if (hold_ && hold_()) return Schedule(kHoldRetry);
    // Like the failover watch's walks: a walk holds the MAD thread, so on a
    // fabric whose walk is long the period grows (50 x the walk).
    Request(Waiter{[this](const std::shared_ptr<const PortsReport>&, const std::string&) {
      Schedule(std::max<std::chrono::steady_clock::duration>(kInterval, 50 * last_walk_));
    }});
  });
}

void PortsMonitor::Handle(const control::Request& request, const control::Caller&, Reply reply) {
  auto args = ParseArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  if (current_.size() + next_.size() >= kMaxWaiting)
    return reply(MakeResponse(ResultCode::kError,
                              "refused: too many `ports` requests waiting for a read-out; try again when they are answered"));
  Request(Waiter{[this, args = *args, reply = std::move(reply)](std::shared_ptr<const PortsReport> report,
                                                               const std::string& error) {
    if (report == nullptr) return reply(MakeResponse(ResultCode::kError, "the ports read-out failed: " + error));
    // Matching names against every row, copying the rows and serializing
    // them cost ~2 s of CPU on 10,000 HCAs (~28,000 rows, ~20 MB): done on
    // the evaluator, so the failover watch and the control socket never
    // wait for it. The reply may be called from any thread.
    offload_([args, reply, report = std::move(report)] {
      try {
        reply(BuildReply(args, *report));
      } catch (const std::exception& error) {
        reply(MakeResponse(ResultCode::kError, std::string("internal error: ") + error.what()));
      }
    });
  }});
}

void PortsMonitor::Request(Waiter waiter) {
  if (reading_) {
    next_.push_back(std::move(waiter));
    return;
  }
  current_.push_back(std::move(waiter));
  Begin();
}

void PortsMonitor::Begin() {
  reading_ = true;
  auto readout = std::make_shared<Readout>();
  readout->started = std::chrono::steady_clock::now();
  readout->data.local_port_guid = running_.port_guid;
  worker_.Submit([](Fabric& fabric) { return fabric.DiscoverTopology(); },
                 [this, alive = alive_, readout](Result<FabricTopology> topology) {
                   if (!*alive) return;
                   last_walk_ = std::chrono::steady_clock::now() - readout->started;
                   if (!topology) return Fail("the subnet walk failed: " + topology.error().message);
                   readout->data.topology = std::move(*topology);
                   readout->targets = CounterTargets(readout->data.topology);
                   ReadChunk(readout, 0);
                 },
                 kWalkDeadline);
}

void PortsMonitor::ReadChunk(const std::shared_ptr<Readout>& readout, std::size_t from) {
  if (from >= readout->targets.size()) return Finish(readout);
  if (local_port_down_ && local_port_down_()) {
    // Dropped, not evaluated: what was read is no longer the fabric's state
    // from here, and evaluating tens of thousands of ports costs seconds of
    // CPU just when the other SM node takes over.
    return Fail("this node's port went Down during the read-out (" + std::to_string(from) + " of " +
                std::to_string(readout->targets.size()) + " ports' counters read); the master reads the ports");
  }
  const std::size_t to = std::min(readout->targets.size(), from + kCounterChunk);
  std::vector<CounterTarget> chunk;
  for (std::size_t i = from; i < to; ++i) chunk.push_back(readout->targets[i].second);
  using Reads = std::vector<Result<PortCounters>>;
  // Each MAD at most 2 x 150 ms, the chunk a little more than that in total.
  const auto deadline = std::chrono::milliseconds(2000 + 20 * static_cast<long>(chunk.size()));
  worker_.Submit([chunk](Fabric& fabric) -> Result<Reads> { return fabric.ReadPortCounters(chunk); },
                 [this, alive = alive_, readout, from, to](Result<Reads> reads) {
                   if (!*alive) return;
                   for (std::size_t i = from; i < to; ++i) {
                     const PortKey& key = readout->targets[i].first;
                     if (!reads) readout->data.counters.emplace(key, Error{"timed out: " + reads.error().message});
                     else if (i - from < reads->size()) readout->data.counters.emplace(key, std::move((*reads)[i - from]));
                     else readout->data.counters.emplace(key, Error{"no answer"});
                   }
                   readout->data.perf_mads += static_cast<int>(to - from);
                   if (!reads) {
                     // The MAD thread missed a chunk's deadline: the rest is
                     // reported unread rather than waited for chunk by chunk.
                     for (std::size_t i = to; i < readout->targets.size(); ++i)
                       readout->data.counters.emplace(readout->targets[i].first,
                                                      Error{"not read: an earlier chunk timed out"});
                     return Finish(readout);
                   }
                   pause_.expires_after(kChunkPause);
                   pause_.async_wait([this, alive, readout, to](const boost::system::error_code& ec) {
                     if (ec || !*alive) return;
                     ReadChunk(readout, to);
                   });
                 },
                 deadline);
}

void PortsMonitor::Finish(const std::shared_ptr<Readout>& readout) {
  readout->data.at = std::chrono::steady_clock::now();
  readout->data.took =
      std::chrono::duration_cast<std::chrono::milliseconds>(readout->data.at - readout->started);
  if (nodes_) {
    std::map<Guid, Guid> node_of_port;
    for (const DiscoveredPort& port : readout->data.topology.end_ports) node_of_port[port.port_guid] = port.node_guid;
    nodes_(node_of_port);
  }
  // The names from the config of now; the report on the evaluator, back
  // here for the reporter and the waiters. reading_ stays set meanwhile:
  // one evaluation at a time uses memory_.
  auto names = std::make_shared<const PortNames>(running_.config, readout->data.topology);
  auto work = std::make_shared<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>(
      io_.get_executor());
  // The destructor joins the evaluator before memory_ goes.
  offload_([this, alive = alive_, readout, names, work] {
    auto report = std::make_shared<const PortsReport>(EvaluatePorts(readout->data, *names, memory_));
    boost::asio::post(io_, [this, alive, readout, report, work] {
      work->reset();
      if (*alive) Evaluated(readout, report);
    });
  });
}

void PortsMonitor::Evaluated(const std::shared_ptr<Readout>& readout,
                             const std::shared_ptr<const PortsReport>& report) {
  Publish(*report, readout->data);
  reading_ = false;
  for (Waiter& waiter : std::exchange(current_, {})) waiter.done(report, "");
  if (!next_.empty()) {
    current_ = std::exchange(next_, {});
    Begin();
  }
}

void PortsMonitor::Fail(const std::string& error) {
  spdlog::warn("PORTS_READ_FAILED {}", error);
  reading_ = false;
  for (Waiter& waiter : std::exchange(current_, {})) waiter.done(nullptr, error);
  if (!next_.empty()) {
    current_ = std::exchange(next_, {});
    Begin();
  }
}

// Health problems by kind, and one event per port that newly has a problem
// of a kind (and one when it no longer has).
void PortsMonitor::Publish(const PortsReport& report, const PortsReadout& readout) {
  Summary summary;
  summary.ports = static_cast<int>(report.ports.size());
  summary.unread = report.unread_total;
  summary.seconds = std::chrono::duration<double>(readout.took).count();
  summary.mads = readout.topology.smps + readout.perf_mads;
  std::set<std::pair<std::string, std::string>> now;
  for (PortProblemKind kind : kKinds) {
    std::vector<const PortProblem*> of_kind;
    for (const PortProblem& problem : report.problems)
      if (problem.kind == kind) of_kind.push_back(&problem);
    summary.problems[PortProblemName(kind)] = static_cast<int>(of_kind.size());
    if (of_kind.empty()) {
      reporter_.ClearProblem(ProblemId(kind));
      continue;
    }
    std::string text = of_kind.front()->text;
    if (of_kind.size() > 1) text += " (and " + std::to_string(of_kind.size() - 1) + " more: smctl ports --problems)";
    reporter_.RaiseProblem(ProblemId(kind), text);
    std::size_t announced = 0;
    for (const PortProblem* problem : of_kind) {
      auto key = std::make_pair(std::string(PortProblemName(kind)), problem->port);
      now.insert(key);
      if (announced_.count(key) || announced >= kMaxAnnounced) continue;
      ++announced;
      reporter_.AddEvent("port-problem", {{"kind", PortProblemName(kind)}, {"port", problem->port},
                                          {"node_guid", FormatGuid(problem->node_guid)},
                                          {"port_num", problem->port_num}, {"text", problem->text}});
      spdlog::warn("PORT_PROBLEM {}: {}", PortProblemName(kind), problem->text);
    }
  }
  for (const auto& key : announced_) {
    if (now.count(key)) continue;
    reporter_.AddEvent("port-problem-cleared", {{"kind", key.first}, {"port", key.second}});
    spdlog::info("PORT_PROBLEM_CLEARED {}: {}", key.first, key.second);
  }
  announced_ = std::move(now);
  if (summary_) summary_(summary);
}

}  // namespace smsupd
