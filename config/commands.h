// The offline commands shared by `smsupd --check`, `smctl validate` and
// `smctl render`. No daemon needed. Exit codes of these functions (those of
// `smsupd --check`): 0 valid / written, 1 invalid (or files could not be
// written), 2 the config file cannot be read. smctl maps the outcome onto
// its own table (smctl/exit_codes.h).
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "config/renderer.h"
#include "config/validator.h"

namespace smsupd::config {

inline constexpr int kExitValid = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUnreadable = 2;

// Human form: one Diagnostic::Format() line per finding on `err`, then a
// summary line on `out`. JSON form (on `out` only):
// {"valid":bool,"errors":[{file,line,column,path,message,hint}],"warnings":[...]}
int RunValidateCommand(const std::string& file, bool json, std::ostream& out,
                       std::ostream& err);

// The JSON form above, as a value.
nlohmann::json ValidationJson(const ValidationOutcome& outcome);
// The human form above; `file` names the file in the summary line.
void PrintValidation(const std::string& file, const ValidationOutcome& outcome, std::ostream& out,
                     std::ostream& err);
// "valid (0 errors, 1 warning)".
std::string ValidationSummary(const ValidationOutcome& outcome);

// Validates `file`, then writes opensm.conf and partitions.conf into
// `out_dir` atomically (opensm.conf with mode 0600: it may hold keys).
int RunRenderCommand(const std::string& file, const std::string& out_dir,
                     std::ostream& out, std::ostream& err);

// Writes the files `config` renders to into `out_dir` (which must be a
// directory) as RunRenderCommand does; returns what was written.
Result<RenderedFiles> RenderIntoDirectory(const Config& config, const std::string& out_dir);

}  // namespace smsupd::config
