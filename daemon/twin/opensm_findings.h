// What the twin's OpenSM said: read from its log, its stdout/stderr and its
// SA dump (opensm-sa.dump, written after each SUBNET UP when sa_db_dump is
// TRUE). Pure parsers over text; every list is bounded, lines are made
// printable and cut, so a log of any size or content gives a bounded
// answer (tests/fuzz/ feeds them arbitrary bytes).
//
// Log lines relied on (OpenSM 3.3.23; docs/twin.md):
//   "<engine> tables configured on all switches"  osm_ucast_mgr.c, INFO: the engine used
//   "<engine>: cannot build lid matrices|fwd tables"  the engine that failed
//   "ERR XXXX: ..."                                  every ERROR line (the reason)
//   "Partition configuration in error; retrying with default config"
//   "SUBNET UP" / "Errors during initialization"     end of a heavy sweep
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace smsupd::twin {

inline constexpr std::size_t kMaxFindingLines = 20;
inline constexpr std::size_t kMaxFindingLineBytes = 300;
inline constexpr std::size_t kMaxMulticastGroups = 4096;

struct OpenSmFindings {
  bool subnet_up = false;
  bool initialization_errors = false;
  std::string engine_used;                   // "" when no engine configured the switches
  std::vector<std::string> engines_failed;   // "ftree: cannot build fwd tables"
  std::vector<std::string> errors;           // ERR lines, first kMaxFindingLines
  int errors_total = 0;
  std::vector<std::string> partition_errors; // lines about partitions.conf
  bool default_partition_fallback = false;
  std::vector<std::string> warnings;         // stdout/stderr lines (unknown options...)
  std::vector<std::string> credit_loops;     // lines that report credit loops / deadlocks
  std::optional<double> first_sweep_ms;      // first log line to the first SUBNET UP
};

// `log` is OpenSM's log file, `output` what it printed on stdout/stderr.
OpenSmFindings ReadOpenSmFindings(std::string_view log, std::string_view output);

struct MulticastGroup {
  uint16_t mlid = 0;
  std::string mgid;  // "0xff12401bffff0000:0x00000000ffffffff"
  uint16_t pkey = 0;
  int mtu = 0;       // IBTA code
  int rate = 0;      // IBTA code
  uint32_t qkey = 0;
};

// The "MC Group" records of opensm-sa.dump, at most kMaxMulticastGroups.
std::vector<MulticastGroup> ReadMulticastGroups(std::string_view sa_dump);

// The first engine of a routing_engine value ("ftree,updn" -> "ftree";
// "" or "(null)" -> "minhop", OpenSM's default).
std::string AskedEngine(std::string_view routing_engine);
// The routing_engine option of an opensm.conf text (last one wins, as in
// OpenSM); "" when absent.
std::string RoutingEngineOption(std::string_view opensm_conf);

nlohmann::json ToJson(const OpenSmFindings& findings);
nlohmann::json ToJson(const MulticastGroup& group);

}  // namespace smsupd::twin
