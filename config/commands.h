// The offline commands shared by `smsupd --check`, `smctl validate` and
// `smctl render`. No daemon needed. Exit codes: 0 valid / written, 1 invalid
// (or files could not be written), 2 the config file cannot be read.
#pragma once

#include <ostream>
#include <string>

namespace smsupd::config {

inline constexpr int kExitValid = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUnreadable = 2;

// Human form: one Diagnostic::Format() line per finding on `err`, then a
// summary line on `out`. JSON form (on `out` only):
// {"valid":bool,"errors":[{file,line,column,path,message,hint}],"warnings":[...]}
int RunValidateCommand(const std::string& file, bool json, std::ostream& out,
                       std::ostream& err);

// Validates `file`, then writes opensm.conf and partitions.conf into
// `out_dir` atomically (opensm.conf with mode 0600: it may hold keys).
int RunRenderCommand(const std::string& file, const std::string& out_dir,
                     std::ostream& out, std::ostream& err);

}  // namespace smsupd::config
