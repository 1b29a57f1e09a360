// The arguments of the control protocol's commands (control_protocol.h has
// the command list): one struct per command, its JSON form and a parser that
// refuses unknown keys, so that a typo is never silently ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/control_protocol.h"
#include "common/guid.h"
#include "common/result.h"

namespace smsupd::control {

// events: {"since": N (default 0), "follow": bool (default false)}.
// Returns events with seq > since.
struct EventsArguments {
  std::uint64_t since = 0;
  bool follow = false;
};
nlohmann::json ToJson(const EventsArguments& args);
Result<EventsArguments> ParseEventsArguments(const nlohmann::json& arguments);

// reload: {"restart": bool, "wait": bool, "timeout_s": number > 0, "twin": bool}.
// restart: allow an OpenSM restart if a startup-only option changed.
// wait: answer only once the change is applied and verified (or failed).
// twin: run the config on the twin first; apply only if it agrees with the
// plan (as apply.twin: required does for every reload; docs/twin.md).
// The wire also accepts "timeout_ms" (integer); ToJson sends "timeout_ms"
// only when timeout_given. Without one the daemon uses verify.timeout_s.
struct ReloadArguments {
  bool restart = false;
  bool force = false;  // restart even with no standby to hand over to (as restart-opensm)
  bool wait = false;
  double timeout_s = 30;
  bool timeout_given = false;
  bool twin = false;
};
nlohmann::json ToJson(const ReloadArguments& args);
Result<ReloadArguments> ParseReloadArguments(const nlohmann::json& arguments);

// `failover` (7): hand mastership to another SM (smctl failover). `to`: the
// port GUID of the SM that must become master (default: the one OpenSM
// picks, the highest-ranked STANDBY). `wait`: answer when the new master is
// in place (or the handover failed), else as soon as it started.
struct FailoverArguments {
  std::optional<Guid> to;
  bool wait = false;
  double timeout_s = 15;
};
nlohmann::json ToJson(const FailoverArguments& args);
Result<FailoverArguments> ParseFailoverArguments(const nlohmann::json& arguments);

// `restart-opensm` (11): restart the local OpenSM without leaving the
// subnet without a master. On the MASTER: hand over to the best standby
// first, restart once the new master is on the fabric; elsewhere: restart in
// place. `force`: restart a MASTER with no standby anyway (the subnet has no
// master until OpenSM is back). `wait`: answer once the restarted OpenSM is
// STANDBY or MASTER, else as soon as the restart began.
struct RestartOpenSmArguments {
  bool wait = false;
  bool force = false;
  double timeout_s = 30;
};
nlohmann::json ToJson(const RestartOpenSmArguments& args);
Result<RestartOpenSmArguments> ParseRestartOpenSmArguments(const nlohmann::json& arguments);


// plan (8): {"yaml": text, "file": the name diagnostics give that text}.
// Neither: the daemon plans its own config file. A "file" without "yaml" is
// refused: the daemon never opens a path a caller names (it runs as root;
// a read-only caller could read any file or hang it on a FIFO).
// "file" is a name for diagnostics, at most a path's length (PATH_MAX).
inline constexpr std::size_t kMaxPlanFileNameBytes = 4096;
struct PlanArguments {
  std::optional<std::string> yaml;
  std::string file;
};
nlohmann::json ToJson(const PlanArguments& args);
Result<PlanArguments> ParsePlanArguments(const nlohmann::json& arguments);

// rollback (10): {"generation": N (default: the one before the current),
// "wait": bool, "timeout_ms": int}. Replies like reload.
struct RollbackArguments {
  std::optional<std::uint64_t> generation;
  bool wait = false;
  std::optional<std::int64_t> timeout_ms;
};
nlohmann::json ToJson(const RollbackArguments& args);
Result<RollbackArguments> ParseRollbackArguments(const nlohmann::json& arguments);

// why (13): {"a": NAME, "b": NAME}. A NAME is an inventory host name, a
// port's NodeDescription, a port GUID (0x + 16 hex digits) or a LID
// (decimal); the daemon resolves it. Each is 1..kMaxWhyNameBytes bytes.
inline constexpr std::size_t kMaxWhyNameBytes = 256;
struct WhyArguments {
  std::string a;
  std::string b;
};
nlohmann::json ToJson(const WhyArguments& args);
Result<WhyArguments> ParseWhyArguments(const nlohmann::json& arguments);

// cabling (15): {"export": bool (default false)}. Without export: the
// discovered links against the declared cabling; with it: today's links
// as the cabling CSV, in the reply (smctl writes the file, never the daemon).
struct CablingArguments {
  bool export_csv = false;
};
nlohmann::json ToJson(const CablingArguments& args);
Result<CablingArguments> ParseCablingArguments(const nlohmann::json& arguments);

// Checks the arguments of any known command (unknown keys are refused, so a
// typo is not silently ignored).
Status CheckArguments(const CommandInfo& command, const nlohmann::json& arguments);

}  // namespace smsupd::control
