// The pid file that lets a restarted smsupd adopt the OpenSM a previous
// smsupd started for the same port, instead of starting a second OpenSM on
// it (two SMs on one port fight over its SMInfo). Adoption is refused unless
// every fact matches: a recycled pid or someone else's OpenSM is never adopted.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/guid.h"
#include "common/result.h"
#include "daemon/process/process_table.h"

namespace smsupd {

struct OpenSmPidRecord {
  pid_t pid = 0;
  std::uint64_t start_ticks = 0;  // /proc/<pid>/stat start time when it was started
  std::string binary;             // as configured (sm.opensm.binary)
  std::string exe;                // the binary with symlinks resolved, as /proc shows it
  Guid port_guid = 0;
  std::string conf_path;          // the -F argument
};

// "key=value" lines; unknown keys are ignored when reading so the file can grow.
std::string FormatPidRecord(const OpenSmPidRecord& record);
Result<OpenSmPidRecord> ParsePidRecord(std::string_view text);

Status WritePidFile(const std::string& path, const OpenSmPidRecord& record);
Result<OpenSmPidRecord> ReadPidFile(const std::string& path);

// What this smsupd would start now.
struct OpenSmIdentity {
  std::string binary;
  Guid port_guid = 0;
  std::string conf_path;
  // What /proc/<pid>/exe shows for `binary` (symlinks resolved), or ""
  // when that cannot be known (a script runs its interpreter). When known,
  // the process must run it: a record naming another program is never
  // trusted, whatever else it says.
  std::string exe;
};

// Ok when the running process `facts` is the OpenSM `record` describes and
// that OpenSM is the one `wanted`; otherwise the reason it is not.
Status CheckAdoptable(const OpenSmPidRecord& record, const ProcessFacts& facts,
                      const OpenSmIdentity& wanted);

}  // namespace smsupd
