#include "daemon/hooks/hook_job.h"

namespace smsupd {
namespace {

std::string Text(const nlohmann::json& details, const char* key) {
  auto found = details.find(key);
  if (found == details.end() || found->is_null()) return "";
  return found->is_string() ? found->get<std::string>()
                            : found->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Guid GuidOf(const std::string& text) {
  auto guid = ParseGuid(text);
  return guid ? *guid : 0;
}

}  // namespace

Guid PeerOf(const control::EventWire& event, const control::StatusWire& status, Guid local) {
  if (event.kind == control::kEventMasterChanged) {
    for (const char* key : {"to", "from"}) {
      Guid guid = GuidOf(Text(event.details, key));
      if (guid != 0 && guid != local) return guid;
    }
  }
  if (status.master && status.master->guid != local) return status.master->guid;
  for (const auto& sm : status.sms)
    if (sm.state == "STANDBY" && sm.guid != local) return sm.guid;
  return 0;
}

HookJob MakeHookJob(const control::EventWire& event, const control::StatusWire& status, Guid local,
                    const std::string& directory, std::chrono::milliseconds timeout) {
  HookJob job;
  job.event = event.kind;
  job.directory = directory;
  job.timeout = timeout;
  const bool state_change = event.kind == control::kEventSmStateChanged;
  const bool master_change = event.kind == control::kEventMasterChanged;
  const std::string generation = event.details.contains("generation") && !event.details["generation"].is_null()
                                     ? Text(event.details, "generation")
                                     : std::to_string(status.config.generation);
  const Guid peer = PeerOf(event, status, local);
  auto& env = job.environment;
  env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
         "SMSUPD_EVENT=" + event.kind,
         "SMSUPD_SEQ=" + std::to_string(event.seq),
         "SMSUPD_TIME=" + event.time,
         "SMSUPD_NODE=" + status.node,
         "SMSUPD_PORT_GUID=" + FormatGuid(local),
         "SMSUPD_ROLE=" + (status.failover ? status.failover->role : std::string()),
         "SMSUPD_STATE=" + status.local_sm.state,
         "SMSUPD_OLD_STATE=" + (state_change ? Text(event.details, "from") : std::string()),
         "SMSUPD_NEW_STATE=" + (state_change ? Text(event.details, "to") : std::string()),
         "SMSUPD_MASTER_GUID=" + (status.master ? FormatGuid(status.master->guid) : std::string()),
         "SMSUPD_OLD_MASTER_GUID=" + (master_change ? Text(event.details, "from") : std::string()),
         "SMSUPD_NEW_MASTER_GUID=" + (master_change ? Text(event.details, "to") : std::string()),
         "SMSUPD_PEER_GUID=" + (peer != 0 ? FormatGuid(peer) : std::string()),
         "SMSUPD_GENERATION=" + generation,
         "SMSUPD_CONFIG_HASH=" + status.config.hash,
         "SMSUPD_TEXT=" + Text(event.details, "text"),
         "SMSUPD_DETAILS=" + event.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
  return job;
}

}  // namespace smsupd
