#include "tests/testbed/fabric_probe.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace smsupd::testbed {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

// umad2sim connects to ibsim on the first umad call; 10 s covers a loaded machine.
constexpr milliseconds kStartDeadline(10000);
constexpr milliseconds kQueryDeadline(5000);

Guid GuidField(const json& j, const char* key) { return ParseGuid(j.at(key).get<std::string>()).value_or(0); }

NodeInfoView NodeFromJson(const json& j) {
  NodeInfoView node;
  node.type = j.at("type");
  node.ports = j.at("ports");
  node.node_guid = GuidField(j, "node_guid");
  node.port_guid = GuidField(j, "port_guid");
  node.local_port = j.at("local_port");
  node.partition_cap = j.at("partition_cap");
  node.description = j.at("description");
  return node;
}

PortInfoView PortFromJson(const json& j) {
  PortInfoView port;
  port.lid = j.at("lid");
  port.sm_lid = j.at("sm_lid");
  port.state = j.at("state");
  port.phys_state = j.at("phys_state");
  port.capability_mask = j.at("capability_mask");
  return port;
}

std::string Target(uint16_t lid) { return std::to_string(lid); }

}  // namespace

const char* SmStateText(int state) {
  switch (state) {
    case 0: return "NOTACTIVE";
    case 1: return "DISCOVERING";
    case 2: return "STANDBY";
    case 3: return "MASTER";
    default: return "UNKNOWN";
  }
}

PKeyTable ToPKeyTable(const std::vector<uint16_t>& raw_entries) {
  PKeyTable table;
  for (uint16_t raw : raw_entries) {
    bool& full = table[raw & 0x7fff];
    full = full || (raw & 0x8000) != 0;
  }
  return table;
}

Status FabricProbe::EnsureStarted() {
  if (child_ && child_->Running()) return Status::Ok();
  child_.reset();
  buffer_.clear();
  Result<std::unique_ptr<ChildProcess>> child = launcher_();
  if (!child) return Error{"cannot start testbed-probe: " + child.error().message};
  child_ = std::move(*child);
  Result<std::string> line = ReadLine(SteadyClock::now() + kStartDeadline);
  if (!line) {
    child_.reset();
    return Error{"testbed-probe did not get ready: " + line.error().message};
  }
  json ready = json::parse(*line, nullptr, false);
  if (ready.is_discarded() || !ready.value("ready", false)) {
    child_.reset();
    return Error{"testbed-probe failed to start: " + *line};
  }
  return Status::Ok();
}

Result<std::string> FabricProbe::ReadLine(SteadyClock::time_point deadline) {
  for (;;) {
    if (size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
    if (left.count() <= 0) return Error{"no reply before the deadline"};
    pollfd fd{child_->stdout_fd(), POLLIN, 0};
    int r = poll(&fd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Error{std::string("poll: ") + std::strerror(errno)};
    if (r == 0) continue;
    char chunk[65536];
    ssize_t n = read(child_->stdout_fd(), chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error{"testbed-probe exited (see " + child_->output_path() + ")"};
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

Result<json> FabricProbe::Call(const std::string& request, milliseconds deadline) {
  if (Status s = EnsureStarted(); !s) return Error{s.message()};
  const long id = next_id_++;
  const SteadyClock::time_point end = SteadyClock::now() + deadline;
  if (Status s = child_->WriteStdin(std::to_string(id) + " " + request + "\n"); !s) {
    child_.reset();
    return Error{s.message()};
  }
  for (;;) {
    Result<std::string> line = ReadLine(end);
    if (!line) {
      child_.reset();  // a stuck MAD: start afresh next time
      return Error{"'" + request + "': " + line.error().message};
    }
    json reply = json::parse(*line, nullptr, false);
    if (reply.is_discarded()) return Error{"'" + request + "': unreadable reply " + *line};
    if (reply.value("id", 0L) != id) continue;  // a late reply to an abandoned request
    if (!reply.value("ok", false)) return Error{"'" + request + "': " + reply.value("error", std::string("failed"))};
    return reply;
  }
}

Result<SmInfoView> FabricProbe::SmInfo(uint16_t lid) {
  Result<json> r = Call("sminfo " + Target(lid), kQueryDeadline);
  if (!r) return r.error();
  SmInfoView sm;
  sm.guid = GuidField(*r, "guid");
  sm.sm_key = GuidField(*r, "sm_key");
  sm.act_count = r->at("act_count");
  sm.priority = r->at("priority");
  sm.state = r->at("state");
  return sm;
}

Result<PortInfoView> FabricProbe::PortInfo(uint16_t lid, int port) {
  Result<json> r = Call("portinfo " + Target(lid) + " " + std::to_string(port), kQueryDeadline);
  if (!r) return r.error();
  return PortFromJson(*r);
}

Result<PortInfoView> FabricProbe::LocalPortInfo() {
  Result<json> node = Call("nodeinfo dr:0", kQueryDeadline);
  if (!node) return node.error();
  Result<json> r = Call("portinfo dr:0 " + std::to_string(node->at("local_port").get<int>()), kQueryDeadline);
  if (!r) return r.error();
  return PortFromJson(*r);
}

Result<NodeInfoView> FabricProbe::NodeInfo(uint16_t lid) {
  Result<json> r = Call("nodeinfo " + Target(lid), kQueryDeadline);
  if (!r) return r.error();
  return NodeFromJson(*r);
}

Result<std::vector<uint16_t>> FabricProbe::RawPKeys(uint16_t lid, int port) {
  Result<json> r = Call("pkeys " + Target(lid) + " " + std::to_string(port), kQueryDeadline);
  if (!r) return r.error();
  return r->at("pkeys").get<std::vector<uint16_t>>();
}

Result<PKeyTable> FabricProbe::PKeys(uint16_t lid, int port) {
  Result<std::vector<uint16_t>> raw = RawPKeys(lid, port);
  if (!raw) return raw.error();
  return ToPKeyTable(*raw);
}

}  // namespace smsupd::testbed
