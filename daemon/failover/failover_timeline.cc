#include "daemon/failover/failover_timeline.h"

#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/control_wire.h"

namespace smsupd {
namespace {

using std::chrono::milliseconds;

struct StageName {
  const char* key;   // in the event's details
  const char* text;  // in the journal line
};

constexpr StageName kStages[] = {
    {"fault_seen_ms", "fault seen"},       {"handover_sent_ms", "HANDOVER sent"},
    {"local_master_ms", "local OpenSM MASTER"}, {"subnet_up_ms", "SUBNET UP"},
    {"far_port_ms", "far port sees the new SM LID"}, {"remote_master_ms", "new MASTER elsewhere"},
};

}  // namespace

void FailoverTimeline::Start(const std::string& cause, WallTime at) {
  Reset();
  started_ = at;
  cause_ = cause;
}

void FailoverTimeline::Reset() { *this = FailoverTimeline(); }

void FailoverTimeline::FaultSeen(const std::string& cause, WallTime at, const std::string& signal) {
  if (active()) return;
  Start(cause, at);
  signal_ = signal;
  fault_seen_ = at;
}

void FailoverTimeline::HandoverSent(WallTime at) {
  if (!active() || handover_sent_) return;
  handover_sent_ = at;
}

void FailoverTimeline::LocalMaster(WallTime at, std::uint16_t local_lid) {
  if (!active()) Start("handover_received", at);
  if (local_master_) return;
  local_master_ = at;
  local_lid_ = local_lid;
}

void FailoverTimeline::SubnetUp(WallTime at) {
  // A sweep that ended before this SM was MASTER is not the new master's.
  if (!local_master_ || subnet_up_ || at + milliseconds(1) < *local_master_) return;
  subnet_up_ = at;
}

void FailoverTimeline::FarPortSeen(WallTime at, Guid guid, std::uint16_t lid) {
  if (!wants_far_port()) return;
  far_port_ = at;
  far_guid_ = guid;
  far_lid_ = lid;
}

void FailoverTimeline::RemoteMaster(WallTime at, Guid guid) {
  if (!active() || local_master_ || remote_master_) return;
  remote_master_ = at;
  remote_guid_ = guid;
}

std::optional<nlohmann::json> FailoverTimeline::TakeFinished(WallTime now) {
  if (!active()) return std::nullopt;
  // Waits for SUBNET UP too: the far port may learn its SM LID before the
  // sweep's last line.
  const bool complete = ((far_port_ || far_unknown_) && subnet_up_) || remote_master_;
  if (!complete && now - *started_ < kTimelineLimit) return std::nullopt;
  nlohmann::json details = Details(complete);
  Reset();
  return details;
}

nlohmann::json FailoverTimeline::Details(bool complete) const {
  auto ms = [this](const std::optional<WallTime>& at) -> nlohmann::json {
    if (!at) return nullptr;
    return std::chrono::duration_cast<milliseconds>(*at - *started_).count();
  };
  nlohmann::json details = {{"cause", cause_},
                            {"fault_signal", signal_.empty() ? nlohmann::json(nullptr) : nlohmann::json(signal_)},
                            {"started", control::FormatRfc3339Millis(*started_)},
                            {"complete", complete},
                            {"fault_seen_ms", ms(fault_seen_)},
                            {"handover_sent_ms", ms(handover_sent_)},
                            {"local_master_ms", ms(local_master_)},
                            {"subnet_up_ms", ms(subnet_up_)},
                            {"far_port_ms", ms(far_port_)},
                            {"remote_master_ms", ms(remote_master_)},
                            {"far_port", nullptr},
                            {"master_lid", local_master_ ? local_lid_ : 0},
                            {"new_master", nullptr}};
  if (far_guid_ != 0) details["far_port"] = {{"guid", FormatGuid(far_guid_)}, {"lid", far_lid_}};
  if (remote_master_) details["new_master"] = FormatGuid(remote_guid_);
  return details;
}

std::string FailoverTimeline::Describe(const nlohmann::json& details) {
  std::string text = details.value("cause", std::string("?"));
  if (auto signal = details.find("fault_signal"); signal != details.end() && signal->is_string())
    text += " (" + signal->get<std::string>() + ")";
  text += ":";
  bool first = true;
  for (const StageName& stage : kStages) {
    auto found = details.find(stage.key);
    if (found == details.end() || !found->is_number()) continue;
    text += std::string(first ? " " : ", ") + stage.text + " +" + std::to_string(found->get<long long>()) + " ms";
    first = false;
  }
  if (!details.value("complete", false)) text += " (incomplete after " + std::to_string(kTimelineLimit.count()) + " s)";
  return text;
}

std::optional<std::chrono::system_clock::time_point> OpenSmLogTime(const std::string& line,
                                                                   std::chrono::system_clock::time_point now) {
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  char month[4] = {};
  int day = 0, hour = 0, minute = 0, second = 0;
  long usec = 0;
  int used = 0;
  if (std::sscanf(line.c_str(), "%3s %2d %2d:%2d:%2d %6ld%n", month, &day, &hour, &minute, &second, &usec, &used) !=
          6 ||
      used < 22)
    return std::nullopt;
  int mon = -1;
  for (int i = 0; i < 12; ++i)
    if (std::strcmp(month, kMonths[i]) == 0) mon = i;
  if (mon < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60 || usec < 0) return std::nullopt;
  const std::time_t now_t = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&now_t, &local);
  for (int year_back = 0; year_back <= 1; ++year_back) {
    std::tm tm{};
    tm.tm_year = local.tm_year - year_back;
    tm.tm_mon = mon;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    tm.tm_isdst = -1;
    const std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return std::nullopt;
    auto at = std::chrono::system_clock::from_time_t(t) + std::chrono::microseconds(usec);
    // A stamp more than a day ahead of now is last year's (a log read across New Year).
    if (at <= now + std::chrono::hours(24)) return at;
  }
  return std::nullopt;
}

}  // namespace smsupd
