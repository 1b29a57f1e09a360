// The one atomic writer. OpenSM re-reads partitions.conf on
// every heavy sweep, so a reader must only ever see the old or the new file,
// never a half-written one (docs/opensm-behaviour.md "Who reads partitions.conf, and atomic
// replacement").
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "common/result.h"

namespace smsupd {

// Writes `content` to a temporary file in the directory of `path`, fsyncs it,
// sets `mode`, renames it over `path` and fsyncs the directory. On any
// failure the old file is left as it was and the temporary file removed.
Status WriteFileAtomically(const std::string& path, std::string_view content, mode_t mode = 0644);

// Reads a whole file; the error names the path and errno text. A file
// longer than `max_bytes` is an error, read no further than that.
Result<std::string> ReadWholeFile(const std::string& path,
                                  std::size_t max_bytes = static_cast<std::size_t>(-1));

}  // namespace smsupd
