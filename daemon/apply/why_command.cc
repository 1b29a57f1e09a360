#include "daemon/apply/why_command.h"

#include <boost/asio/post.hpp>

#include "daemon/pkey/why_names.h"

namespace smsupd {

using control::MakeResponse;
using control::ResultCode;

namespace {

using TableReads = std::vector<std::pair<Guid, Result<std::vector<std::uint16_t>>>>;

// The local port is read by directed route (LID 0); any other port needs its LID.
Result<std::vector<std::uint16_t>> ReadTable(Fabric& fabric, const DiscoveredPort& port, Guid local) {
  if (port.port_guid == local) return fabric.GetPKeyTable(0, port.port_num);
  if (port.lid == 0) return Error{"no LID assigned"};
  return fabric.GetPKeyTable(port.lid, port.port_num);
}

}  // namespace

WhyCommand::WhyCommand(boost::asio::io_context& io, const RunningConfig& running, MadWorker& worker)
    : io_(io), running_(running), worker_(worker) {}

WhyCommand::~WhyCommand() { *alive_ = false; }

void WhyCommand::RegisterCommands(control::CommandRouter& router) {
  router.Register("why", [this](const control::Request& request, const control::Caller& caller, Reply reply) {
    Handle(request, caller, std::move(reply));
  });
}

void WhyCommand::Handle(const control::Request& request, const control::Caller& caller, Reply reply) {
  auto args = control::ParseWhyArguments(request.arguments);
  if (!args) return reply(MakeResponse(ResultCode::kBadRequest, args.error().message));
  const bool member = caller.access == control::AccessLevel::kReadOnly;
  if (in_flight_ >= kMaxInFlight || (member && per_uid_.count(caller.uid) > 0))
    return reply(MakeResponse(ResultCode::kError,
                              "refused: too many `why` requests in progress; try again when they are answered"));
  ++in_flight_;
  ++per_uid_[caller.uid];
  auto state = std::make_shared<Request>();
  state->args = std::move(*args);
  state->caller = caller;
  // Every answer frees the request's slot on the loop, whichever thread gives
  // it, and before the caller reads it: asking again at once finds it free.
  state->reply = [this, alive = alive_, caller, reply = std::move(reply)](control::Response response) {
    boost::asio::post(io_, [this, alive, caller, reply, response = std::move(response)]() mutable {
      if (*alive) Release(caller);
      reply(std::move(response));
    });
  };
  WithPorts([this, state](Result<Ports> ports) {
    if (!ports)
      return state->reply(MakeResponse(ResultCode::kError, "the subnet walk failed: " + ports.error().message));
    Resolve(state, *ports);
  });
}

void WhyCommand::Release(const control::Caller& caller) {
  --in_flight_;
  if (--per_uid_[caller.uid] <= 0) per_uid_.erase(caller.uid);
}

void WhyCommand::WithPorts(std::function<void(Result<Ports>)> then) {
  if (ports_ && std::chrono::steady_clock::now() - walked_at_ < kWalkMaxAge) return then(ports_);
  waiting_.push_back(std::move(then));
  if (walking_) return;
  walking_ = true;
  worker_.Submit([](Fabric& fabric) { return fabric.DiscoverPorts(); },
                 [this, alive = alive_](Result<std::vector<DiscoveredPort>> walked) {
                   if (!*alive) return;
                   walking_ = false;
                   Result<Ports> result = Error{"no walk"};
                   if (walked) {
                     ports_ = std::make_shared<const std::vector<DiscoveredPort>>(std::move(*walked));
                     walked_at_ = std::chrono::steady_clock::now();
                     result = ports_;
                   } else {
                     result = walked.error();
                   }
                   for (auto& waiter : std::exchange(waiting_, {})) waiter(result);
                 },
                 kWalkDeadline);
}

void WhyCommand::Resolve(const RequestPtr& request, const Ports& ports) {
  const Inventory& hosts = running_.config.hosts;
  for (auto [name, side] : {std::pair{&request->args.a, &request->a}, std::pair{&request->args.b, &request->b}}) {
    auto resolved = ResolveWhyName(*name, hosts, *ports);
    if (auto* unknown = std::get_if<UnknownName>(&resolved)) {
      std::string text = "unknown name '" + unknown->name +
                         "': not an inventory host, a NodeDescription, a port GUID or a LID of the fabric";
      std::string list;
      for (const std::string& s : unknown->suggestions) list += (list.empty() ? "" : ", ") + s;
      if (!list.empty()) text += "; closest: " + list;
      return request->reply(MakeResponse(
          ResultCode::kError, text,
          {{"error_code", "unknown-name"}, {"name", unknown->name}, {"suggestions", unknown->suggestions}}));
    }
    *side = std::get<NamedPorts>(std::move(resolved));
  }
  if (request->a.ports.empty() || request->b.ports.empty()) return Decide(request);  // not in the fabric
  ReadTables(request);
}

void WhyCommand::ReadTables(const RequestPtr& request) {
  std::vector<DiscoveredPort> todo = request->a.ports;
  for (const DiscoveredPort& port : request->b.ports)
    if (std::none_of(todo.begin(), todo.end(), [&](const DiscoveredPort& p) { return p.port_guid == port.port_guid; }))
      todo.push_back(port);
  auto read = [todo, local = running_.port_guid](Fabric& fabric) -> Result<TableReads> {
    const auto deadline = std::chrono::steady_clock::now() + kReadBudget;
    TableReads reads;
    for (const DiscoveredPort& port : todo) {
      if (std::chrono::steady_clock::now() >= deadline)
        reads.emplace_back(port.port_guid, Error{"timed out: not read within " +
                                                 std::to_string(kReadBudget.count()) + " ms"});
      else
        reads.emplace_back(port.port_guid, ReadTable(fabric, port, local));
    }
    return reads;
  };
  worker_.Submit(std::move(read),
                 [this, alive = alive_, request, todo](Result<TableReads> reads) {
                   if (!*alive) return;
                   if (!reads) {
                     for (const DiscoveredPort& port : todo)
                       request->unread[port.port_guid] = "timed out: " + reads.error().message;
                   } else {
                     for (auto& [guid, table] : *reads) {
                       if (table) request->tables[guid] = std::move(*table);
                       else request->unread[guid] = table.error().message;
                     }
                   }
                   Decide(request);
                 },
                 kReadBudget + std::chrono::milliseconds(3000));
}

}  // namespace smsupd
